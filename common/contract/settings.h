/* settings.h - the one table of every environment variable hcemu honours (HCEMU_* and the
 * vendor HCCL_* ones), and the only code in common/ host/ device/ loader/ that reads the
 * environment. A host resolves the table from its environment; an executor adopts the values
 * its host wrote into the device control block (emu_settings_adopt) and never reads its own
 * environment, so a host and its executors cannot disagree. Adding a setting is one row. */
#ifndef HCEMU_COMMON_SETTINGS_H
#define HCEMU_COMMON_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "layout.h"
#include "product.h"

enum emu_setting_type {
    EMU_SET_STR,  /* any text; "" = unset */
    EMU_SET_U64,  /* decimal in [lo, hi] */
    EMU_SET_BOOL, /* 0/1, false/true, off/on, no/yes */
    EMU_SET_ENUM, /* one of `choices` ("a|b,b2|c": '|' between choices, ',' between spellings
                   * of one choice; the first spelling is canonical), or its index */
};

/* Who reads a setting. Rows read by the executor travel in the control block. */
enum emu_setting_reader {
    EMU_SET_HOST = 1, /* the host library */
    EMU_SET_EXEC = 2, /* the executor (hcemu-device), via the control block */
    EMU_SET_BOTH = 3, /* both; the executor's copy comes from the control block */
    EMU_SET_RUN = 4,  /* set by hcemu-run for each rank, read by the host library */
};

#if defined(__SANITIZE_THREAD__)
#define EMU_SET_DEVICE_MEM_GB_DEFAULT "4" /* matches EMU_DEFAULT_DEVICE_MEM */
#else
#define EMU_SET_DEVICE_MEM_GB_DEFAULT "32"
#endif

/* X(id, variable, type, default, lo, hi, choices, reader, doc). `default` is text, parsed
 * like a value; "" means unset. lo/hi bound U64 rows; choices name ENUM values. README.md's
 * environment table lists the same rows with the same defaults (tests/test_settings.c). */
#define EMU_SETTINGS_TABLE(X)                                                                      \
    X(LOG_LEVEL, "HCEMU_LOG_LEVEL", EMU_SET_ENUM, "warn", 0, 0, "error|warn,warning|info|debug",   \
      EMU_SET_BOTH, "log level on stderr")                                                         \
    X(SOC, "HCEMU_SOC", EMU_SET_STR, EMU_DEFAULT_SOC, 0, 0, "", EMU_SET_BOTH,                      \
      "SoC name; selects the product support tables")                                              \
    X(DEVICES, "HCEMU_DEVICES", EMU_SET_U64, "8", 1, EMU_MAX_DEVICES, "", EMU_SET_HOST,            \
      "number of emulated devices")                                                                \
    X(DEVICE_MEM_GB, "HCEMU_DEVICE_MEM_GB", EMU_SET_U64, EMU_SET_DEVICE_MEM_GB_DEFAULT, 1,         \
      EMU_WINDOW_SIZE >> 30, "", EMU_SET_HOST, "device memory per device in GiB")                  \
    X(JOB_DIR, "HCEMU_JOB_DIR", EMU_SET_STR, "/dev/shm", 0, 0, "", EMU_SET_HOST,                   \
      "parent folder of each job's folder")                                                        \
    X(JOB_PATH, "HCEMU_JOB_PATH", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,                          \
      "the shared job folder of a multi-process job")                                              \
    X(JOB_ID, "HCEMU_JOB_ID", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,                              \
      "the identity of a multi-process job")                                                       \
    X(RANK, "HCEMU_RANK", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN, "this process's rank")           \
    X(RANK_SIZE, "HCEMU_RANK_SIZE", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,                        \
      "the number of ranks of the job")                                                            \
    X(LOCAL_RANK, "HCEMU_LOCAL_RANK", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,                      \
      "this process's index on its host: the device it uses")                                      \
    X(ROOT, "HCEMU_ROOT", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,                                  \
      "HOST:PORT of rank 0's rendezvous listener (multi-host jobs)")                               \
    X(KEY, "HCEMU_KEY", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,                                    \
      "the key of a multi-host job: 64 hex digits (hcemu-run --make-key)")                         \
    X(KEY_FILE, "HCEMU_KEY_FILE", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,                          \
      "file holding the key of a multi-host job (0600, owned by the user)")                        \
    X(INSECURE_LOOPBACK, "HCEMU_INSECURE_LOOPBACK", EMU_SET_BOOL, "0", 0, 1, "", EMU_SET_RUN,      \
      "a job on one machine without a key: HCEMU_ROOT on 127.x, a key anyone can derive")          \
    X(HOST_NAME, "HCEMU_HOST", EMU_SET_STR, "", 0, 0, "", EMU_SET_BOTH,                            \
      "this process's host; different names are different hosts (forces the network path)")      \
    X(HOST_SPLIT, "HCEMU_HOST_SPLIT", EMU_SET_U64, "0", 0, EMU_MAX_DEVICES, "", EMU_SET_BOTH,      \
      "test aid: devices from this index on are a second host (0 = off)")                        \
    X(OMPI_RANK, "OMPI_COMM_WORLD_RANK", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,                   \
      "rank set by Open MPI's mpirun (launcher)")                                                  \
    X(OMPI_SIZE, "OMPI_COMM_WORLD_SIZE", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,                   \
      "rank count set by Open MPI's mpirun (launcher)")                                            \
    X(OMPI_LOCAL_RANK, "OMPI_COMM_WORLD_LOCAL_RANK", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,       \
      "index on the host set by Open MPI's mpirun (launcher)")                                     \
    X(PMIX_NAMESPACE, "PMIX_NAMESPACE", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,                    \
      "job identity set by PMIx launchers (launcher)")                                             \
    X(SLURM_PROCID, "SLURM_PROCID", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,                        \
      "rank set by Slurm's srun (launcher)")                                                       \
    X(SLURM_NTASKS, "SLURM_NTASKS", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,                        \
      "rank count set by Slurm's srun (launcher)")                                                 \
    X(SLURM_LOCALID, "SLURM_LOCALID", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,                      \
      "index on the node set by Slurm's srun (launcher)")                                          \
    X(SLURM_JOB_ID, "SLURM_JOB_ID", EMU_SET_STR, "", 0, 0, "", EMU_SET_RUN,                        \
      "job identity set by Slurm (launcher)")                                                      \
    X(HCCL_IF_IP, "HCCL_IF_IP", EMU_SET_STR, "", 0, 0, "", EMU_SET_HOST,                           \
      "IPv4 address the root's rendezvous listens on (vendor)")                                    \
    X(HCCL_SOCKET_IFNAME, "HCCL_SOCKET_IFNAME", EMU_SET_STR, "", 0, 0, "", EMU_SET_HOST,           \
      "network interface whose address the root listens on (vendor)")                              \
    X(TOPOLOGY, "HCEMU_TOPOLOGY", EMU_SET_STR, "", 0, 0, "", EMU_SET_HOST,                         \
      "topology file: servers and links")                                                          \
    X(DEVICE_BIN, "HCEMU_DEVICE_BIN", EMU_SET_STR, "", 0, 0, "", EMU_SET_HOST,                     \
      "path of hcemu-device (unset: next to the library)")                                         \
    X(RPC_TIMEOUT_MS, "HCEMU_RPC_TIMEOUT_MS", EMU_SET_U64, "60000", 100, 86400000, "",             \
      EMU_SET_HOST, "bound on an executor's answer to a request, image loading included, in ms")   \
    X(HANG_MS, "HCEMU_HANG_MS", EMU_SET_U64, "2000", 0, 86400000, "", EMU_SET_EXEC,                \
      "hang watchdog period in ms (0 = off)")                                                      \
    X(RACECHECK, "HCEMU_RACECHECK", EMU_SET_BOOL, "0", 0, 1, "", EMU_SET_EXEC,                     \
      "happens-before race detector")                                                              \
    X(TRACE, "HCEMU_TRACE", EMU_SET_STR, "", 0, 0, "", EMU_SET_EXEC,                               \
      "Chrome trace-event timeline path")                                                          \
    X(SEED, "HCEMU_SEED", EMU_SET_U64, "0", 0, UINT64_MAX, "", EMU_SET_EXEC,                       \
      "seeded schedule (0 = off)")                                                                 \
    X(RUNQ, "HCEMU_RUNQ", EMU_SET_BOOL, "1", 0, 1, "", EMU_SET_EXEC,                               \
      "job-wide run queue: a record for a parked peer thread runs its tasks in place")            \
    X(POLL_US, "HCEMU_POLL_US", EMU_SET_U64, "300", 0, 10000, "", EMU_SET_BOTH,                    \
      "how long a waiting thread polls, yielding its core, before it sleeps, in us (0 = off)")   \
    X(BIND, "HCEMU_BIND", EMU_SET_BOOL, "1", 0, 1, "", EMU_SET_EXEC,                               \
      "bind each device's workers to one core while the job has more executors than cores")       \
    X(COPY_STREAM_KB, "HCEMU_COPY_STREAM_KB", EMU_SET_U64, "1024", 0, 1u << 22, "", EMU_SET_BOTH,  \
      "data-plane transfers of at least this many KiB bypass the caches (0 = never)")             \
    X(DIRECT_KB, "HCEMU_DIRECT_KB", EMU_SET_U64, "16", 0, 1u << 30, "", EMU_SET_HOST,             \
      "built-in collectives read a peer's buffer directly from this many KiB a pair (0 = never)") \
    X(OVERLAP, "HCEMU_OVERLAP", EMU_SET_BOOL, "1", 0, 1, "", EMU_SET_HOST,                        \
      "a built-in collective's kernel may start while the same communicator's call before it runs") \
    X(REPLAY, "HCEMU_REPLAY", EMU_SET_BOOL, "1", 0, 1, "", EMU_SET_EXEC,                           \
      "a built-in collective's launch like an earlier one queues that one's tasks again")          \
    X(ALGO, "HCEMU_ALGO", EMU_SET_STR, "", 0, 0, "", EMU_SET_HOST,                                 \
      "algorithm of the built-in collectives per operator")                                        \
    X(MACHINE, "HCEMU_MACHINE", EMU_SET_STR, "", 0, 0, "", EMU_SET_HOST,                            \
      "this machine's figures for the collectives' wall-clock cost model: copy=GB/s,handoff=us,cores=N") \
    X(COLL_CHECK, "HCEMU_COLL_CHECK", EMU_SET_BOOL, "0", 0, 1, "", EMU_SET_HOST,                    \
      "cross-rank checks of every collective call: operator, types, counts, op, root, order")     \
    X(FAULT, "HCEMU_FAULT", EMU_SET_STR, "", 0, 0, "", EMU_SET_EXEC,                              \
      "fault injection rules: kind:key=value,...;... (docs/DEBUGGING.md)")                        \
    X(PROVENANCE, "HCEMU_PROVENANCE", EMU_SET_BOOL, "0", 0, 1, "", EMU_SET_BOTH,                   \
      "record the last writer of device memory for provenance reports (docs/PROVENANCE.md)")      \
    X(PEER_THREADS, "HCEMU_PEER_THREADS", EMU_SET_ENUM, "auto", 0, 0, "auto|on|off", EMU_SET_HOST,  \
      "small mesh exchanges of the built-in collectives on a thread per peer (auto: when modelled)") \
    X(REDUCE_ISA, "HCEMU_REDUCE_ISA", EMU_SET_ENUM, "auto", 0, 0, "auto|generic|sse2|avx2|avx512", \
      EMU_SET_EXEC, "reduction kernel set")                                                        \
    X(ASCEND_HOME_PATH, "ASCEND_HOME_PATH", EMU_SET_STR, "", 0, 0, "", EMU_SET_HOST,               \
      "toolkit whose package whitelist applies outside an opp/ tree (vendor)")                     \
    X(ASCEND_GLOBAL_LOG_LEVEL, "ASCEND_GLOBAL_LOG_LEVEL", EMU_SET_U64, "3", 0, 4, "",              \
      EMU_SET_HOST, "libunified_dlog level, read by that library itself (vendor)")                 \
    X(TIME, "HCEMU_TIME", EMU_SET_ENUM, "wall", 0, 0, "wall|model", EMU_SET_BOTH,                  \
      "event times: wall clock or the modelled Atlas 350 clock")                                   \
    X(MODEL, "HCEMU_MODEL", EMU_SET_STR, "", 0, 0, "", EMU_SET_HOST,                               \
      "cost-model file (JSON) overriding the modelled clock's figures")                            \
    X(HCCL_BUFFSIZE, "HCCL_BUFFSIZE", EMU_SET_U64, "200", 1, 65536, "", EMU_SET_HOST,              \
      "HCCL buffer size in MB (vendor)")                                                           \
    X(HCCL_CONNECT_TIMEOUT, "HCCL_CONNECT_TIMEOUT", EMU_SET_U64, "120", 1, 7200, "", EMU_SET_HOST, \
      "rank and channel rendezvous timeout in s (vendor)")                                         \
    X(HCCL_EXEC_TIMEOUT, "HCCL_EXEC_TIMEOUT", EMU_SET_U64, "1836", 0, INT32_MAX, "", EMU_SET_HOST, \
      "default execution timeout in s (vendor)")

enum emu_setting {
#define EMU_SET_ID(id, ...) EMU_SET_##id,
    EMU_SETTINGS_TABLE(EMU_SET_ID)
#undef EMU_SET_ID
        EMU_SET_COUNT
};

/* One row, for tests and documentation. */
struct emu_setting_info {
    const char *name;
    enum emu_setting_type type;
    const char *def;
    uint64_t lo, hi;
    const char *choices;
    enum emu_setting_reader reader;
    const char *doc;
};

/* ---- the block a host writes into a device's control block ------------------------------ */

#define EMU_SETTINGS_MAGIC 0x3154455355454d45ull /* "EMUESET1" */
#define EMU_SETTINGS_MAX_ROWS 64u
#define EMU_SETTING_STR_MAX 512u

struct emu_setting_value {
    uint64_t u;                  /* U64, BOOL (0/1), ENUM (choice index) */
    char s[EMU_SETTING_STR_MAX]; /* STR; ENUM: the canonical choice name */
};

/* Offsets and fixed-width types only: it lives in shared memory (struct emu_devctl). Rows
 * are indexed by enum emu_setting; `table_hash` (of the variable names in order) catches a
 * host and an executor of different builds. Only executor rows are filled. */
struct emu_settings_block {
    uint64_t magic;
    uint64_t table_hash;
    uint32_t rows;
    int32_t writer_pid; /* the host that started the executor */
    struct emu_setting_value v[EMU_SETTINGS_MAX_ROWS];
};
_Static_assert(EMU_SET_COUNT <= EMU_SETTINGS_MAX_ROWS, "grow EMU_SETTINGS_MAX_ROWS");
_Static_assert(sizeof(struct emu_setting_value) == 8 + EMU_SETTING_STR_MAX, "no padding");
_Static_assert(sizeof(struct emu_settings_block) ==
                   24 + EMU_SETTINGS_MAX_ROWS * sizeof(struct emu_setting_value),
               "the settings block layout is shared between processes");

/* ---- access ------------------------------------------------------------------------------ */

/* Typed values. A host (any process that has not adopted a block) parses the environment:
 * once per distinct value, with one warning naming variable, value and range for a bad
 * value, which then reads as the default. An executor returns what its host wrote. */
uint64_t emu_settings_u64(enum emu_setting id);
bool emu_settings_bool(enum emu_setting id);
/* STR: the text ("" when unset). ENUM: the canonical choice name. Valid until the variable
 * changes in this process's environment. */
const char *emu_settings_str(enum emu_setting id);
/* ENUM: the index of the choice. */
static inline uint32_t emu_settings_enum(enum emu_setting id)
{
    return (uint32_t)emu_settings_u64(id);
}
/* Whether the variable holds a valid non-default-by-absence value (set and not empty). */
bool emu_settings_is_set(enum emu_setting id);
const struct emu_setting_info *emu_settings_info(enum emu_setting id);

/* Host: fill `b` with this process's executor rows (before starting an executor). */
void emu_settings_export(struct emu_settings_block *b);
/* Executor: take every value from `b` (NULL or a foreign block: the defaults, with one
 * warning) and never read the environment again. */
void emu_settings_adopt(const struct emu_settings_block *b);
/* Host joining a running executor: warn once per process when `b` (what the first host
 * wrote) differs from this process's values; the executor keeps its own. `dev` names it. */
void emu_settings_check_joined(const struct emu_settings_block *b, uint32_t dev);

/* Parse `text` as row `id` into `out` without touching the process's values (tests).
 * Returns false (and leaves `out` at the default) for a bad value; no log line. */
bool emu_settings_parse(enum emu_setting id, const char *text, struct emu_setting_value *out);

#endif
