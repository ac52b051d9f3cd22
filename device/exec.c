/* exec.c - the state of this executor process (exec.h), filled in by main.c at start-up and
 * read by every module; defined here so that reading it does not make a module depend on
 * main.c. */
#include "exec.h"

struct emu_exec emu_exec_g;
