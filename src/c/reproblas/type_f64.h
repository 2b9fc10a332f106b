/* Maps the generic names used by the kernel bodies onto double lanes.
 * Include after a lanes/<isa>.h header; undo with type_undef.h. */
#define T double
#define RB_TSFX f64
#define V v64
#define W V64_W
#define vload v64_load
#define vstore v64_store
#define vset1 v64_set1
#define vadd v64_add
#define vmul v64_mul
#define vsub v64_sub
#define vdiv v64_div
#define vfma v64_fma
#define vabs v64_abs
#define vmax v64_max
#define vmin v64_min
#define vnonzero_or v64_nonzero_or
#define vpairadd v64_pairadd
#define vtree_rows v64_tree_rows
#define vfirst v64_first
#define vnan_bits v64_nan_bits
#define veq_bits v64_eq_bits
#define vtranspose v64_transpose
#define vload_transposed v64_load_transposed
#define s_fma fma
#define s_abs fabs
