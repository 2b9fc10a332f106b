/* Per-thread buffers of the convolution drivers (conv_gather.c), reused by the
 * thread's next calls: a fresh multi-megabyte malloc per call is mapped again
 * and costs its page faults every time. Separate slots for the buffers that
 * are alive together; the gemm frame has its own (rb_l3_scratch). */
#ifndef RB_CONV_SCRATCH_H
#define RB_CONV_SCRATCH_H

#include <stddef.h>

enum {
  RB_CONV_SCRATCH_CALL, /* the driver's operands (gathered terms, tap-major grad_weight) */
  RB_CONV_SCRATCH_SLOTS
};

/* A 64-byte aligned buffer of at least `bytes` in the calling thread's slot
 * (its old contents are not kept), NULL when memory runs out. */
void *rb_conv_scratch(int slot, size_t bytes);
/* Frees the slot's buffer if it is larger than the buffers worth keeping. */
void rb_conv_scratch_done(int slot);

/* The implicit-gemm drivers' packed operand and workspaces for one call, 64-byte aligned:
 * the calling thread's gemm scratch (rb_l3_scratch) up to RB_CONV_BIG_KEEP bytes, else a new
 * allocation, also returned in *owned (NULL otherwise) for the caller to free after the
 * call. NULL when memory runs out. */
#define RB_CONV_BIG_KEEP ((size_t)64 << 20)
void *rb_conv_big_scratch(size_t bytes, void **owned);

/* Per-thread cache of the drivers' planned tables (a few entries, least
 * recently used out), keyed by the bytes of `key`: the same layer is planned
 * at every call of a training loop, and for small layers the tables cost as
 * much as a tenth of the call. rb_conv_plan_find: the entry's data (valid
 * until the thread's next rb_conv_plan_new), or NULL. rb_conv_plan_new: a new
 * entry of `bytes` (64-byte aligned) for the key, NULL when it is larger than
 * RB_CONV_PLAN_MAX_BYTES or memory runs out (then plan without the cache);
 * the caller fills it before its next find. */
#define RB_CONV_PLAN_MAX_BYTES ((size_t)1 << 20)
void *rb_conv_plan_find(const void *key, size_t key_bytes);
void *rb_conv_plan_new(const void *key, size_t key_bytes, size_t bytes);

#endif /* RB_CONV_SCRATCH_H */
