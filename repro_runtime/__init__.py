"""The runtime shared by crlibm_py and reproblas (pure Python, no kernels of its own).

- ``repro_runtime.util``: package_path, short_repr.
- ``repro_runtime.knobs``: the environment knobs' error reporting (ISA path names, thread
  counts); the knobs themselves are parsed in C (src/c/common/isa.c, src/c/capi/env.c).
- ``repro_runtime.cuda``: which arrays live on a GPU, the CuPy device object and its
  kernel modules (each package registers the kernel file of its name prefix).
- ``repro_runtime.nvrtc``: the CUDA sources, the contract's NVRTC options, compile and
  disk cache of the PTX.
- ``repro_runtime.ptx``: the PTX lint (docs/contract.md §0 as forbidden instructions).
"""
