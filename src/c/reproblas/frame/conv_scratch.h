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

#endif /* RB_CONV_SCRATCH_H */
