"""Small helpers shared by crlibm_py and reproblas."""
import os


def short_repr(x):
    """x for an error message: an int of thousands of digits is named by its size
    (repr would print them all, or fail beyond Python's digit limit)."""
    if isinstance(x, int) and x.bit_length() > 64:
        return f"an int of {x.bit_length()} bits"
    return repr(x)


def package_path(init_file, folder):
    """A folder inside the package whose __init__.py is init_file (C ABI files)."""
    return os.path.join(os.path.dirname(os.path.abspath(init_file)), folder)
