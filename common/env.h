/* env.h - reading numeric settings from the environment, with one warning for bad values. */
#ifndef HCEMU_COMMON_ENV_H
#define HCEMU_COMMON_ENV_H

#include <stdint.h>

/* The decimal value of variable `name`, or `def` when it is unset or empty. A value that is
 * not a number in [lo, hi] logs one warning naming the variable and gives `def`. */
uint64_t emu_env_u64(const char *name, uint64_t def, uint64_t lo, uint64_t hi);

#endif
