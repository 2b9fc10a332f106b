"""CUDA backend of crlibm_py: the elementwise kernels of src/cuda/crlibm.cu.

The device object, the kernel loader and the NVRTC build are the shared runtime's
(repro_runtime.cuda, repro_runtime.nvrtc); this module names crlibm's kernels
(``cr_<function>_f32``) and launches them.
"""
import numpy as np

from repro_runtime import cuda as rt

rt.register_kernels("cr_", "crlibm")


def apply(dev, fname, x, out=None):
    """fname(x) on the device: x a device array of a dtype that converts to float32
    exactly (checked by the caller); the result (or out) on x's device."""
    xp = dev.xp
    xc = xp.ascontiguousarray(x, dtype=np.float32)
    if out is not None:
        if not isinstance(out, xp.ndarray) or out.dtype != np.float32 or out.shape != x.shape:
            raise TypeError(f"crlibm_py.{fname}: out must be a float32 {xp.__name__} array of "
                            f"shape {x.shape}")
        target = out if out.flags.c_contiguous else xp.empty(x.shape, np.float32)
    else:
        target = xp.empty(x.shape, np.float32)
    n = xc.size
    if n:
        dev.function(f"cr_{fname}_f32")(rt.grid_1d(dev, n), (rt.THREADS,),
                                        (xc, target, np.int64(n)))
    if out is not None and target is not out:
        out[...] = target
        return out
    return target
