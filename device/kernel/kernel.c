/* kernel.c - kernel images and launches on the emulated AICPU.
 *
 * An image is dlopen'ed once per executor, so each device has its own copy of the kernel's
 * globals. A launch of `blocks` blocks hands one job per block to the AICPU worker pool;
 * the launch's task stays parked until the last block's entry returns. */
#include "fault.h"
#include "kernel.h"

#include <dlfcn.h>
#include <ffi.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/platform/atomic.h"
#include "common/platform/log.h"
#include "common/platform/os.h"
#include "common/platform/spin.h"
#include "device/exec.h"
#include "loader/deps.h"

#define MAX_IMAGES 256u
#define MAX_FUNCS 4096u

struct image {
    char path[EMU_PATH_MAX];
    void *dl;
    uint64_t base, end; /* text range for fault attribution */
    uint32_t refs;
    bool own; /* hcemu's own collectives image (own_image) */
};

struct func {
    uint32_t image;
    void *entry;
    bool own;
    char name[128];
};

/* One block of a launch to run, on a pool thread or inline by the worker that took it. */
struct job {
    struct job *next;
    struct launch *l;
    uint32_t block;
    bool inside; /* the launch's own `last`, not allocated */
};

/* One launch, shared by its task and its block jobs; freed by the last of them. */
struct launch {
    _Atomic uint32_t refs;
    _Atomic uint32_t remaining;
    _Atomic uint32_t failed_ret; /* first non-zero return value */
    _Atomic uint32_t failed;
    uint32_t func;
    void *entry;      /* copied from funcs[] under img_lock: the table grows concurrently */
    const char *name; /* points into funcs[], whose entries never change once added */
    bool own;         /* funcs[].own */
    uint32_t copy_mode;
    uint32_t blocks;
    uint32_t origin;
    uint64_t args;
    uint64_t deadline_ns;
    uint64_t seq;
    struct job last; /* the job of the last block: one allocation a launch, not two */
};

void (*emu_kernel_exit_hook)(void);

static pthread_mutex_t img_lock = PTHREAD_MUTEX_INITIALIZER;
static struct image images[MAX_IMAGES];
/* 1 + the highest slot ever used (under img_lock; slots are taken lowest first): a load
 * scans only those. The whole table is 72 KiB of zero pages, and reading all of it at the
 * first load faulted in 18 of them in every executor. */
static uint32_t images_hwm = 1;
static struct func funcs[MAX_FUNCS];
static uint32_t n_funcs;

/* Whether `path` is hcemu's own collectives image, the one installed beside this executor
 * (bin/hcemu-device, lib/libhcemu_collectives.so). Its kernel never forks and never closes
 * a descriptor, so its returns skip the two guards every other kernel's return pays for
 * (run_block): a getpid and an fstat per watched descriptor were 2-4 us of each built-in
 * collective call's kernel launch -> first task interval here (`bench/launch.sh`). */
static dev_t own_dev;
static ino_t own_ino;
static pthread_once_t own_once = PTHREAD_ONCE_INIT;

static void find_own_image(void)
{
    char exe[EMU_PATH_MAX], lib[EMU_PATH_MAX + 64];
    struct stat st;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash == NULL)
        return;
    *slash = '\0';
    snprintf(lib, sizeof(lib), "%s/../lib/libhcemu_collectives.so", exe);
    if (stat(lib, &st) == 0) {
        own_dev = st.st_dev;
        own_ino = st.st_ino;
    }
}

static bool own_image(const char *path)
{
    struct stat st;

    pthread_once(&own_once, find_own_image);
    return own_ino != 0 && stat(path, &st) == 0 && st.st_dev == own_dev && st.st_ino == own_ino;
}

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cv = PTHREAD_COND_INITIALIZER;
static struct job *jobs_head, *jobs_tail;
static uint32_t idle_threads;

static _Thread_local struct emu_kernel_ctx cur_ctx;
static _Thread_local bool in_kernel;

const struct emu_kernel_ctx *emu_kernel_current(void)
{
    return in_kernel ? &cur_ctx : NULL;
}

bool emu_kernel_where(const char **kernel, uint64_t *stack_hi)
{
    if (!in_kernel)
        return false;
    *kernel = cur_ctx.kernel;
    *stack_hi = cur_ctx.stack_hi;
    return true;
}

struct range_probe {
    void *sym;
    uint64_t base, end;
};

static int probe_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    struct range_probe *p = arg;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uint64_t lo = info->dlpi_addr + ph->p_vaddr;
        uint64_t hi = lo + ph->p_memsz;
        if ((uint64_t)(uintptr_t)p->sym >= lo && (uint64_t)(uintptr_t)p->sym < hi) {
            p->base = info->dlpi_addr;
            p->end = 0;
            for (int j = 0; j < info->dlpi_phnum; j++) {
                const ElfW(Phdr) *q = &info->dlpi_phdr[j];
                if (q->p_type == PT_LOAD && info->dlpi_addr + q->p_vaddr + q->p_memsz > p->end)
                    p->end = info->dlpi_addr + q->p_vaddr + q->p_memsz;
            }
            return 1;
        }
    }
    return 0;
}

emu_status emu_kernel_load(const char *path, uint32_t *id, char *why, size_t why_len)
{
    emu_status st = EMU_OK;

    pthread_mutex_lock(&img_lock);
    for (uint32_t i = 1; i < images_hwm; i++) {
        if (images[i].dl != NULL && strcmp(images[i].path, path) == 0) {
            images[i].refs++;
            *id = i;
            goto out;
        }
    }
    uint32_t slot = 0;
    for (uint32_t i = 1; i < images_hwm && slot == 0; i++)
        if (images[i].dl == NULL)
            slot = i;
    if (slot == 0 && images_hwm < MAX_IMAGES)
        slot = images_hwm;
    if (slot == 0) {
        snprintf(why, why_len, "too many kernel images loaded (%u)", MAX_IMAGES - 1);
        st = EMU_ENOMEM;
        goto out;
    }
    /* Libraries shipped next to the image first: the dynamic linker would not look there. */
    void *deps[EMU_DEPS_MAX];
    size_t n_deps = 0;
    if ((st = emu_deps_preload(path, deps, EMU_DEPS_MAX, &n_deps, why, why_len)) != EMU_OK)
        goto out;
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL) {
        snprintf(why, why_len, "dlopen %s: %s", path, dlerror());
        st = EMU_EINVAL;
        goto out;
    }
    struct image *im = &images[slot];
    snprintf(im->path, sizeof(im->path), "%s", path);
    im->own = own_image(path);
    struct link_map *lm = NULL;
    if (dlinfo(dl, RTLD_DI_LINKMAP, &lm) == 0 && lm != NULL) {
        struct range_probe p = {.sym = (void *)lm->l_ld};
        dl_iterate_phdr(probe_cb, &p);
        im->base = p.base;
        im->end = p.end;
    }
    im->refs = 1;
    /* Publish last: the fault handler reads images[] without the lock. */
    __atomic_store_n(&im->dl, dl, __ATOMIC_RELEASE);
    if (slot == images_hwm)
        __atomic_store_n(&images_hwm, slot + 1, __ATOMIC_RELEASE);
    *id = slot;
out:
    pthread_mutex_unlock(&img_lock);
    return st;
}

emu_status emu_kernel_resolve(uint32_t image, const char *symbol, uint32_t *func)
{
    emu_status st = EMU_OK;

    pthread_mutex_lock(&img_lock);
    if (image == 0 || image >= MAX_IMAGES || images[image].dl == NULL) {
        st = EMU_EHANDLE;
        goto out;
    }
    for (uint32_t i = 0; i < n_funcs; i++) {
        if (funcs[i].image == image && strcmp(funcs[i].name, symbol) == 0) {
            *func = i;
            goto out;
        }
    }
    void *entry = dlsym(images[image].dl, symbol);
    if (entry == NULL || n_funcs >= MAX_FUNCS) {
        st = EMU_EKERNEL_LOOKUP;
        goto out;
    }
    funcs[n_funcs].image = image;
    funcs[n_funcs].entry = entry;
    funcs[n_funcs].own = images[image].own;
    snprintf(funcs[n_funcs].name, sizeof(funcs[n_funcs].name), "%s", symbol);
    *func = n_funcs++;
out:
    pthread_mutex_unlock(&img_lock);
    return st;
}

emu_status emu_kernel_unload(uint32_t image)
{
    emu_status st = EMU_OK;

    pthread_mutex_lock(&img_lock);
    if (image == 0 || image >= MAX_IMAGES || images[image].dl == NULL) {
        st = EMU_EHANDLE;
    } else if (--images[image].refs == 0) {
        /* Keep the mapping: tasks of earlier launches may still sit in queues with call
         * sites inside the image, and dlclose of C++ images is fragile. The slot stays. */
        images[image].refs = 1;
    }
    pthread_mutex_unlock(&img_lock);
    return st;
}

bool emu_kernel_image_of(uint64_t pc, uint64_t *base, const char **path)
{
    uint32_t hwm = __atomic_load_n(&images_hwm, __ATOMIC_ACQUIRE);

    for (uint32_t i = 1; i < hwm; i++) {
        if (__atomic_load_n(&images[i].dl, __ATOMIC_ACQUIRE) == NULL)
            continue;
        if (pc >= images[i].base && pc < images[i].end) {
            *base = images[i].base;
            *path = images[i].path;
            return true;
        }
    }
    return false;
}

/* A kernel may fork(). The child is a copy of one pool thread with none of the executor's
 * other threads: it must never run executor code, and must not outlive the executor. */
static pid_t exec_pid;
static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void forked_child_cb(void)
{
    if (getpid() == exec_pid || exec_pid == 0)
        return;
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != exec_pid) /* the executor ended before the prctl took effect */
        _exit(0);
}

static void watch_forks(void)
{
    exec_pid = getpid();
    pthread_atfork(NULL, NULL, forked_child_cb);
}

static void launch_put(struct launch *l)
{
    if (emu_fetch_sub_acq_rel(&l->refs, 1) == 1)
        free(l);
}

/* Every entry has the same signature, uint32_t (void *): its call interface is prepared once. */
static pthread_once_t cif_once = PTHREAD_ONCE_INIT;
static ffi_type *entry_argt[1] = {&ffi_type_pointer}; /* libffi keeps a pointer to it */
static ffi_cif entry_cif;
static bool cif_ok;

static void prep_cif(void)
{
    cif_ok = ffi_prep_cif(&entry_cif, FFI_DEFAULT_ABI, 1, &ffi_type_uint32, entry_argt) == FFI_OK;
}

static void job_done(struct job *j)
{
    if (!j->inside)
        free(j);
}

/* `counted`: the calling thread already counts as busy in the spin budget (a scheduler
 * worker running the block inline). */
static void run_block(struct launch *l, uint32_t block, bool counted)
{
    void *args = (void *)(uintptr_t)l->args;
    void *argv[1] = {&args};
    ffi_arg ret = 0;

    cur_ctx.origin = l->origin;
    cur_ctx.block = block;
    cur_ctx.kernel = l->name;
    cur_ctx.launch_seq = l->seq;
    cur_ctx.own = l->own;
    cur_ctx.copy_mode = l->copy_mode;
    cur_ctx.stack_hi = (uint64_t)(uintptr_t)__builtin_frame_address(0);
    in_kernel = true;
    if (!counted)
        emu_spin_busy(1);
    pthread_once(&cif_once, prep_cif);
    if (cif_ok)
        ffi_call(&entry_cif, FFI_FN(l->entry), &ret, argv);
    else
        ret = UINT32_MAX;
    if (!l->own && getpid() != exec_pid) /* a child the kernel forked returns here: end it */
        _exit((int)(uint8_t)ret);
    if (!l->own)
        emu_fault_check_fds(l->name);
    if (!counted)
        emu_spin_busy(-1);
    if (emu_kernel_exit_hook != NULL)
        emu_kernel_exit_hook();
    in_kernel = false;
    if ((uint32_t)ret != 0) {
        uint32_t zero = 0;
        emu_cas_acq_rel(&l->failed_ret, &zero, (uint32_t)ret);
        emu_store_release(&l->failed, 1);
    }
    /* Pairs with the acquire load in emu_kernel_task_run(): the kernel's submissions and
     * the return value are visible once `remaining` reaches zero. */
    if (emu_fetch_sub_acq_rel(&l->remaining, 1) == 1) {
        if (counted) /* run inline: the worker retires the launch itself, next */
            emu_sched_kick_self();
        else
            emu_sched_kick();
    }
    launch_put(l);
}

static void *pool_main(void *arg)
{
    (void)arg;
    pthread_once(&fork_once, watch_forks);
    emu_fault_thread_init();
    pthread_mutex_lock(&pool_lock);
    for (;;) {
        while (jobs_head == NULL) {
            idle_threads++;
            pthread_cond_wait(&pool_cv, &pool_lock);
            idle_threads--;
        }
        struct job *j = jobs_head;
        jobs_head = j->next;
        if (jobs_head == NULL)
            jobs_tail = NULL;
        pthread_mutex_unlock(&pool_lock);
        /* A job inside its launch goes with the launch, which run_block may free. */
        struct job copy = *j;
        job_done(j);
        run_block(copy.l, copy.block, false);
        pthread_mutex_lock(&pool_lock);
    }
    return NULL;
}

/* A block run by the scheduler worker that took the launch (emu_sched_defer): the kernel
 * starts without waking a pool thread. The worker gets what a pool thread has. */
static void run_inline(void *arg)
{
    static _Thread_local bool ready;
    struct job *j = arg;

    if (!ready) {
        ready = true;
        pthread_once(&fork_once, watch_forks);
        emu_fault_thread_init();
    }
    struct job copy = *j;
    job_done(j);
    run_block(copy.l, copy.block, true);
}

static emu_status pool_post(struct launch *l, uint32_t block)
{
    bool last = block + 1 == l->blocks;
    struct job *j = last ? &l->last : calloc(1, sizeof(*j));
    emu_status st = EMU_OK;

    if (j == NULL)
        return EMU_ENOMEM;
    j->l = l;
    j->block = block;
    j->inside = last;
    /* The last block runs here when the scheduler lets this worker take it. */
    if (block + 1 == l->blocks && emu_sched_defer(run_inline, j))
        return EMU_OK;
    pthread_mutex_lock(&pool_lock);
    if (jobs_tail == NULL)
        jobs_head = j;
    else
        jobs_tail->next = j;
    jobs_tail = j;
    if (idle_threads == 0) {
        /* Blocks of one launch run concurrently, so never queue behind a busy thread. */
        pthread_t th;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&a, 8u << 20);
        if (pthread_create(&th, &a, pool_main, NULL) != 0)
            st = EMU_ESYSCALL;
        pthread_attr_destroy(&a);
    } else {
        pthread_cond_signal(&pool_cv);
    }
    pthread_mutex_unlock(&pool_lock);
    return st;
}

static enum emu_run_result poll_launch(struct emu_task *t, struct launch *l)
{
    if (emu_load_acquire(&l->remaining) != 0) {
        if (emu_os_now_ns() >= l->deadline_ns)
            emu_fault_device_failed(l->name, 1);
        return EMU_RUN_PARK;
    }
    if (emu_load_acquire(&l->failed)) {
        snprintf(t->note, sizeof(t->note), "kernel %s returned %u (non-zero)",
                 l->name, emu_load_acquire(&l->failed_ret));
        t->status = EMU_EKERNEL_FAIL;
        return EMU_RUN_FAIL;
    }
    return EMU_RUN_DONE;
}

enum emu_run_result emu_kernel_task_run(struct emu_task *t)
{
    const struct emu_wire_task *w = &t->u.wire;
    struct launch *l = t->priv;

    if (l != NULL)
        return poll_launch(t, l);
    pthread_mutex_lock(&img_lock);
    bool known = w->u.kernel.func < n_funcs;
    void *entry = known ? funcs[w->u.kernel.func].entry : NULL;
    const char *name = known ? funcs[w->u.kernel.func].name : NULL;
    bool own = known && funcs[w->u.kernel.func].own;
    pthread_mutex_unlock(&img_lock);
    if (!known || w->u.kernel.blocks == 0) {
        t->status = EMU_EHANDLE;
        return EMU_RUN_FAIL;
    }
    l = calloc(1, sizeof(*l));
    if (l == NULL) {
        t->status = EMU_ENOMEM;
        return EMU_RUN_FAIL;
    }
    l->func = w->u.kernel.func;
    l->entry = entry;
    l->name = name;
    l->own = own;
    l->blocks = w->u.kernel.blocks;
    l->copy_mode = w->u.kernel.copy_mode;
    l->args = w->u.kernel.args;
    l->origin = t->origin;
    l->seq = t->seq;
    l->deadline_ns = w->u.kernel.timeout_us == 0
                         ? UINT64_MAX
                         : emu_os_now_ns() + w->u.kernel.timeout_us * 1000ull;
    atomic_store(&l->remaining, l->blocks);
    atomic_store(&l->refs, l->blocks + 1);
    t->priv = l;
    /* A host that sees the executor die without a fault record names the kernel from here. */
    char *kname = emu_exec_ctl()->streams[t->stream].kernel;
    size_t klen = sizeof(emu_exec_ctl()->streams[t->stream].kernel);
    strncpy(kname, name, klen - 1); /* cut a long name: the report needs only its start */
    kname[klen - 1] = '\0';
    t->park = EMU_PARK_KERNEL;
    t->deadline_ns = l->deadline_ns;
    t->timeout_status = EMU_EKERNEL_TIMEOUT;
    for (uint32_t b = 0; b < l->blocks; b++) {
        if (pool_post(l, b) != EMU_OK) {
            /* Count the unposted blocks as returned so the launch can finish. */
            uint32_t left = l->blocks - b;
            emu_fetch_sub_acq_rel(&l->refs, left);
            emu_store_release(&l->failed, 1);
            emu_fetch_sub_acq_rel(&l->remaining, left);
            break;
        }
    }
    return poll_launch(t, l);
}

void emu_kernel_task_release(struct emu_task *t)
{
    struct launch *l = t->priv;

    if ((t->u.wire.flags & EMU_WIRE_FREE_ARGS) && t->u.wire.u.kernel.args != 0)
        emu_devmem_free_internal(t->u.wire.u.kernel.args);
    if (l != NULL)
        launch_put(l);
}

const char *emu_kernel_task_name(const struct emu_task *t)
{
    const struct launch *l = t->priv;

    return l != NULL ? l->name : NULL;
}
