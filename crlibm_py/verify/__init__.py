"""Exhaustive verification of crlibm_py (``python -m crlibm_py.verify --help``).

Two tiers compare every CPU path's result, bit for bit, with the correctly
rounded float32 (contract §1), over all 2^32 inputs or a range of bit patterns:

- fast (default): the expected result comes from the contract's special-value table,
  or glibc's double function when its declared error bound decides the
  rounding, or MPFR for the few inputs the bound leaves undecided; each run
  also measures every reference against MPFR on a sample and fails if the
  declared bound is exceeded;
- strict: MPFR for every input.

The command line keeps a checkpoint (resumed by the same command after a kill
or Ctrl-C) and writes a JSON report by default.

MPFR is gmpy2's, loaded at run time. See docs/verification/README.md.
"""
from .bounds import BOUNDS, check_bound, sample_inputs
from .cli import main, parse_range
from .runner import FUNCTIONS, PATHS, Hooks, run, supported_paths

__all__ = ["run", "main", "parse_range", "Hooks", "BOUNDS", "FUNCTIONS", "PATHS",
           "supported_paths", "check_bound", "sample_inputs"]
