"""Coefficient generator for src/c/crlibm/coeffs (see docs/polygen.md)."""
