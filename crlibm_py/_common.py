"""Helpers shared by crlibm_py and reproblas (pure Python; reproblas imports this too).

The C ABI reports the same conditions as status codes (CRLIBM_ERR_ISA_*,
REPROBLAS_ERR_ISA_*); see docs/c_abi.md.
"""
import os

# cr_isa_parse's codes (src/c/common/isa.c) for a name that is not a path, and for a
# path this CPU lacks.
ISA_UNKNOWN, ISA_UNSUPPORTED = -1, -2


def isa_from_code(var, name, code, names, best):
    """The path code that cr_isa_parse gave for ``var=name``, or the error to raise:
    ValueError for an unknown name, RuntimeError for a path this CPU lacks."""
    if code == ISA_UNKNOWN:
        raise ValueError(f"{var}={name!r} is not a CPU path; use one of: {', '.join(names)} "
                         f"(or leave it unset for the best)")
    if code == ISA_UNSUPPORTED:
        raise RuntimeError(f"{var}={name!r}: this CPU cannot run that path "
                           f"(the best it has is {best!r})")
    return code


def short_repr(x):
    """x for an error message: an int of thousands of digits is named by its size
    (repr would print them all, or fail beyond Python's digit limit)."""
    if isinstance(x, int) and x.bit_length() > 64:
        return f"an int of {x.bit_length()} bits"
    return repr(x)


def package_path(init_file, folder):
    """A folder inside the package whose __init__.py is init_file (C ABI files)."""
    return os.path.join(os.path.dirname(os.path.abspath(init_file)), folder)
