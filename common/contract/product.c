/* product.c - see product.h. */
#include "product.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "settings.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char soc[64];
static char label[96];
static enum emu_product product;

enum emu_product emu_product_of(const char *name)
{
    if (strncmp(name, "Ascend910_93", 12) == 0)
        return EMU_PRODUCT_A3;
    if (strncmp(name, "Ascend910B", 10) == 0)
        return EMU_PRODUCT_A2;
    return EMU_PRODUCT_950;
}

static void read_env(void)
{
    static const char *const names[] = {"Atlas 350", "Atlas A3", "Atlas A2"};
    const char *s = emu_settings_str(EMU_SET_SOC);

    snprintf(soc, sizeof(soc), "%s", *s != '\0' ? s : EMU_DEFAULT_SOC);
    product = emu_product_of(soc);
    snprintf(label, sizeof(label), "%s (%s)", names[product], soc);
}

enum emu_product emu_product_current(void)
{
    pthread_once(&once, read_env);
    return product;
}

const char *emu_product_soc(void)
{
    pthread_once(&once, read_env);
    return soc;
}

const char *emu_product_label(void)
{
    pthread_once(&once, read_env);
    return label;
}
