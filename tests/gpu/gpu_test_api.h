/* The cuFFT / cuSPARSE-gtsv entry points the GPU tests call, as a table of function pointers.
 *
 * Written in the common subset of C11 and C++17: the preload client (C) fills one table with the
 * functions it links (so each call goes through the process's symbol binding, which a preloaded
 * libidgpu takes over), and the status-code test (C++) fills two tables with dlsym, one from the
 * vendor libraries and one from libidgpu, and runs the same cases on both.
 *
 * The gtsv functions are typed per precision; the idgpu_test_gtsv_* wrappers below take the
 * precision as an argument and the arrays as void pointers so that one case body serves all four.
 */
#ifndef IDGPU_TESTS_GPU_TEST_API_H
#define IDGPU_TESTS_GPU_TEST_API_H

#include <stddef.h>

#include <cuda_runtime_api.h>
#include <cufft.h>
#include <cufftXt.h>
#include <cusparse.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Precisions of the gtsv family, in the vendor's prefix order. */
enum { IDGPU_TEST_PREC_S = 0, IDGPU_TEST_PREC_D = 1, IDGPU_TEST_PREC_C = 2, IDGPU_TEST_PREC_Z = 3, IDGPU_TEST_PREC_COUNT = 4 };

static const char idgpu_test_prec_letter[IDGPU_TEST_PREC_COUNT] = {'S', 'D', 'C', 'Z'};
/* Bytes of one real scalar and scalars per element. */
static const int idgpu_test_prec_scalar_bytes[IDGPU_TEST_PREC_COUNT] = {4, 8, 4, 8};
static const int idgpu_test_prec_components[IDGPU_TEST_PREC_COUNT] = {1, 1, 2, 2};

#define IDGPU_TEST_GTSV_TABLE(T)                                                                                   \
  struct {                                                                                                         \
    cusparseStatus_t (*gtsv2_bufferSizeExt)(cusparseHandle_t, int, int, const T *, const T *, const T *, const T *, \
                                            int, size_t *);                                                        \
    cusparseStatus_t (*gtsv2)(cusparseHandle_t, int, int, const T *, const T *, const T *, T *, int, void *);       \
    cusparseStatus_t (*gtsv2_nopivot_bufferSizeExt)(cusparseHandle_t, int, int, const T *, const T *, const T *,   \
                                                    const T *, int, size_t *);                                     \
    cusparseStatus_t (*gtsv2_nopivot)(cusparseHandle_t, int, int, const T *, const T *, const T *, T *, int,       \
                                      void *);                                                                     \
    cusparseStatus_t (*gtsv2StridedBatch_bufferSizeExt)(cusparseHandle_t, int, const T *, const T *, const T *,    \
                                                        const T *, int, int, size_t *);                            \
    cusparseStatus_t (*gtsv2StridedBatch)(cusparseHandle_t, int, const T *, const T *, const T *, T *, int, int,   \
                                          void *);                                                                 \
    cusparseStatus_t (*gtsvInterleavedBatch_bufferSizeExt)(cusparseHandle_t, int, int, const T *, const T *,       \
                                                           const T *, const T *, int, size_t *);                   \
    cusparseStatus_t (*gtsvInterleavedBatch)(cusparseHandle_t, int, int, T *, T *, T *, T *, int, void *);         \
  }

typedef struct IdgpuTestApi {
  const char *label; /* "vendor", "idgpu", "linked" */

  /* cuFFT */
  cufftResult (*cufftCreate)(cufftHandle *);
  cufftResult (*cufftDestroy)(cufftHandle);
  cufftResult (*cufftPlan1d)(cufftHandle *, int, cufftType, int);
  cufftResult (*cufftPlan2d)(cufftHandle *, int, int, cufftType);
  cufftResult (*cufftPlan3d)(cufftHandle *, int, int, int, cufftType);
  cufftResult (*cufftPlanMany)(cufftHandle *, int, int *, int *, int, int, int *, int, int, cufftType, int);
  cufftResult (*cufftMakePlan1d)(cufftHandle, int, cufftType, int, size_t *);
  cufftResult (*cufftMakePlan2d)(cufftHandle, int, int, cufftType, size_t *);
  cufftResult (*cufftMakePlan3d)(cufftHandle, int, int, int, cufftType, size_t *);
  cufftResult (*cufftMakePlanMany)(cufftHandle, int, int *, int *, int, int, int *, int, int, cufftType, int,
                                   size_t *);
  cufftResult (*cufftMakePlanMany64)(cufftHandle, int, long long int *, long long int *, long long int,
                                     long long int, long long int *, long long int, long long int, cufftType,
                                     long long int, size_t *);
  cufftResult (*cufftXtMakePlanMany)(cufftHandle, int, long long int *, long long int *, long long int,
                                     long long int, cudaDataType, long long int *, long long int, long long int,
                                     cudaDataType, long long int, size_t *, cudaDataType);
  cufftResult (*cufftGetSize)(cufftHandle, size_t *);
  cufftResult (*cufftGetSize1d)(cufftHandle, int, cufftType, int, size_t *);
  cufftResult (*cufftEstimate1d)(int, cufftType, int, size_t *);
  cufftResult (*cufftSetStream)(cufftHandle, cudaStream_t);
  cufftResult (*cufftSetWorkArea)(cufftHandle, void *);
  cufftResult (*cufftSetAutoAllocation)(cufftHandle, int);
  cufftResult (*cufftExecC2C)(cufftHandle, cufftComplex *, cufftComplex *, int);
  cufftResult (*cufftExecZ2Z)(cufftHandle, cufftDoubleComplex *, cufftDoubleComplex *, int);
  cufftResult (*cufftExecR2C)(cufftHandle, cufftReal *, cufftComplex *);
  cufftResult (*cufftExecD2Z)(cufftHandle, cufftDoubleReal *, cufftDoubleComplex *);
  cufftResult (*cufftExecC2R)(cufftHandle, cufftComplex *, cufftReal *);
  cufftResult (*cufftExecZ2D)(cufftHandle, cufftDoubleComplex *, cufftDoubleReal *);
  cufftResult (*cufftXtExec)(cufftHandle, void *, void *, int);
  cufftResult (*cufftGetVersion)(int *);

  /* cuSPARSE: the handle functions (always the vendor's) and the gtsv family per precision. */
  cusparseStatus_t (*cusparseCreate)(cusparseHandle_t *);
  cusparseStatus_t (*cusparseDestroy)(cusparseHandle_t);
  cusparseStatus_t (*cusparseSetStream)(cusparseHandle_t, cudaStream_t);
  IDGPU_TEST_GTSV_TABLE(float) S;
  IDGPU_TEST_GTSV_TABLE(double) D;
  IDGPU_TEST_GTSV_TABLE(cuComplex) C;
  IDGPU_TEST_GTSV_TABLE(cuDoubleComplex) Z;
} IdgpuTestApi;

/* Calls on a given precision with untyped arrays. An unknown precision answers -1. */
#define IDGPU_TEST_GTSV_DISPATCH(prec, member, ...)                                         \
  switch (prec) {                                                                           \
    case IDGPU_TEST_PREC_S: { typedef float T; return (int)api->S.member(__VA_ARGS__); }          \
    case IDGPU_TEST_PREC_D: { typedef double T; return (int)api->D.member(__VA_ARGS__); }         \
    case IDGPU_TEST_PREC_C: { typedef cuComplex T; return (int)api->C.member(__VA_ARGS__); }      \
    case IDGPU_TEST_PREC_Z: { typedef cuDoubleComplex T; return (int)api->Z.member(__VA_ARGS__); } \
    default: return -1;                                                                     \
  }

static inline int idgpu_test_gtsv2_bufferSizeExt(const IdgpuTestApi *api, int prec, cusparseHandle_t h, int m, int n,
                                                 const void *dl, const void *d, const void *du, const void *B,
                                                 int ldb, size_t *size) {
  IDGPU_TEST_GTSV_DISPATCH(prec, gtsv2_bufferSizeExt, h, m, n, (const T *)dl, (const T *)d, (const T *)du,
                           (const T *)B, ldb, size)
}

static inline int idgpu_test_gtsv2(const IdgpuTestApi *api, int prec, cusparseHandle_t h, int m, int n, const void *dl,
                                   const void *d, const void *du, void *B, int ldb, void *buffer) {
  IDGPU_TEST_GTSV_DISPATCH(prec, gtsv2, h, m, n, (const T *)dl, (const T *)d, (const T *)du, (T *)B, ldb, buffer)
}

static inline int idgpu_test_gtsv2_nopivot_bufferSizeExt(const IdgpuTestApi *api, int prec, cusparseHandle_t h, int m,
                                                         int n, const void *dl, const void *d, const void *du,
                                                         const void *B, int ldb, size_t *size) {
  IDGPU_TEST_GTSV_DISPATCH(prec, gtsv2_nopivot_bufferSizeExt, h, m, n, (const T *)dl, (const T *)d, (const T *)du,
                           (const T *)B, ldb, size)
}

static inline int idgpu_test_gtsv2_nopivot(const IdgpuTestApi *api, int prec, cusparseHandle_t h, int m, int n,
                                           const void *dl, const void *d, const void *du, void *B, int ldb,
                                           void *buffer) {
  IDGPU_TEST_GTSV_DISPATCH(prec, gtsv2_nopivot, h, m, n, (const T *)dl, (const T *)d, (const T *)du, (T *)B, ldb,
                           buffer)
}

static inline int idgpu_test_gtsv2StridedBatch_bufferSizeExt(const IdgpuTestApi *api, int prec, cusparseHandle_t h,
                                                             int m, const void *dl, const void *d, const void *du,
                                                             const void *x, int batchCount, int batchStride,
                                                             size_t *size) {
  IDGPU_TEST_GTSV_DISPATCH(prec, gtsv2StridedBatch_bufferSizeExt, h, m, (const T *)dl, (const T *)d, (const T *)du,
                           (const T *)x, batchCount, batchStride, size)
}

static inline int idgpu_test_gtsv2StridedBatch(const IdgpuTestApi *api, int prec, cusparseHandle_t h, int m,
                                               const void *dl, const void *d, const void *du, void *x, int batchCount,
                                               int batchStride, void *buffer) {
  IDGPU_TEST_GTSV_DISPATCH(prec, gtsv2StridedBatch, h, m, (const T *)dl, (const T *)d, (const T *)du, (T *)x,
                           batchCount, batchStride, buffer)
}

static inline int idgpu_test_gtsvInterleavedBatch_bufferSizeExt(const IdgpuTestApi *api, int prec, cusparseHandle_t h,
                                                                int algo, int m, const void *dl, const void *d,
                                                                const void *du, const void *x, int batchCount,
                                                                size_t *size) {
  IDGPU_TEST_GTSV_DISPATCH(prec, gtsvInterleavedBatch_bufferSizeExt, h, algo, m, (const T *)dl, (const T *)d,
                           (const T *)du, (const T *)x, batchCount, size)
}

static inline int idgpu_test_gtsvInterleavedBatch(const IdgpuTestApi *api, int prec, cusparseHandle_t h, int algo,
                                                  int m, void *dl, void *d, void *du, void *x, int batchCount,
                                                  void *buffer) {
  IDGPU_TEST_GTSV_DISPATCH(prec, gtsvInterleavedBatch, h, algo, m, (T *)dl, (T *)d, (T *)du, (T *)x, batchCount,
                           buffer)
}

/* ---- Deterministic inputs ---------------------------------------------------------------- */

/* splitmix64: a fixed seed gives the same sequence on every machine. */
static inline unsigned long long idgpu_test_rng_next(unsigned long long *state) {
  unsigned long long z = (*state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/* Uniform in (-1, 1), never exactly zero: (k + 0.5) / 2^53 is never 1/2. */
static inline double idgpu_test_rng_signed(unsigned long long *state) {
  const double u = ((double)(idgpu_test_rng_next(state) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  return 2.0 * u - 1.0;
}

/* A seed from a case name (FNV-1a), so each case has its own fixed inputs. */
static inline unsigned long long idgpu_test_seed(const char *name) {
  unsigned long long hash = 0xcbf29ce484222325ULL;
  for (const char *cursor = name; *cursor != '\0'; ++cursor) {
    hash ^= (unsigned char)*cursor;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

/* Stores value as scalar number `index` of an array of 4- or 8-byte reals. */
static inline void idgpu_test_store(void *array, size_t index, int scalar_bytes, double value) {
  if (scalar_bytes == 4) {
    ((float *)array)[index] = (float)value;
  } else {
    ((double *)array)[index] = value;
  }
}

static inline double idgpu_test_load(const void *array, size_t index, int scalar_bytes) {
  return scalar_bytes == 4 ? (double)((const float *)array)[index] : ((const double *)array)[index];
}

/* Fills `count` scalars with random values in (-1, 1). */
static inline void idgpu_test_fill_random(void *array, size_t count, int scalar_bytes, unsigned long long *state) {
  for (size_t index = 0; index < count; ++index) {
    idgpu_test_store(array, index, scalar_bytes, idgpu_test_rng_signed(state));
  }
}

/* One diagonally dominant tridiagonal coefficient set of element `index` (of `elements` in each
 * array): dl, du random in the unit disc, d with real part 2.5 + |random| (> |dl| + |du| + 0.5).
 * `first` / `last` mark the elements whose dl / du the API requires to be zero. */
static inline void idgpu_test_tridiag_element(void *dl, void *d, void *du, size_t index, int prec, int first, int last,
                                              unsigned long long *state) {
  const int bytes = idgpu_test_prec_scalar_bytes[prec];
  const int comps = idgpu_test_prec_components[prec];
  for (int c = 0; c < comps; ++c) {
    const double scale = comps == 2 ? 0.7 : 1.0;
    idgpu_test_store(dl, index * comps + c, bytes, first ? 0.0 : scale * idgpu_test_rng_signed(state));
    idgpu_test_store(du, index * comps + c, bytes, last ? 0.0 : scale * idgpu_test_rng_signed(state));
  }
  const double real = 2.5 + (idgpu_test_rng_signed(state) + 1.0) * 0.5;
  idgpu_test_store(d, index * comps, bytes, real);
  if (comps == 2) idgpu_test_store(d, index * comps + 1, bytes, 0.5 * idgpu_test_rng_signed(state));
}

#ifdef __cplusplus
}
#endif

#endif /* IDGPU_TESTS_GPU_TEST_API_H */
