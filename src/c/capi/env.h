/* The environment knobs of the C ABI (contract §4), read at every call with the
 * meaning the Python API gives them; a bad value is a status, never an abort. */
#ifndef CR_CAPI_ENV_H
#define CR_CAPI_ENV_H

/* Status codes shared by both libraries' headers (CRLIBM_ERR_*, REPROBLAS_ERR_*). */
enum { CAPI_ISA_UNKNOWN = 1, CAPI_ISA_UNSUPPORTED = 2 };

/* *isa = the path the variable names (unset or empty: the best this CPU has).
 * Returns 0, CAPI_ISA_UNKNOWN or CAPI_ISA_UNSUPPORTED. */
int capi_isa_from_env(const char *var, int *isa);

/* A positive integer variable (surrounding blanks and a leading '+' allowed, as
 * Python's int()). Returns 1 and sets *value when set and valid, 0 when unset or
 * blank, -1 otherwise (0, negative, not a number, above INT_MAX). */
int capi_positive_int_from_env(const char *var, int *value);

#endif /* CR_CAPI_ENV_H */
