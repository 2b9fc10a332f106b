/* The function ids: CR_FN_ID_<name> is the function's position in the
 * registry (functions.def), CR_FUNCTION_COUNT the number of functions. */
#ifndef CR_FUNCTIONS_H
#define CR_FUNCTIONS_H

#define CR_FUNCTION(name, ...) CR_FN_ID_##name,
enum cr_function_id {
#include "functions.def"
  CR_FUNCTION_COUNT
};
#undef CR_FUNCTION

#endif /* CR_FUNCTIONS_H */
