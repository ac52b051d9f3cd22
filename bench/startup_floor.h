/* startup_floor.h - this machine's cost of a process start and of a page's first touch, the
 * floor under bench_startup's figures (startup_floor.c). */
#ifndef HCEMU_BENCH_STARTUP_FLOOR_H
#define HCEMU_BENCH_STARTUP_FLOOR_H

#include <stdint.h>

/* CPU time in ms of getrusage's `who` (RUSAGE_SELF, RUSAGE_CHILDREN); 0 when unreadable. */
double startup_cpu_ms(int who);

/* Start n executors at once that exit without doing anything; their CPU time and the wall
 * time until the last ended, in ms. 0, or -1 when the executor cannot be found or started. */
int startup_floor_spawn(uint32_t n, double *cpu_ms, double *wall_ms);

/* Microseconds per page for a first write to each page of a fresh shared mapping, or < 0. */
double startup_floor_touch_us(void);

#endif
