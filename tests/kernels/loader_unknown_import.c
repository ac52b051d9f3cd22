/* loader_unknown_import.c - a kernel importing a function nobody on the device provides. */
#include <stdint.h>

uint32_t vendor_secret_helper(void *args);

uint32_t loader_unknown_entry(void *args)
{
    return vendor_secret_helper(args) + 1;
}
