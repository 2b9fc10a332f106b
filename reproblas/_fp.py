"""Bit-level reads of float scalars. A comparison or np.frexp in Python runs in the
caller's floating-point environment, where DAZ reads a subnormal as 0 (docs/contract.md §0 says
results must not depend on it): these read the bits instead."""
import struct
import sys

import numpy as np

_DOUBLE = struct.Struct("d")


def zero_bits(v):
    """Whether a Python float or NumPy float scalar is +0 or -0 (a subnormal beta under
    DAZ compared equal to 0)."""
    raw = _DOUBLE.pack(v) if type(v) is float else v.tobytes()
    bits = int.from_bytes(raw, sys.byteorder)  # native, as pack and tobytes write
    return bits & ~(1 << (8 * len(raw) - 1)) == 0  # all bits but the sign clear


def floor_log2(m):
    """floor(log2(m)) of a positive finite NumPy float scalar (np.frexp(m)[1] - 1)."""
    info = np.finfo(m.dtype)
    bits = int(m.view(np.uint32 if m.dtype.itemsize == 4 else np.uint64))
    biased = bits >> info.nmant
    if biased:
        return biased - (info.maxexp - 1)
    return bits.bit_length() - 1 - info.nmant - (info.maxexp - 2)  # subnormal
