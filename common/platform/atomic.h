/* atomic.h - <stdatomic.h> behind names that state the memory order.
 * Every acquire and release in hcemu has a comment naming its partner. */
#ifndef HCEMU_COMMON_ATOMIC_H
#define HCEMU_COMMON_ATOMIC_H

#include <stdatomic.h>
#include <stdint.h>

#define emu_load_relaxed(p) atomic_load_explicit((p), memory_order_relaxed)
#define emu_load_acquire(p) atomic_load_explicit((p), memory_order_acquire)
#define emu_store_relaxed(p, v) atomic_store_explicit((p), (v), memory_order_relaxed)
#define emu_store_release(p, v) atomic_store_explicit((p), (v), memory_order_release)
#define emu_exchange_acq_rel(p, v) atomic_exchange_explicit((p), (v), memory_order_acq_rel)
#define emu_fetch_add_relaxed(p, v) atomic_fetch_add_explicit((p), (v), memory_order_relaxed)
#define emu_fetch_add_release(p, v) atomic_fetch_add_explicit((p), (v), memory_order_release)
#define emu_fetch_add_acq_rel(p, v) atomic_fetch_add_explicit((p), (v), memory_order_acq_rel)
#define emu_fetch_sub_acq_rel(p, v) atomic_fetch_sub_explicit((p), (v), memory_order_acq_rel)
#define emu_fetch_or_acq_rel(p, v) atomic_fetch_or_explicit((p), (v), memory_order_acq_rel)
#define emu_cas_acq_rel(p, expected, desired)                                                  \
    atomic_compare_exchange_strong_explicit((p), (expected), (desired), memory_order_acq_rel,  \
                                            memory_order_acquire)
#define emu_fence_seq_cst() atomic_thread_fence(memory_order_seq_cst)

static inline void emu_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#endif
