/* The list of correctly rounded functions, as an X-macro: X(name, id).
 * Adding a function means one line here and one header in functions/. */
#ifndef CR_FUNCTIONS_H
#define CR_FUNCTIONS_H

#define CR_FUNCTION_LIST(X) \
  X(exp, 0)                 \
  X(log, 1)                 \
  X(sin, 2)                 \
  X(cos, 3)                 \
  X(tanh, 4)                \
  X(erf, 5)                 \
  X(rsqrt, 6)

#define CR_FUNCTION_COUNT 7

#endif /* CR_FUNCTIONS_H */
