/* task.c - memory of scheduler tasks (emu_task_create / emu_task_destroy).
 *
 * Kernels create millions of small tasks that scheduler workers retire, so tasks are recycled
 * instead of going through malloc each time. */
#include "task.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/platform/log.h"

/* Each OS thread keeps a small cache; caches trade whole chains of POOL_BATCH tasks with one
 * shared stack under `pool_lock`, so the lock is taken once per POOL_BATCH tasks. Creators
 * (kernel threads) and destroyers (workers) differ, which is why the shared stack exists. */
#define POOL_BATCH 64u
#define MAX_FREE_HOOKS 8u

struct task_cache {
    struct emu_task *head;
    uint32_t n;
};

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
/* Chains of POOL_BATCH tasks linked through `next`; the chains themselves are linked
 * through the first task's `priv`. */
static struct emu_task *pool_chains;
static _Thread_local struct task_cache cache;
/* Set before the workers start; the destroy path tests n_free_hooks only. */
static void (*free_hooks[MAX_FREE_HOOKS])(struct emu_task *t);
static uint32_t n_free_hooks;

emu_status emu_task_on_free(void (*fn)(struct emu_task *t))
{
    if (n_free_hooks == MAX_FREE_HOOKS) {
        EMU_LOG_ERR("emu_task_on_free: more than %u free hooks", MAX_FREE_HOOKS);
        return EMU_EINVAL;
    }
    free_hooks[n_free_hooks++] = fn;
    return EMU_OK;
}

struct emu_task *emu_task_create(void)
{
    if (cache.head == NULL) {
        pthread_mutex_lock(&pool_lock);
        struct emu_task *chain = pool_chains;
        if (chain != NULL)
            pool_chains = (struct emu_task *)chain->priv; /* next chain */
        pthread_mutex_unlock(&pool_lock);
        if (chain == NULL)
            return calloc(1, sizeof(struct emu_task));
        cache.head = chain;
        cache.n = POOL_BATCH;
    }
    struct emu_task *t = cache.head;
    cache.head = t->next;
    cache.n--;
    /* Recycled tasks were last written by the worker that retired them, on another core:
     * ask for the lines of the task after next now, for writing, so they are this core's
     * by the time it is built (the small-task profile's largest single cost). One task ahead
     * was too close when the two cores sit far apart (a line then takes longer to come than
     * a task takes to build), and a read prefetch left each line to be asked for again at
     * the first write. Its address is in the next task's first line, fetched a create ago. */
    if (cache.head != NULL && cache.head->next != NULL)
        emu_task_prefetch_write(cache.head->next);
    memset(t, 0, EMU_TASK_HOT_BYTES); /* note's first byte: an empty string */
    return t;
}

static void task_recycle(struct emu_task *t)
{
    t->next = cache.head;
    cache.head = t;
    if (++cache.n < 2 * POOL_BATCH)
        return;
    /* Hand a whole chain of POOL_BATCH to the shared stack; keep the rest. */
    struct emu_task *chain = cache.head, *last = chain;
    for (uint32_t i = 1; i < POOL_BATCH; i++)
        last = last->next;
    cache.head = last->next;
    cache.n -= POOL_BATCH;
    last->next = NULL;
    pthread_mutex_lock(&pool_lock);
    chain->priv = pool_chains;
    pool_chains = chain;
    pthread_mutex_unlock(&pool_lock);
}

void emu_task_destroy(struct emu_task *t)
{
    if (t == NULL)
        return;
    if (t->release != NULL)
        t->release(t);
    for (uint32_t i = 0; i < n_free_hooks; i++)
        free_hooks[i](t);
    task_recycle(t);
}

static void free_chain(struct emu_task *t)
{
    while (t != NULL) {
        struct emu_task *next = t->next;
        free(t);
        t = next;
    }
}

void emu_task_free_cache(void)
{
    free_chain(cache.head);
    cache.head = NULL;
    cache.n = 0;
}

void emu_task_free_pool(void)
{
    pthread_mutex_lock(&pool_lock);
    struct emu_task *chain = pool_chains;
    pool_chains = NULL;
    pthread_mutex_unlock(&pool_lock);
    while (chain != NULL) {
        struct emu_task *next = (struct emu_task *)chain->priv;
        free_chain(chain);
        chain = next;
    }
}
