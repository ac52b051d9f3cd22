/* run_machine.h - hcemu-run's part in the collectives' wall-clock algorithm choice: the
 * machine's figures handed to every rank (so all choose alike), and `hcemu-run --machine`. */
#ifndef HCEMU_TOOLS_RUN_MACHINE_H
#define HCEMU_TOOLS_RUN_MACHINE_H

#include <stdbool.h>

/* Sets HCEMU_MACHINE for the ranks about to start, unless it is set, the time is modelled
 * (the card's rule needs no figures) or the job spans hosts (`multihost`: each host's figures
 * differ, so its ranks keep the card's rule unless HCEMU_MACHINE is given on every host). */
void run_machine_export(bool multihost);
/* Prints the figures, where they came from, and the algorithm the wall clock picks per
 * operator, rank count and size. Returns the exit status. */
int run_machine_print(void);
/* `hcemu-run --machine-cost OPERATOR:RANKS:SIZE`: the wall-clock cost model's time of every
 * algorithm that applies to that call, in microseconds, a line each. Returns the exit status. */
int run_machine_costs(const char *call);

#endif
