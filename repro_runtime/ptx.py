"""The PTX lint: docs/contract.md §0 as instructions that no kernel may contain.

Shared by the run-time loader (repro_runtime.nvrtc) and the nvcc lint build
(tools/ptx_lint.py), so both apply the same rules.
"""
import re

# Forbidden anywhere in result-producing PTX: approximate or FTZ instructions,
# special-function units, tensor cores, floating-point atomics.
_PRED = r"^\s*(?:@!?%\w+\s+)?"
FORBIDDEN = [
    (re.compile(r"\.approx\b"), "approximate instruction"),
    (re.compile(r"\.ftz\b"), "flush-to-zero"),
    (re.compile(_PRED + r"(rcp|rsqrt|ex2|lg2|sin|cos|tanh)\.", re.M),
     "special-function instruction"),
    (re.compile(_PRED + r"div\.full\.", re.M), "approximate division"),
    (re.compile(_PRED + r"(atom|red)\.[\w.]*\.(f16|bf16|f32|f64)\b", re.M),
     "floating-point atomic"),
    (re.compile(_PRED + r"w?mma\.", re.M), "tensor-core instruction"),
    (re.compile(r"\btf32\b"), "TF32"),
]
FMA = re.compile(_PRED + r"fma\.", re.M)
FUNC = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\s+(?:\([^)]*\)\s*)?(\w+)",
                  re.M)
PROBE = "cr_lint_fma"  # src/cuda/lint/fma_probe.cuh


def functions(ptx):
    """(name, body) of every .entry / .func in the PTX."""
    starts = [(m.start(), m.group(1)) for m in FUNC.finditer(ptx)]
    return [(name, ptx[pos:(starts[i + 1][0] if i + 1 < len(starts) else len(ptx))])
            for i, (pos, name) in enumerate(starts)]


def lint(ptx, fma_probe_build=False):
    """Violations as 'function: what: instruction' strings (empty: clean). In a
    probe build (-DCR_LINT_FMA), also every fma outside the probe functions: the
    source's own fmas all go through them, so any other was made by the compiler."""
    found = []
    for name, body in functions(ptx):
        for pattern, what in FORBIDDEN:
            for m in pattern.finditer(body):
                line = body[body.rfind("\n", 0, m.start()) + 1:body.find("\n", m.start())]
                found.append(f"{name}: {what}: {line.strip()}")
        if fma_probe_build and PROBE not in name:
            for m in FMA.finditer(body):
                line = body[m.start():body.find("\n", m.start())]
                found.append(f"{name}: fma not requested by the source: {line.strip()}")
    return found
