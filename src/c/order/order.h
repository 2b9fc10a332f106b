/* The summation orders of docs/contract.md §2, stated once for every kernel:
 * the CPU kernels (C11, instantiated per element type and ISA through macros),
 * the CUDA kernels (nvcc, NVRTC) and their host emulation (C++).
 *
 * The rounded addition is a parameter, ADD(a, b) (RB_PLUS for scalars, vadd,
 * vpairadd, ...), so one statement of an order serves every lane width; only
 * ADD rounds. Where an addition is a loop over a tile, the caller writes the
 * addition and takes the walk (the level or block indices) from here. Index
 * arithmetic is plain inline functions.
 *
 * Vocabulary: the pairwise sum over n terms is B1 ⊕ (B2 ⊕ (... ⊕ Bk)), with
 * B1, B2, ... the perfect trees over the aligned blocks of n's binary
 * expansion (2^a1 + 2^a2 + ..., a1 > a2 > ...), largest (first) block first:
 * each h of the contract's definition is the next block. Bit b of n is the
 * block of 2^b terms. */
#ifndef RB_ORDER_H
#define RB_ORDER_H

#include <stdint.h>

/* RB_ORDER_FN: a helper for host and device; RB_ORDER_FN_INLINE: one that is
 * always inlined (a single instruction, as the kernels wrote it in place). */
#if defined(__CUDACC__)
#define RB_ORDER_FN static __host__ __device__ inline
#define RB_ORDER_FN_INLINE static __host__ __device__ __forceinline__
#else
#define RB_ORDER_FN static inline
#define RB_ORDER_FN_INLINE static inline __attribute__((always_inline))
#endif

/* The scalar addition, for ADD. */
#define RB_PLUS(a, b) ((a) + (b))

/* ---- sequential (docs/contract.md §2): S_0 = t_0, S_k = S_(k-1) ⊕ t_k, or
 * fma(x_k, y_k, S_(k-1)) for product terms ----------------------------------
 * Every chain starts from -0 and takes t_0 as an ordinary step: t ⊕ (-0) = t
 * for every t, +0 included, and fma(a, b, -0) is the rounded product a ⊗ b,
 * signed zeros included, so the first step gives S_0 = t_0 exactly (a start
 * from +0 would turn a -0 first term into +0). */
#define RB_CHAIN_START(T) ((T)-0.0)

/* ---- pairwise (docs/contract.md §2) -------------------------------------- */

/* The binary counter over the term index i. Level l holds the pending sum of
 * the last complete aligned block of 2^l terms. Term i carries through the
 * levels of its trailing one bits: at each, the completed left block joins
 * the right block that just ended, stack[l] ⊕ v, which is one of the tree's
 * additions (P(left half) ⊕ P(right half)); the result goes to the level
 * where the carries stop. After term i, v is the perfect tree over the
 * aligned block that ends at i (all i + 1 terms when i + 1 is a power of
 * two). RB_COUNTER_CARRIES(l, i) is the carry loop, for callers whose
 * addition is a loop over a tile: it runs its body for l = 0, 1, ... while
 * bit l of i is 1 and leaves l at the level where v goes. */
#define RB_COUNTER_CARRIES(l, i) for ((l) = 0; ((i) >> (l)) & 1; ++(l))

/* Pushes term v (index i, from 0) into the counter stack. */
#define RB_COUNTER_PUSH(stack, i, v, ADD)                                                       \
  do {                                                                                          \
    int rb_l_;                                                                                  \
    RB_COUNTER_CARRIES(rb_l_, i) (v) = ADD((stack)[rb_l_], (v));                                \
    (stack)[rb_l_] = (v);                                                                       \
  } while (0)

/* The carries of term i: its trailing one bits (the level its block goes to). */
RB_ORDER_FN_INLINE int rb_counter_carries(int64_t i) {
#if defined(__CUDA_ARCH__)
  return __ffsll(~(long long)i) - 1;
#else
  return __builtin_ctzll(~(unsigned long long)i);
#endif
}

/* The levels a counter over n terms uses: the bit length of n (0 for n = 0). */
RB_ORDER_FN int rb_bit_length(int64_t n) {
  int b = 0;
  while (n >> b) ++b;
  return b;
}

/* The blocks of n's binary expansion below 2^bits (n < 2^bits for all of
 * them), as bit indices b (block of 2^b terms; an int the loop declares), for
 * the statement that follows (not to be followed by an else: the walk ends
 * in an if):
 *  - smallest first: the join order, right to left (acc = B_b ⊕ acc); these
 *    are also the levels of a counter over n terms that hold its blocks
 *    (bits: rb_bit_length(n), or more);
 *  - largest first: memory order, B1 first (start += 2^b per block). */
#define RB_BLOCKS_SMALLEST_FIRST(b, n, bits)                                                    \
  for (int b = 0; (b) < (bits); ++(b))                                                          \
    if (!((n) & ((int64_t)1 << (b)))) continue; else
#define RB_BLOCKS_LARGEST_FIRST(b, n, bits)                                                     \
  for (int b = (bits) - 1; (b) >= 0; --(b))                                                     \
    if (((n) >> (b)) & 1)

/* The smallest-first walk by block sizes (an int64_t the loop declares): the
 * blocks of n below `limit` (a power of two). */
#define RB_BLOCK_SIZES_SMALLEST_FIRST(size, n, limit)                                           \
  for (int64_t size = 1; (size) < (limit); (size) *= 2)                                         \
    if ((n) & (size))

/* The first term of the block of `size` terms of n's binary expansion (that
 * bit set in n): the blocks before it are the bits of n above it. */
RB_ORDER_FN int64_t rb_block_first(int64_t n, int64_t size) {
  return (int64_t)((uint64_t)n & ~(((uint64_t)size << 1) - 1));
}

/* The sum of n >= 1 terms pushed into a counter (RB_COUNTER_PUSH, indices
 * 0 .. n - 1): its blocks, at the levels of n's 1 bits, joined right to left,
 * B1 ⊕ (B2 ⊕ (... ⊕ Bk)): the lowest level first. n = 0 has no term: the
 * caller gives +0 (docs/contract.md §2). */
#define RB_COUNTER_JOIN(acc, stack, n, ADD)                                                     \
  do {                                                                                          \
    int rb_l_ = 0;                                                                              \
    while (!(((n) >> rb_l_) & 1)) ++rb_l_;                                                      \
    (acc) = (stack)[rb_l_];                                                                     \
    for (++rb_l_; ((n) >> rb_l_) != 0; ++rb_l_)                                                 \
      if (((n) >> rb_l_) & 1) (acc) = ADD((stack)[rb_l_], (acc));                               \
  } while (0)

/* Blocks held in an array largest first (index 0 = B1), i = k - 1 down to 0
 * (an int the loop declares): the join order, for a body acc = B_i ⊕ acc.
 * RB_JOIN_BLOCKS is the join of blk[0 .. k), k >= 1: acc = blk[k - 1], then
 * the rest. */
#define RB_BLOCKS_RIGHT_TO_LEFT(i, k) for (int i = (k) - 1; (i) >= 0; --(i))
#define RB_JOIN_BLOCKS(acc, blk, k, ADD)                                                        \
  do {                                                                                          \
    (acc) = (blk)[(k) - 1];                                                                     \
    RB_BLOCKS_RIGHT_TO_LEFT(rb_i_, (k) - 1) (acc) = ADD((blk)[rb_i_], (acc));                   \
  } while (0)

/* The largest power of two <= v (v >= 1): an aligned block size. */
RB_ORDER_FN int64_t rb_pow2_floor(int64_t v) {
  int64_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

/* The contract's split of n >= 2 terms, P(first h) ⊕ P(remaining n - h): h is
 * the largest power of two strictly below n. */
RB_ORDER_FN int64_t rb_pairwise_split(int64_t n) { return rb_pow2_floor(n - 1); }

/* The perfect tree over v[0 .. count), count a power of two, in place (v[0]
 * gets the root): level by level, v[i] = v[i] ⊕ v[i + w] joins the aligned
 * sibling blocks of w values each. I: the index type. The _UNROLLED form
 * asks GCC to unroll both loops N times (CPU kernels with a constant count). */
#define RB_TREE_IN_PLACE(I, v, count, ADD)                                                      \
  for (I rb_w_ = 1; rb_w_ < (count); rb_w_ *= 2)                                                \
    for (I rb_i_ = 0; rb_i_ < (count); rb_i_ += 2 * rb_w_)                                      \
  (v)[rb_i_] = ADD((v)[rb_i_], (v)[rb_i_ + rb_w_])
#define RB_PRAGMA_(x) _Pragma(#x)
#define RB_TREE_IN_PLACE_UNROLLED(I, v, count, ADD, N)                                          \
  RB_PRAGMA_(GCC unroll N)                                                                      \
  for (I rb_w_ = 1; rb_w_ < (count); rb_w_ *= 2)                                                \
    RB_PRAGMA_(GCC unroll N)                                                                    \
  for (I rb_i_ = 0; rb_i_ < (count); rb_i_ += 2 * rb_w_)                                        \
  (v)[rb_i_] = ADD((v)[rb_i_], (v)[rb_i_ + rb_w_])

/* Cutting a pairwise sum into work items (threads, GPU blocks) that are
 * subtrees: each block of n's binary expansion (largest first) is cut into
 * aligned items of min(block, piece) terms (piece a power of two), so that
 * the items of a block are joined by a perfect tree (a power of two of them)
 * and the blocks right to left. The items in a block of `size` terms: */
RB_ORDER_FN int64_t rb_block_items(int64_t size, int64_t piece) {
  return size < piece ? 1 : size / piece;
}

/* The terms of each of those items. */
RB_ORDER_FN int64_t rb_item_terms(int64_t size, int64_t piece) {
  return size > piece ? piece : size;
}

/* ---- the scans (docs/contract.md §5.2) -----------------------------------
 * cumprod's start, the exact identity of the product as -0 is of the sum
 * (1 * t = t, signed zeros included), and its operation, for OP. */
#define RB_PRODUCT_START(T) ((T)1)
#define RB_TIMES(a, b) ((a) * (b))

/* The pairwise scan: prefix k is s_(f-1) OP B_k, with B_k the perfect tree
 * over the aligned block t_f .. t_k of 2^b terms, 2^b the lowest 1 bit of
 * k + 1; that block is exactly the one a binary counter completes with term
 * k (RB_COUNTER_PUSH leaves its tree in v). f, its first term, is k + 1 with
 * that bit cleared; 0: no prefix before it, the scan's start joins it. */
RB_ORDER_FN_INLINE int64_t rb_scan_block_first(int64_t k) { return (k + 1) & k; }

/* One step of the pairwise scan over out[0 ..]: pushes term v (index i) into
 * the counter stack, then out[i] = (out[f - 1], or start when f = 0) OP v.
 * Also the scan of an aligned block that starts after a known prefix: start
 * is that prefix, i the index inside the block (every prefix but the block's
 * last, which the counter over the blocks gives). */
#define RB_SCAN_PUSH(stack, out, i, v, start, OP)                                               \
  do {                                                                                          \
    RB_COUNTER_PUSH(stack, i, v, OP);                                                           \
    const int64_t rb_f_ = rb_scan_block_first(i);                                               \
    (out)[i] = OP(rb_f_ ? (out)[rb_f_ - 1] : (start), (v));                                     \
  } while (0)

#endif /* RB_ORDER_H */
