"""The backends and how a call picks one: by where its arrays live.

A backend computes; it never checks. The public routines (_level1.py, _level23.py,
_solve.py, _conv.py) validate their arguments once (_validate.py), with the
backend's array module and conversion, then call one of these methods:

- ``xp``: the array module of its arrays; ``scalars``: whether a 0-d matmul result
  becomes a NumPy scalar; ``as_array(x, name, routine)``: x as its array (or TypeError).
- ``reduce(routine, order, x, y)``, ``iamax(x)``, ``axpy(alpha, x, y)``,
  ``scal(alpha, x)``: level 1 (axpy/scal in place).
- ``gemm(order, alpha, a, trans_a, b, trans_b, beta, c, shape, overwrite, reads_c, uplo=0)``
  (uplo _validate.LOWER / UPPER: only that triangle of the output is written),
  ``gemv(order, alpha, a, trans, x, beta, y, m, overwrite, reads_y)``,
  ``ger(alpha, x, y, a, shape, overwrite)``, ``matmul(order, a2, b2, batch, (m, k, n))``.
- ``trsm(order, right, lower, trans, unit, alpha, a, b, overwrite)`` (trsv: b 1-D,
  alpha None).
- ``conv2d(order, x, w, b, groups, geometry, shape)``, ``conv2d_grad_input(order, gy, w,
  groups, geometry, shape)``, ``conv2d_grad_weight(order, x, gy, groups, geometry, shape)``,
  ``conv2d_grad_bias(order, gy)``.

``order`` is the core's code (_validate.ORDERS); alpha and beta are 1-element NumPy
arrays of the operands' dtype. An output operand given with overwrite is updated in
place (any layout) and returned; otherwise a new array is.
"""
import numpy as np
from repro_runtime import cuda as rt_cuda

from . import _cpu, _cuda

CPU = _cpu.BACKEND


def select(*arrays):
    """The CPU backend, or the CUDA backend when the operands live on a GPU (CuPy
    arrays, __cuda_array_interface__ or DLPack CUDA tensors); None operands are absent."""
    if all(type(a) is np.ndarray or a is None for a in arrays):
        return CPU  # the common case, kept cheap for small calls
    on_gpu = [rt_cuda.is_device_array(a) for a in arrays if a is not None]
    if not any(on_gpu):
        return CPU
    if not all(on_gpu):
        raise TypeError("reproblas: some operands are on a GPU and some in host memory; move "
                        "them to one place first (cupy.asarray(x) or cupy.asnumpy(x))")
    return _cuda.CudaBackend(rt_cuda.device())
