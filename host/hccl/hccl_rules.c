/* hccl_rules.c - product rules (see hccl_rules.h).
 *
 * Sources, vendor support tables (CONTROL_PLANE.md §4): engines (CCU only on 950; the host CPU
 * engine only on 950), protocols (950 offers the UB family and UBoE, RoCE only to the
 * host CPU engine since the Atlas 350 card has no RoCE on AICPU_TS; A2/A3 offer HCCS,
 * HCCS_ONLY and RoCE, A3 also SIO), and each call's support line. */
#include "hccl_rules.h"

#include "common/platform/log.h"
#include "common/contract/product.h"
#include "hccl/hccl.h"
#include "hccl_topo.h"

static uint32_t product_bit(void)
{
    switch (emu_product_current()) {
    case EMU_PRODUCT_950:
        return EMU_ON_950;
    case EMU_PRODUCT_A3:
        return EMU_ON_A3;
    case EMU_PRODUCT_A2:
        return EMU_ON_A2;
    default:
        return EMU_ON_950;
    }
}

const char *emu_rules_engine_name(int32_t engine)
{
    static const char *const names[] = {"CPU", "CPU_TS", "AICPU", "AICPU_TS", "AIV", "CCU"};

    if (engine >= 0 && engine <= COMM_ENGINE_CCU)
        return names[engine];
    return engine == COMM_ENGINE_RESERVED ? "RESERVED" : "unknown";
}

bool emu_rules_has(uint32_t mask)
{
    return (mask & product_bit()) != 0;
}

emu_status emu_rules_call(const char *fn, uint32_t rank, uint32_t mask)
{
    if (emu_rules_has(mask))
        return EMU_OK;
    if (rank == UINT32_MAX) /* a call without a communicator */
        EMU_LOG_ERR("%s: %s does not support %s", fn, emu_product_label(), fn);
    else
        EMU_LOG_ERR("%s: rank %u: %s does not support %s", fn, rank, emu_product_label(), fn);
    return EMU_ENOTSUP;
}

emu_status emu_rules_engine(const char *fn, uint32_t rank, int32_t engine)
{
    if (engine < COMM_ENGINE_CPU || engine > COMM_ENGINE_CCU) {
        EMU_LOG_ERR("%s: rank %u: engine %d is not a CommEngine (0..5)", fn, rank, engine);
        return EMU_EINVAL;
    }
    uint32_t on = EMU_ON_ALL;
    if (engine == COMM_ENGINE_CCU || engine == COMM_ENGINE_CPU)
        on = EMU_ON_950;
    if ((on & product_bit()) != 0)
        return EMU_OK;
    EMU_LOG_ERR("%s: rank %u: %s has no %s engine", fn, rank, emu_product_label(),
                emu_rules_engine_name(engine));
    return EMU_ENOTSUP;
}

static uint32_t protocol_products(int32_t engine, int32_t protocol)
{
    switch (protocol) {
    case COMM_PROTOCOL_UB_CTP:
    case COMM_PROTOCOL_UBC_TP:
    case COMM_PROTOCOL_UB_MEM:
    case COMM_PROTOCOL_UBOE:
    case COMM_PROTOCOL_UB_RTP:
        return EMU_ON_950;
    case COMM_PROTOCOL_ROCE:
        return engine == COMM_ENGINE_CPU ? EMU_ON_ALL : EMU_ON_A3 | EMU_ON_A2;
    case COMM_PROTOCOL_HCCS:
    case COMM_PROTOCOL_HCCS_ONLY:
        return EMU_ON_A3 | EMU_ON_A2;
    case COMM_PROTOCOL_SIO:
        return EMU_ON_A3;
    default:
        return 0; /* PCIE: no product offers it to channels */
    }
}

emu_status emu_rules_protocol(const char *fn, uint32_t rank, int32_t engine, int32_t protocol)
{
    if (protocol < COMM_PROTOCOL_HCCS || protocol > COMM_PROTOCOL_UB_RTP) {
        EMU_LOG_ERR("%s: rank %u: channelProtocol %d is not a CommProtocol (%s)", fn, rank,
                    protocol,
                    protocol == COMM_PROTOCOL_RESERVED ? "RESERVED: set it, e.g. from "
                                                         "HcclRankGraphGetLinks"
                                                       : "0..9");
        return EMU_EINVAL;
    }
    if ((protocol_products(engine, protocol) & product_bit()) != 0)
        return EMU_OK;
    EMU_LOG_ERR("%s: rank %u: %s offers no %s channels to the %s engine", fn, rank,
                emu_product_label(), emu_topo_protocol_name(protocol),
                emu_rules_engine_name(engine));
    return EMU_ENOTSUP;
}
