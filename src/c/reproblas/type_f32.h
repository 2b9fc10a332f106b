/* Maps the generic names used by the kernel bodies onto float lanes.
 * Include after a lanes/<isa>.h header; undo with type_undef.h. */
#define T float
#define RB_TSFX f32
#define V v32
#define W V32_W
#define vload v32_load
#define vstore v32_store
#define vset1 v32_set1
#define vadd v32_add
#define vmul v32_mul
#define vsub v32_sub
#define vdiv v32_div
#define vfma v32_fma
#define vabs v32_abs
#define vmax v32_max
#define vmin v32_min
#define vnonzero_or v32_nonzero_or
#define vpairadd v32_pairadd
#define vtree_rows v32_tree_rows
#ifdef V32_TREE_BLOCKS
#define RB_TREE_BLOCKS V32_TREE_BLOCKS
#define vtree_blocks v32_tree_blocks
#define vtree_blocks_join v32_tree_blocks_join
#define vblocks_shift v32_blocks_shift
#define vshift v32_shift
#define vblocks_shift_of v32_blocks_shift_of
#endif
#define vfirst v32_first
#define vnan_bits v32_nan_bits
#define veq_bits v32_eq_bits
#define vtranspose v32_transpose
#define vload_transposed v32_load_transposed
#define s_fma fmaf
#define s_abs fabsf
