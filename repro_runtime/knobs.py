"""Errors for the environment knobs (docs/contract.md §4), shared by both packages.

The knobs are parsed in C (cr_isa_parse in src/c/common/isa.c, the thread count in
src/c/capi/env.c), so the C ABI and Python read them alike; the C ABI reports the
same conditions as status codes (CRLIBM_ERR_ISA_*, REPROBLAS_ERR_ISA_*; docs/c_abi.md).
"""

# cr_isa_parse's codes for a name that is not a path, and for a path this CPU lacks.
ISA_UNKNOWN, ISA_UNSUPPORTED = -1, -2

C_SPACE = " \t\n\v\f\r"  # C's isspace: what the C parsers skip around a value


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


def bad_count(var, value, limit):
    """The error for a count knob that the C parser refused (value: the raw string)."""
    return ValueError(f"{var}={value.strip(C_SPACE)!r} must be a positive integer "
                      f"(at most {limit})")
