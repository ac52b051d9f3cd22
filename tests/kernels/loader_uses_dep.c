/* loader_uses_dep.c - a kernel that imports from its sibling library libloader_dep.so and
 * weakly from a symbol nothing defines (left NULL at load). */
#include <stdint.h>

int loader_dep_value(void);
int hcemu_test_nowhere(void) __attribute__((weak));

uint32_t loader_uses_dep(void *args)
{
    (void)args;
    if (hcemu_test_nowhere != 0)
        return 1;
    return loader_dep_value() == 4242 ? 0 : 2;
}
