"""Coefficient generator for src/c/crlibm/<function>/ (see docs/polygen.md)."""
