/* product.h - which product the emulated SoC is (HCEMU_SOC), and what it lacks.
 *
 * The vendor's support columns are keyed by product: Atlas 350 (Ascend950*), A3
 * (Ascend910_93*), A2 (Ascend910B*). Every "this product lacks X" decision asks here. */
#ifndef HCEMU_COMMON_PRODUCT_H
#define HCEMU_COMMON_PRODUCT_H

enum emu_product {
    EMU_PRODUCT_950 = 0, /* Atlas 350 / Ascend 950PR/DT, "A5" */
    EMU_PRODUCT_A3 = 1,  /* Atlas A3, Ascend910_93 */
    EMU_PRODUCT_A2 = 2,  /* Atlas A2, Ascend910B */
};

#define EMU_DEFAULT_SOC "Ascend950PR_9599"

/* The product of a SoC name; unknown names count as 950 (the emulator's target). */
enum emu_product emu_product_of(const char *soc);
/* The product of this process (HCEMU_SOC, read once). */
enum emu_product emu_product_current(void);
/* The SoC name of this process. */
const char *emu_product_soc(void);
/* "Atlas 350 (Ascend950PR_9599)", for messages. */
const char *emu_product_label(void);

#endif
