"""Sphinx configuration of the crlibm_py / reproblas documentation.

Build (after building the extensions in place, or installing the package):
    python -m sphinx -W --keep-going -b html docs docs/_build/html
The API pages import crlibm_py and reproblas (CPU only; nothing here needs a GPU).
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "_ext"))
try:  # the installed package, else the one built in place in this checkout
    import reproblas  # noqa: F401
except ImportError:
    sys.path.insert(0, REPO)

project = "crlibm_py · reproblas"
author = "the crlibm_py and reproblas developers"
copyright = "2026, " + author
release = version = "0.1.0"

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    "benchdocs",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_generated", "bench", "Thumbs.db", ".DS_Store"]
myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "none"
autosummary_generate = False
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False

html_theme = "alabaster"
html_static_path = []
html_title = project
html_theme_options = {"description": "The same bits everywhere", "fixed_sidebar": True,
                      "page_width": "1100px"}


def _public_callables_only(app, what, name, obj, skip, options):
    """In the package pages, document every callable of __all__ (even a Cython function
    without a docstring) and leave the constants to api.rst's own entries."""
    if what == "module":
        return not callable(obj)
    return None


def setup(app):
    app.connect("autodoc-skip-member", _public_callables_only)
