/* Run-time choice of the CPU code path (contract §4: CRLIBM_ISA, REPROBLAS_ISA).
 * Every path gives the same bits; the choice only changes speed. */
#ifndef CR_ISA_H
#define CR_ISA_H

enum cr_isa { CR_ISA_SCALAR = 0, CR_ISA_AVX2 = 1, CR_ISA_AVX512 = 2, CR_ISA_COUNT = 3 };

/* Name of a path: "scalar", "avx2", "avx512". */
const char *cr_isa_name(int isa);
/* 1 if this CPU (and OS) can run the path. */
int cr_isa_supported(int isa);
/* The best path this CPU has. */
int cr_isa_best(void);
/* Parse an ISA name ("" or NULL means best). Returns the path, or -1 for an
 * unknown name, or -2 for a path this CPU lacks. */
int cr_isa_parse(const char *name);

#endif /* CR_ISA_H */
