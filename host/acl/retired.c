/* retired.c - handles and pointers released by aclFinalize (retired.h). Compared by value
 * only: nothing here is dereferenced. Object blocks handed over are never freed (they stay
 * reachable from `list`), so their addresses are never handed out again. */
#include "retired.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

struct retired {
    const void *p;
    enum emu_retired_kind kind;
    bool live;  /* may still be released once */
    bool owned; /* p is a block kept here */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct retired *list;
static size_t count, cap;

static void add(const void *p, enum emu_retired_kind k, bool owned)
{
    pthread_mutex_lock(&lock);
    if (count == cap) {
        size_t ncap = cap != 0 ? cap * 2 : 64;
        struct retired *n = realloc(list, ncap * sizeof(*n));
        if (n == NULL) {
            pthread_mutex_unlock(&lock);
            return; /* an owned block is then unreachable: lost, never reused */
        }
        list = n;
        cap = ncap;
    }
    list[count++] = (struct retired){.p = p, .kind = k, .live = true, .owned = owned};
    pthread_mutex_unlock(&lock);
}

void emu_retired_add(const void *p, enum emu_retired_kind k)
{
    add(p, k, false);
}

void emu_retired_keep(void *p, enum emu_retired_kind k)
{
    add(p, k, true);
}

bool emu_retired_take(const void *p, enum emu_retired_kind k)
{
    bool found = false;

    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < count && !found; i++)
        if (list[i].live && list[i].p == p && list[i].kind == k) {
            list[i].live = false;
            found = true;
        }
    pthread_mutex_unlock(&lock);
    return found;
}

void emu_retired_clear(void)
{
    size_t kept = 0;

    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < count; i++)
        if (list[i].owned) {
            list[kept] = list[i];
            list[kept++].live = false;
        }
    count = kept;
    pthread_mutex_unlock(&lock);
}
