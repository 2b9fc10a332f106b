/* The one work partitioner of the drivers: how many parts a call is cut into
 * and which share each part owns.
 *
 * Parts only decide who computes what (docs/contract.md §0): every driver cuts
 * at boundaries that never change an operation, so any count gives the same
 * bits. The count weighs the work against the cost of starting a thread.
 */
#ifndef RB_PARTITION_H
#define RB_PARTITION_H

#include <stdint.h>

/* The most parts of one call: rb_parallel's limit, and the size of the
 * drivers' per-part arrays (statuses, partial results). */
enum { RB_MAX_PARTS = 256 };

/* Parts for `work` (any measure: elements, multiply-adds) at one part per
 * `min_work` of it, at most `threads`, `units` (the indivisible pieces there
 * are) and RB_MAX_PARTS; at least 1. */
static inline int rb_part_count(int64_t work, int64_t min_work, int threads, int64_t units) {
  int64_t parts = work / min_work;
  if (parts > threads) parts = threads;
  if (parts > units) parts = units;
  if (parts > RB_MAX_PARTS) parts = RB_MAX_PARTS;
  return parts < 1 ? 1 : (int)parts;
}

/* Part `part`'s share [lo, hi) of [0, n) among `parts`, cut at multiples of
 * `align` (the last share ends at n): the ceil(n / align) units are dealt out
 * in order, the shares differing by at most one unit. */
typedef struct {
  int64_t lo, hi;
} rb_share;

static inline rb_share rb_part_share(int64_t n, int64_t align, int part, int parts) {
  const int64_t units = (n + align - 1) / align;
  int64_t lo = units * part / parts * align, hi = units * (part + 1) / parts * align;
  return (rb_share){lo < n ? lo : n, hi < n ? hi : n};
}

#endif /* RB_PARTITION_H */
