"""The pairwise order's decomposition (docs/contract.md §2), for the Python side.

The pairwise sum of n terms is ``P(t_0..t_{n-1}) = P(t_0..t_{h-1}) + P(t_h..t_{n-1})``,
h the largest power of two strictly below n. Unrolled, that is one perfect tree per
block of n's binary expansion, the blocks aligned and largest first (n = 13 = 8 + 4 + 1:
terms 0-7, 8-11, 12), joined right to left: ``P = B_0 + (B_1 + (B_2 + ...))``. Every
aligned block of 2^m terms is a perfect tree, so a block may be cut into aligned
power-of-two pieces whose trees are joined by a perfect tree again.

The kernels find their own piece from (n, piece) and join the pieces (rb_pairwise_item
and rb_join in src/cuda/reproblas/level1.cuh); the host needs only the count of
pieces, and the blocks of a trsm carry (reproblas/_cuda.py).
"""


def blocks(n):
    """(start, size) of the blocks of n's binary expansion, largest first."""
    out, start = [], 0
    for b in range(n.bit_length() - 1, -1, -1):
        if n >> b & 1:
            out.append((start, 1 << b))
            start += 1 << b
    return out


def pieces(n, piece):
    """How many items the pairwise tree over n terms has when each block is cut into
    items of min(block, piece) terms (piece a power of two)."""
    return sum(max(1, size // piece) for _, size in blocks(n))
