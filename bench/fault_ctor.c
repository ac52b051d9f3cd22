/* fault_ctor.c - a kernel image whose constructor never returns (scripts/fault-table): loading
 * it must not block its host beyond the launch's timeout, nor leave an executor spinning. */
#include <stdint.h>

__attribute__((constructor)) static void never_returns(void)
{
    volatile uint64_t n = 0;

    for (;;)
        n++;
}

uint32_t fault_ctor(void *args)
{
    (void)args;
    return 0;
}
