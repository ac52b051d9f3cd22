/* wire.h - what crosses between a host process and a device executor.
 *
 * Two paths: stream tasks go through the submission ring in the device's control memory
 * (devctl.h), fixed-size records with no pointers into the host; requests that need an
 * answer (load a kernel image, resolve an entry) go over the device's Unix socket as
 * fixed-size messages. */
#ifndef HCEMU_COMMON_WIRE_H
#define HCEMU_COMMON_WIRE_H

#include <stdint.h>

enum emu_task_kind {
    EMU_TASK_NOP = 0,
    EMU_TASK_COPY,          /* copy: any mix of device (any device of the job) and pinned host */
    EMU_TASK_MEMSET,        /* memset: device memory */
    EMU_TASK_NOTIFY_RECORD, /* notify: set a notify slot (binary) */
    EMU_TASK_NOTIFY_WAIT,   /* notify: wait for a slot, then clear it */
    EMU_TASK_EVENT_RECORD,  /* event: publish sequence number `seq` */
    EMU_TASK_EVENT_WAIT,    /* event: wait until the event reached `seq` */
    EMU_TASK_KERNEL,        /* kernel: run an AICPU kernel entry */
    EMU_TASK_KIND_COUNT
};

/* An address as seen by the executor: a global device address (space 0) or an offset in
 * the pinned host memory file of host process `space` (its pid). */
struct emu_wire_addr {
    uint64_t addr;
    uint32_t space;
    uint32_t reserved;
};

/* emu_wire_task.flags */
#define EMU_WIRE_FREE_ARGS 0x1u /* kernel: the executor frees the argument copy at the end */

struct emu_wire_task {
    uint16_t kind;
    uint16_t flags;
    uint32_t stream; /* stream slot on the device */
    uint32_t stream_gen;
    /* HCEMU_TIME=model: plus one, the node of the job's task graph (model.shm) that the
     * submitting host thread last synchronised on; the task cannot start before it ended
     * (common/model/model.h `after`). 0 = none. */
    uint32_t model_after;
    uint64_t callsite; /* return address of the API call in the host program */
    union {
        struct {
            struct emu_wire_addr dst;
            struct emu_wire_addr src;
            uint64_t len;
        } copy;
        struct {
            uint64_t dst;
            uint64_t len;
            uint32_t value;
        } memset;
        struct {
            uint32_t dev;  /* device owning the slot */
            uint32_t slot; /* index in that device's notify pool */
        } notify;
        struct {
            uint32_t slot;
            uint32_t reserved;
            uint64_t timeout_s; /* 0 = forever */
        } wait;
        struct {
            uint32_t dev;  /* device whose notify pool holds the event's counter */
            uint32_t slot;
            uint32_t seq;
            uint32_t reserved;
            uint64_t ring_mask; /* record: bit d % 64 = device d may wait on the event */
        } event;
        struct {
            uint32_t image;
            uint32_t func;
            uint64_t args; /* device address of the packed argument bytes */
            uint64_t args_size;
            uint32_t blocks;
            uint32_t copy_mode;  /* enum emu_copy_mode of the kernel's transfers */
            uint64_t timeout_us; /* 0 = forever */
        } kernel;
        uint8_t raw[88];
    } u;
};
_Static_assert(sizeof(struct emu_wire_task) == 112, "wire task layout");

enum emu_rpc_op {
    EMU_RPC_HELLO = 1,     /* -> val0 = executor pid */
    EMU_RPC_LOAD_IMAGE,    /* text = .so path -> val0 = image id */
    EMU_RPC_RESOLVE,       /* arg0 = image, text = symbol -> val0 = function id */
    EMU_RPC_UNLOAD_IMAGE,  /* arg0 = image */
    EMU_RPC_MAP_PIN,       /* arg0 = pid: map that host's pinned memory file now */
    EMU_RPC_POPULATE,      /* arg1 = offset, arg2 = len: fault in device memory */
    EMU_RPC_MAP_PEER,      /* arg0 = dev, text = job folder: map a peer device now */
    EMU_RPC_NET_ADDR,      /* text = struct emu_net_job (device/net/net.h) -> val0 = length, msg =
                            * the executor's network address */
    EMU_RPC_NET_CONNECT,   /* arg0 = peers[] index, arg1 = length, text = the peer's address,
                            * then at text[EMU_HOST_ADDR_MAX] the token of its job */
};

/* What the host tells its executor's transport to other hosts about its job when it asks for
 * the address (EMU_RPC_NET_ADDR): the token the job's messages carry (derived from the job's
 * key by the host: messages without a token of a job the executor serves are dropped), and
 * the network interface the job was given (the one its rendezvous uses; UCX then listens
 * only there, unless UCX_NET_DEVICES is set; the first request decides, as UCX starts
 * once). */
#define EMU_NET_TOKEN_BYTES 16u
#define EMU_NET_IFNAME_MAX 16u
struct emu_net_job {
    uint8_t token[EMU_NET_TOKEN_BYTES];
    char ifname[EMU_NET_IFNAME_MAX]; /* "" = any */
};

struct emu_rpc_req {
    uint32_t op;
    uint32_t arg0;
    uint64_t arg1;
    uint64_t arg2;
    char text[512];
};

struct emu_rpc_rep {
    int32_t status; /* emu_status */
    uint32_t val0;
    uint64_t val1;
    char msg[512];
};

#endif
