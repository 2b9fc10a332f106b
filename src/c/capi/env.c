#include "env.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>

#include "isa.h"

int capi_isa_from_env(const char *var, int *isa) {
  int code = cr_isa_parse(getenv(var));
  if (code == -1) return CAPI_ISA_UNKNOWN;
  if (code == -2) return CAPI_ISA_UNSUPPORTED;
  *isa = code;
  return 0;
}

int capi_positive_int_from_env(const char *var, int *value) {
  const char *s = getenv(var);
  if (s == NULL) return 0;
  while (isspace((unsigned char)*s)) ++s;
  if (*s == '\0') return 0;
  if (*s == '+') ++s;
  long long n = 0;
  const char *digits = s;
  for (; isdigit((unsigned char)*s); ++s) {
    n = n * 10 + (*s - '0');
    if (n > INT_MAX) return -1;
  }
  while (isspace((unsigned char)*s)) ++s;
  if (s == digits || *s != '\0' || n < 1) return -1;
  *value = (int)n;
  return 1;
}
