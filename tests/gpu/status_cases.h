/* Bad-input cases: each calls the real API through an IdgpuTestApi table and returns the status.
 *
 * Shared by the preload client's `status` mode (C: one table, the functions the process binds;
 * the statuses are compared between a vendor run and idgpu runs) and by status_codes_test (C++:
 * the same case on the vendor's table and on libidgpu's table, in one process).
 *
 * Every case passes valid, generously sized device arrays wherever the bad argument is not the
 * array itself, so an implementation that does not reject the input computes on real memory
 * instead of faulting. Cases marked IDGPU_CASE_ISOLATED can crash the process (a NULL host output
 * pointer) or fault the CUDA context (a NULL device array that is not rejected); the runners
 * execute each of those in a child process of its own and record a crash as "signal:N".
 */
#ifndef IDGPU_TESTS_STATUS_CASES_H
#define IDGPU_TESTS_STATUS_CASES_H

#include <stdlib.h>
#include <string.h>

#include "gpu_test_api.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { IDGPU_CASE_ISOLATED = 1 };

/* Sizes of the valid problem the cases start from. */
enum {
  IDGPU_CASE_M = 100,
  IDGPU_CASE_N = 3,
  IDGPU_CASE_LDB = 104,
  IDGPU_CASE_BATCH = 4,
  IDGPU_CASE_STRIDE = 104,
  IDGPU_CASE_FFT_N = 64,
  /* Bytes of each device array (dl, d, du, x, fft in/out): far beyond what any case reaches. */
  IDGPU_CASE_ARRAY_BYTES = 1 << 20,
  IDGPU_CASE_BUFFER_BYTES = 16 << 20,
  /* Bytes of each array that the fixture refills before a case. */
  IDGPU_CASE_REFILL_BYTES = 64 << 10
};

typedef struct IdgpuStatusFixture {
  cudaStream_t stream;
  cusparseHandle_t sparse; /* a real handle from the vendor's cusparseCreate */
  void *dl, *d, *du, *x;   /* device */
  void *buffer;            /* device, cudaMalloc-aligned (256 bytes) */
  void *fft_in, *fft_out;  /* device */
  /* Host images of dl, d, du, x per precision (IDGPU_CASE_REFILL_BYTES each). */
  unsigned char *image[IDGPU_TEST_PREC_COUNT][4];
} IdgpuStatusFixture;

typedef int (*IdgpuStatusFn)(const IdgpuTestApi *api, IdgpuStatusFixture *fx, int prec);

typedef struct IdgpuStatusCase {
  const char *name;
  IdgpuStatusFn fn;
  int prec; /* gtsv precision; 0 for cuFFT cases */
  int flags;
} IdgpuStatusCase;

/* ---- cuFFT --------------------------------------------------------------------------------- */

/* Destroys a plan a creation call handed out, then returns that call's status. */
static inline int idgpu_case_plan_status(const IdgpuTestApi *api, cufftResult status, cufftHandle plan) {
  if (status == CUFFT_SUCCESS) api->cufftDestroy(plan);
  return (int)status;
}

static int case_plan1d(const IdgpuTestApi *api, int nx, cufftType type, int batch) {
  cufftHandle plan = 0;
  return idgpu_case_plan_status(api, api->cufftPlan1d(&plan, nx, type, batch), plan);
}

static int case_plan1d_nx0(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)f; (void)p; return case_plan1d(a, 0, CUFFT_C2C, 1); }
static int case_plan1d_nx_neg(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)f; (void)p; return case_plan1d(a, -8, CUFFT_C2C, 1); }
static int case_plan1d_batch0(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)f; (void)p; return case_plan1d(a, 64, CUFFT_C2C, 0); }
static int case_plan1d_batch_neg(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)f; (void)p; return case_plan1d(a, 64, CUFFT_R2C, -2); }
static int case_plan1d_type_0x99(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)f; (void)p; return case_plan1d(a, 64, (cufftType)0x99, 1); }
static int case_plan1d_type_0(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)f; (void)p; return case_plan1d(a, 64, (cufftType)0, 1); }
static int case_plan1d_valid(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)f; (void)p; return case_plan1d(a, 64, CUFFT_Z2Z, 2); }

static int case_plan1d_null_plan(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  return (int)a->cufftPlan1d(NULL, 64, CUFFT_C2C, 1);
}

static int case_plan2d_nx0(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  cufftHandle plan = 0;
  return idgpu_case_plan_status(a, a->cufftPlan2d(&plan, 0, 16, CUFFT_C2C), plan);
}

static int case_plan2d_ny_neg(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  cufftHandle plan = 0;
  return idgpu_case_plan_status(a, a->cufftPlan2d(&plan, 16, -16, CUFFT_R2C), plan);
}

static int case_plan3d_nz0(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  cufftHandle plan = 0;
  return idgpu_case_plan_status(a, a->cufftPlan3d(&plan, 8, 8, 0, CUFFT_Z2Z), plan);
}

static int case_plan3d_type_0x99(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  cufftHandle plan = 0;
  return idgpu_case_plan_status(a, a->cufftPlan3d(&plan, 8, 8, 8, (cufftType)0x99), plan);
}

static int case_planmany_rank(const IdgpuTestApi *a, int rank, int batch, int first_n) {
  int n[4] = {first_n, 8, 8, 8};
  cufftHandle plan = 0;
  return idgpu_case_plan_status(a, a->cufftPlanMany(&plan, rank, n, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, batch), plan);
}

static int case_planmany_rank0(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)f; (void)p; return case_planmany_rank(a, 0, 1, 8); }
static int case_planmany_rank4(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)f; (void)p; return case_planmany_rank(a, 4, 1, 8); }
static int case_planmany_rank_neg(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)f; (void)p; return case_planmany_rank(a, -1, 1, 8); }
static int case_planmany_n0(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)f; (void)p; return case_planmany_rank(a, 2, 1, 0); }
static int case_planmany_batch0(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)f; (void)p; return case_planmany_rank(a, 1, 0, 64); }

static int case_planmany_stride0(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  int n[1] = {64};
  int embed[1] = {64};
  cufftHandle plan = 0;
  return idgpu_case_plan_status(a, a->cufftPlanMany(&plan, 1, n, embed, 0, 64, embed, 1, 64, CUFFT_C2C, 2), plan);
}

static int case_planmany_null_n(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  cufftHandle plan = 0;
  return idgpu_case_plan_status(a, a->cufftPlanMany(&plan, 1, NULL, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, 1), plan);
}

static int case_create_null(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  return (int)a->cufftCreate(NULL);
}

/* A plan created and destroyed: its handle is stale. */
static cufftHandle idgpu_case_destroyed_plan(const IdgpuTestApi *a) {
  cufftHandle plan = 0;
  if (a->cufftPlan1d(&plan, IDGPU_CASE_FFT_N, CUFFT_C2C, 1) != CUFFT_SUCCESS) return 987654;
  a->cufftDestroy(plan);
  return plan;
}

static const cufftHandle idgpu_case_unknown_plan = 987654;

static int case_make1d_destroyed(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  size_t work = 0;
  return (int)a->cufftMakePlan1d(idgpu_case_destroyed_plan(a), 64, CUFFT_C2C, 1, &work);
}

static int case_make1d_unknown(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  size_t work = 0;
  return (int)a->cufftMakePlan1d(idgpu_case_unknown_plan, 64, CUFFT_C2C, 1, &work);
}

static int case_make1d_twice(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  cufftHandle plan = 0;
  size_t work = 0;
  if (a->cufftCreate(&plan) != CUFFT_SUCCESS) return -100;
  if (a->cufftMakePlan1d(plan, 64, CUFFT_C2C, 1, &work) != CUFFT_SUCCESS) {
    a->cufftDestroy(plan);
    return -101;
  }
  const int status = (int)a->cufftMakePlan1d(plan, 128, CUFFT_C2C, 1, &work);
  a->cufftDestroy(plan);
  return status;
}

static int case_make1d_null_worksize(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  cufftHandle plan = 0;
  if (a->cufftCreate(&plan) != CUFFT_SUCCESS) return -100;
  const int status = (int)a->cufftMakePlan1d(plan, 64, CUFFT_C2C, 1, NULL);
  a->cufftDestroy(plan);
  return status;
}

static int case_make1d_type_0x99(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  cufftHandle plan = 0;
  size_t work = 0;
  if (a->cufftCreate(&plan) != CUFFT_SUCCESS) return -100;
  const int status = (int)a->cufftMakePlan1d(plan, 64, (cufftType)0x99, 1, &work);
  a->cufftDestroy(plan);
  return status;
}

static int case_makemany64_rank4(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  cufftHandle plan = 0;
  size_t work = 0;
  long long n[4] = {8, 8, 8, 8};
  if (a->cufftCreate(&plan) != CUFFT_SUCCESS) return -100;
  const int status = (int)a->cufftMakePlanMany64(plan, 4, n, NULL, 1, 0, NULL, 1, 0, CUFFT_C2C, 1, &work);
  a->cufftDestroy(plan);
  return status;
}

static int case_xtmakemany_bad_types(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  cufftHandle plan = 0;
  size_t work = 0;
  long long n[1] = {64};
  if (a->cufftCreate(&plan) != CUFFT_SUCCESS) return -100;
  /* complex single in, complex double out */
  const int status = (int)a->cufftXtMakePlanMany(plan, 1, n, NULL, 1, 0, CUDA_C_32F, NULL, 1, 0, CUDA_C_64F, 1, &work,
                                                  CUDA_C_32F);
  a->cufftDestroy(plan);
  return status;
}

static int case_exec_c2c_destroyed(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)p;
  return (int)a->cufftExecC2C(idgpu_case_destroyed_plan(a), (cufftComplex *)f->fft_in, (cufftComplex *)f->fft_out,
                              CUFFT_FORWARD);
}

static int case_exec_c2c_unknown(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)p;
  return (int)a->cufftExecC2C(idgpu_case_unknown_plan, (cufftComplex *)f->fft_in, (cufftComplex *)f->fft_out,
                              CUFFT_FORWARD);
}

static int case_destroy_twice(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  return (int)a->cufftDestroy(idgpu_case_destroyed_plan(a));
}

static int case_destroy_unknown(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  return (int)a->cufftDestroy(idgpu_case_unknown_plan);
}

/* Handles the vendor never hands out: 0 (refused) and -1 (a no-op success, as "no plan"). */
static int case_destroy_zero(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  return (int)a->cufftDestroy(0);
}

static int case_destroy_negative(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  return (int)a->cufftDestroy(-1);
}

static int case_destroy_negative7(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  return (int)a->cufftDestroy(-7);
}

static int case_setstream_destroyed(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)p;
  return (int)a->cufftSetStream(idgpu_case_destroyed_plan(a), f->stream);
}

static int case_setworkarea_destroyed(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)p;
  return (int)a->cufftSetWorkArea(idgpu_case_destroyed_plan(a), f->buffer);
}

static int case_setautoalloc_destroyed(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  return (int)a->cufftSetAutoAllocation(idgpu_case_destroyed_plan(a), 0);
}

static int case_getsize_destroyed(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  size_t work = 0;
  return (int)a->cufftGetSize(idgpu_case_destroyed_plan(a), &work);
}

static int case_getsize_null(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  cufftHandle plan = 0;
  if (a->cufftPlan1d(&plan, 64, CUFFT_C2C, 1) != CUFFT_SUCCESS) return -100;
  const int status = (int)a->cufftGetSize(plan, NULL);
  a->cufftDestroy(plan);
  return status;
}

static int case_getversion_null(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)f; (void)p;
  return (int)a->cufftGetVersion(NULL);
}

/* Executes `type` on a plan made for C2C (or the reverse), on valid buffers. */
static int case_exec_mismatch(const IdgpuTestApi *a, IdgpuStatusFixture *f, cufftType plan_type, cufftType exec_type,
                              int direction) {
  cufftHandle plan = 0;
  if (a->cufftPlan1d(&plan, IDGPU_CASE_FFT_N, plan_type, 1) != CUFFT_SUCCESS) return -100;
  a->cufftSetStream(plan, f->stream);
  cufftResult status = CUFFT_SUCCESS;
  switch (exec_type) {
    case CUFFT_C2C: status = a->cufftExecC2C(plan, (cufftComplex *)f->fft_in, (cufftComplex *)f->fft_out, direction); break;
    case CUFFT_Z2Z: status = a->cufftExecZ2Z(plan, (cufftDoubleComplex *)f->fft_in, (cufftDoubleComplex *)f->fft_out, direction); break;
    case CUFFT_R2C: status = a->cufftExecR2C(plan, (cufftReal *)f->fft_in, (cufftComplex *)f->fft_out); break;
    case CUFFT_D2Z: status = a->cufftExecD2Z(plan, (cufftDoubleReal *)f->fft_in, (cufftDoubleComplex *)f->fft_out); break;
    case CUFFT_C2R: status = a->cufftExecC2R(plan, (cufftComplex *)f->fft_in, (cufftReal *)f->fft_out); break;
    case CUFFT_Z2D: status = a->cufftExecZ2D(plan, (cufftDoubleComplex *)f->fft_in, (cufftDoubleReal *)f->fft_out); break;
    default: status = (cufftResult)-102; break;
  }
  cudaStreamSynchronize(f->stream);
  a->cufftDestroy(plan);
  return (int)status;
}

static int case_exec_r2c_on_c2c(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)p; return case_exec_mismatch(a, f, CUFFT_C2C, CUFFT_R2C, CUFFT_FORWARD); }
static int case_exec_c2r_on_c2c(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)p; return case_exec_mismatch(a, f, CUFFT_C2C, CUFFT_C2R, CUFFT_INVERSE); }
static int case_exec_z2z_on_c2c(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)p; return case_exec_mismatch(a, f, CUFFT_C2C, CUFFT_Z2Z, CUFFT_FORWARD); }
static int case_exec_c2c_on_r2c(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)p; return case_exec_mismatch(a, f, CUFFT_R2C, CUFFT_C2C, CUFFT_FORWARD); }
static int case_exec_c2r_on_r2c(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)p; return case_exec_mismatch(a, f, CUFFT_R2C, CUFFT_C2R, CUFFT_INVERSE); }
static int case_exec_d2z_on_r2c(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)p; return case_exec_mismatch(a, f, CUFFT_R2C, CUFFT_D2Z, CUFFT_FORWARD); }
static int case_exec_r2c_on_c2r(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)p; return case_exec_mismatch(a, f, CUFFT_C2R, CUFFT_R2C, CUFFT_FORWARD); }
static int case_exec_z2d_on_d2z(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)p; return case_exec_mismatch(a, f, CUFFT_D2Z, CUFFT_Z2D, CUFFT_INVERSE); }
static int case_exec_c2c_on_z2z(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)p; return case_exec_mismatch(a, f, CUFFT_Z2Z, CUFFT_C2C, CUFFT_FORWARD); }
static int case_exec_c2c_dir0(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)p; return case_exec_mismatch(a, f, CUFFT_C2C, CUFFT_C2C, 0); }
static int case_exec_c2c_dir2(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)p; return case_exec_mismatch(a, f, CUFFT_C2C, CUFFT_C2C, 2); }
static int case_exec_z2z_dir0(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)p; return case_exec_mismatch(a, f, CUFFT_Z2Z, CUFFT_Z2Z, 0); }
static int case_exec_c2c_valid(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { (void)p; return case_exec_mismatch(a, f, CUFFT_C2C, CUFFT_C2C, CUFFT_INVERSE); }

static int case_xtexec_on_destroyed(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)p;
  return (int)a->cufftXtExec(idgpu_case_destroyed_plan(a), f->fft_in, f->fft_out, CUFFT_FORWARD);
}

static int case_exec_created_unmade(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)p;
  cufftHandle plan = 0;
  if (a->cufftCreate(&plan) != CUFFT_SUCCESS) return -100;
  const int status = (int)a->cufftExecC2C(plan, (cufftComplex *)f->fft_in, (cufftComplex *)f->fft_out, CUFFT_FORWARD);
  a->cufftDestroy(plan);
  return status;
}

/* Auto-allocation off and no work area set: the vendor may refuse or run with none. */
static int case_exec_without_workarea(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) {
  (void)p;
  cufftHandle plan = 0;
  size_t work = 0;
  if (a->cufftCreate(&plan) != CUFFT_SUCCESS) return -100;
  a->cufftSetAutoAllocation(plan, 0);
  /* 997 is prime: a Bluestein plan that needs a work area. */
  if (a->cufftMakePlan1d(plan, 997, CUFFT_C2C, 1, &work) != CUFFT_SUCCESS) {
    a->cufftDestroy(plan);
    return -101;
  }
  const int status = (int)a->cufftExecC2C(plan, (cufftComplex *)f->fft_in, (cufftComplex *)f->fft_out, CUFFT_FORWARD);
  cudaDeviceSynchronize();
  a->cufftDestroy(plan);
  return status;
}

/* ---- gtsv ---------------------------------------------------------------------------------- */

static void *idgpu_case_misaligned(IdgpuStatusFixture *f) { return (unsigned char *)f->buffer + 64; }

/* gtsv2 / gtsv2_nopivot: which = 0 gtsv2, 1 nopivot. */
static int case_g2_bs(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p, int which, cusparseHandle_t h, int m, int n,
                      int ldb, int null_dl, int null_B, int null_size) {
  size_t size = 0;
  const void *dl = null_dl ? NULL : f->dl;
  const void *B = null_B ? NULL : f->x;
  size_t *out = null_size ? NULL : &size;
  return which == 0 ? idgpu_test_gtsv2_bufferSizeExt(a, p, h, m, n, dl, f->d, f->du, B, ldb, out)
                    : idgpu_test_gtsv2_nopivot_bufferSizeExt(a, p, h, m, n, dl, f->d, f->du, B, ldb, out);
}

/* A solve the library accepted but that then faulted on the device (a null device array): the
 * status reads IDGPU_CASE_DEVICE_FAULT + the CUDA error, so it can be told from a refusal. */
#define IDGPU_CASE_DEVICE_FAULT 1000
static inline int idgpu_case_settle(IdgpuStatusFixture *f, int status) {
  const cudaError_t error = cudaStreamSynchronize(f->stream);
  return (status == 0 && error != cudaSuccess) ? IDGPU_CASE_DEVICE_FAULT + (int)error : status;
}

static int case_g2_solve(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p, int which, cusparseHandle_t h, int m,
                         int n, int ldb, int null_dl, void *buffer) {
  const void *dl = null_dl ? NULL : f->dl;
  const int status = which == 0 ? idgpu_test_gtsv2(a, p, h, m, n, dl, f->d, f->du, f->x, ldb, buffer)
                                : idgpu_test_gtsv2_nopivot(a, p, h, m, n, dl, f->d, f->du, f->x, ldb, buffer);
  return idgpu_case_settle(f, status);
}

#define IDGPU_G2_CASES(tag, which)                                                                                    \
  static int case_##tag##_bs_valid(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_bs(a, f, p, which, f->sparse, IDGPU_CASE_M, IDGPU_CASE_N, IDGPU_CASE_LDB, 0, 0, 0); } \
  static int case_##tag##_bs_m2(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_bs(a, f, p, which, f->sparse, 2, IDGPU_CASE_N, IDGPU_CASE_LDB, 0, 0, 0); } \
  static int case_##tag##_bs_m0(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_bs(a, f, p, which, f->sparse, 0, IDGPU_CASE_N, IDGPU_CASE_LDB, 0, 0, 0); } \
  static int case_##tag##_bs_n_neg(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_bs(a, f, p, which, f->sparse, IDGPU_CASE_M, -1, IDGPU_CASE_LDB, 0, 0, 0); } \
  static int case_##tag##_bs_ldb_lt_m(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_bs(a, f, p, which, f->sparse, IDGPU_CASE_M, IDGPU_CASE_N, IDGPU_CASE_M - 1, 0, 0, 0); } \
  static int case_##tag##_bs_null_dl(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_bs(a, f, p, which, f->sparse, IDGPU_CASE_M, IDGPU_CASE_N, IDGPU_CASE_LDB, 1, 0, 0); } \
  static int case_##tag##_bs_null_B(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_bs(a, f, p, which, f->sparse, IDGPU_CASE_M, IDGPU_CASE_N, IDGPU_CASE_LDB, 0, 1, 0); } \
  static int case_##tag##_bs_null_size(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_bs(a, f, p, which, f->sparse, IDGPU_CASE_M, IDGPU_CASE_N, IDGPU_CASE_LDB, 0, 0, 1); } \
  static int case_##tag##_bs_null_handle(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_bs(a, f, p, which, NULL, IDGPU_CASE_M, IDGPU_CASE_N, IDGPU_CASE_LDB, 0, 0, 0); } \
  static int case_##tag##_valid(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_solve(a, f, p, which, f->sparse, IDGPU_CASE_M, IDGPU_CASE_N, IDGPU_CASE_LDB, 0, f->buffer); } \
  static int case_##tag##_m3(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_solve(a, f, p, which, f->sparse, 3, 1, 3, 0, f->buffer); } \
  static int case_##tag##_m2(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_solve(a, f, p, which, f->sparse, 2, IDGPU_CASE_N, IDGPU_CASE_LDB, 0, f->buffer); } \
  static int case_##tag##_m_neg(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_solve(a, f, p, which, f->sparse, -1, IDGPU_CASE_N, IDGPU_CASE_LDB, 0, f->buffer); } \
  static int case_##tag##_n_neg(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_solve(a, f, p, which, f->sparse, IDGPU_CASE_M, -1, IDGPU_CASE_LDB, 0, f->buffer); } \
  static int case_##tag##_n0(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_solve(a, f, p, which, f->sparse, IDGPU_CASE_M, 0, IDGPU_CASE_LDB, 0, f->buffer); } \
  static int case_##tag##_ldb_lt_m(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_solve(a, f, p, which, f->sparse, IDGPU_CASE_M, IDGPU_CASE_N, IDGPU_CASE_M - 1, 0, f->buffer); } \
  static int case_##tag##_ldb0(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_solve(a, f, p, which, f->sparse, IDGPU_CASE_M, IDGPU_CASE_N, 0, 0, f->buffer); } \
  static int case_##tag##_buffer_misaligned(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_solve(a, f, p, which, f->sparse, IDGPU_CASE_M, IDGPU_CASE_N, IDGPU_CASE_LDB, 0, idgpu_case_misaligned(f)); } \
  static int case_##tag##_buffer_null(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_solve(a, f, p, which, f->sparse, IDGPU_CASE_M, IDGPU_CASE_N, IDGPU_CASE_LDB, 0, NULL); } \
  static int case_##tag##_null_handle(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_solve(a, f, p, which, NULL, IDGPU_CASE_M, IDGPU_CASE_N, IDGPU_CASE_LDB, 0, f->buffer); } \
  static int case_##tag##_null_dl(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return case_g2_solve(a, f, p, which, f->sparse, IDGPU_CASE_M, IDGPU_CASE_N, IDGPU_CASE_LDB, 1, f->buffer); }

IDGPU_G2_CASES(gtsv2, 0)
IDGPU_G2_CASES(nopivot, 1)

/* gtsv2StridedBatch */
static int case_sb_bs(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p, cusparseHandle_t h, int m, int batch,
                      int stride, int null_x, int null_size) {
  size_t size = 0;
  return idgpu_test_gtsv2StridedBatch_bufferSizeExt(a, p, h, m, f->dl, f->d, f->du, null_x ? NULL : f->x, batch, stride,
                                                    null_size ? NULL : &size);
}

static int case_sb_solve(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p, cusparseHandle_t h, int m, int batch,
                         int stride, int null_dl, void *buffer) {
  const int status = idgpu_test_gtsv2StridedBatch(a, p, h, m, null_dl ? NULL : f->dl, f->d, f->du, f->x, batch, stride,
                                                  buffer);
  return idgpu_case_settle(f, status);
}

#define IDGPU_SB_CASE(name, call) \
  static int case_sb_##name(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return call; }
IDGPU_SB_CASE(bs_valid, case_sb_bs(a, f, p, f->sparse, IDGPU_CASE_M, IDGPU_CASE_BATCH, IDGPU_CASE_STRIDE, 0, 0))
IDGPU_SB_CASE(bs_m2, case_sb_bs(a, f, p, f->sparse, 2, IDGPU_CASE_BATCH, IDGPU_CASE_STRIDE, 0, 0))
IDGPU_SB_CASE(bs_batch0, case_sb_bs(a, f, p, f->sparse, IDGPU_CASE_M, 0, IDGPU_CASE_STRIDE, 0, 0))
IDGPU_SB_CASE(bs_batch_neg, case_sb_bs(a, f, p, f->sparse, IDGPU_CASE_M, -1, IDGPU_CASE_STRIDE, 0, 0))
IDGPU_SB_CASE(bs_stride_lt_m, case_sb_bs(a, f, p, f->sparse, IDGPU_CASE_M, IDGPU_CASE_BATCH, IDGPU_CASE_M - 1, 0, 0))
IDGPU_SB_CASE(bs_null_x, case_sb_bs(a, f, p, f->sparse, IDGPU_CASE_M, IDGPU_CASE_BATCH, IDGPU_CASE_STRIDE, 1, 0))
IDGPU_SB_CASE(bs_null_size, case_sb_bs(a, f, p, f->sparse, IDGPU_CASE_M, IDGPU_CASE_BATCH, IDGPU_CASE_STRIDE, 0, 1))
IDGPU_SB_CASE(bs_null_handle, case_sb_bs(a, f, p, NULL, IDGPU_CASE_M, IDGPU_CASE_BATCH, IDGPU_CASE_STRIDE, 0, 0))
IDGPU_SB_CASE(valid, case_sb_solve(a, f, p, f->sparse, IDGPU_CASE_M, IDGPU_CASE_BATCH, IDGPU_CASE_STRIDE, 0, f->buffer))
IDGPU_SB_CASE(m2, case_sb_solve(a, f, p, f->sparse, 2, IDGPU_CASE_BATCH, IDGPU_CASE_STRIDE, 0, f->buffer))
IDGPU_SB_CASE(m0, case_sb_solve(a, f, p, f->sparse, 0, IDGPU_CASE_BATCH, IDGPU_CASE_STRIDE, 0, f->buffer))
IDGPU_SB_CASE(batch0, case_sb_solve(a, f, p, f->sparse, IDGPU_CASE_M, 0, IDGPU_CASE_STRIDE, 0, f->buffer))
IDGPU_SB_CASE(batch_neg, case_sb_solve(a, f, p, f->sparse, IDGPU_CASE_M, -3, IDGPU_CASE_STRIDE, 0, f->buffer))
IDGPU_SB_CASE(stride_lt_m, case_sb_solve(a, f, p, f->sparse, IDGPU_CASE_M, IDGPU_CASE_BATCH, IDGPU_CASE_M - 1, 0, f->buffer))
IDGPU_SB_CASE(stride_eq_m, case_sb_solve(a, f, p, f->sparse, IDGPU_CASE_M, IDGPU_CASE_BATCH, IDGPU_CASE_M, 0, f->buffer))
IDGPU_SB_CASE(buffer_misaligned, case_sb_solve(a, f, p, f->sparse, IDGPU_CASE_M, IDGPU_CASE_BATCH, IDGPU_CASE_STRIDE, 0, idgpu_case_misaligned(f)))
IDGPU_SB_CASE(buffer_null, case_sb_solve(a, f, p, f->sparse, IDGPU_CASE_M, IDGPU_CASE_BATCH, IDGPU_CASE_STRIDE, 0, NULL))
IDGPU_SB_CASE(null_handle, case_sb_solve(a, f, p, NULL, IDGPU_CASE_M, IDGPU_CASE_BATCH, IDGPU_CASE_STRIDE, 0, f->buffer))
IDGPU_SB_CASE(null_dl, case_sb_solve(a, f, p, f->sparse, IDGPU_CASE_M, IDGPU_CASE_BATCH, IDGPU_CASE_STRIDE, 1, f->buffer))

/* gtsvInterleavedBatch */
static int case_ib_bs(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p, cusparseHandle_t h, int algo, int m, int batch,
                      int null_dl, int null_size) {
  size_t size = 0;
  return idgpu_test_gtsvInterleavedBatch_bufferSizeExt(a, p, h, algo, m, null_dl ? NULL : f->dl, f->d, f->du, f->x,
                                                       batch, null_size ? NULL : &size);
}

static int case_ib_solve(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p, cusparseHandle_t h, int algo, int m,
                         int batch, int null_dl, void *buffer) {
  const int status = idgpu_test_gtsvInterleavedBatch(a, p, h, algo, m, null_dl ? NULL : f->dl, f->d, f->du, f->x, batch,
                                                     buffer);
  return idgpu_case_settle(f, status);
}

#define IDGPU_IB_CASE(name, call) \
  static int case_ib_##name(const IdgpuTestApi *a, IdgpuStatusFixture *f, int p) { return call; }
IDGPU_IB_CASE(bs_valid_algo0, case_ib_bs(a, f, p, f->sparse, 0, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, 0))
IDGPU_IB_CASE(bs_valid_algo1, case_ib_bs(a, f, p, f->sparse, 1, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, 0))
IDGPU_IB_CASE(bs_valid_algo2, case_ib_bs(a, f, p, f->sparse, 2, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, 0))
IDGPU_IB_CASE(bs_algo3, case_ib_bs(a, f, p, f->sparse, 3, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, 0))
IDGPU_IB_CASE(bs_algo_neg, case_ib_bs(a, f, p, f->sparse, -1, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, 0))
IDGPU_IB_CASE(bs_m2_algo0, case_ib_bs(a, f, p, f->sparse, 0, 2, IDGPU_CASE_BATCH, 0, 0))
IDGPU_IB_CASE(bs_m2_algo2, case_ib_bs(a, f, p, f->sparse, 2, 2, IDGPU_CASE_BATCH, 0, 0))
IDGPU_IB_CASE(bs_batch0, case_ib_bs(a, f, p, f->sparse, 0, IDGPU_CASE_M, 0, 0, 0))
IDGPU_IB_CASE(bs_batch_neg, case_ib_bs(a, f, p, f->sparse, 1, IDGPU_CASE_M, -2, 0, 0))
IDGPU_IB_CASE(bs_null_dl, case_ib_bs(a, f, p, f->sparse, 0, IDGPU_CASE_M, IDGPU_CASE_BATCH, 1, 0))
IDGPU_IB_CASE(bs_null_size, case_ib_bs(a, f, p, f->sparse, 0, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, 1))
IDGPU_IB_CASE(bs_null_handle, case_ib_bs(a, f, p, NULL, 0, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, 0))
IDGPU_IB_CASE(valid_algo0, case_ib_solve(a, f, p, f->sparse, 0, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, f->buffer))
IDGPU_IB_CASE(valid_algo1, case_ib_solve(a, f, p, f->sparse, 1, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, f->buffer))
IDGPU_IB_CASE(valid_algo2, case_ib_solve(a, f, p, f->sparse, 2, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, f->buffer))
IDGPU_IB_CASE(algo3, case_ib_solve(a, f, p, f->sparse, 3, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, f->buffer))
IDGPU_IB_CASE(algo_neg, case_ib_solve(a, f, p, f->sparse, -1, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, f->buffer))
IDGPU_IB_CASE(m2_algo0, case_ib_solve(a, f, p, f->sparse, 0, 2, IDGPU_CASE_BATCH, 0, f->buffer))
IDGPU_IB_CASE(m2_algo1, case_ib_solve(a, f, p, f->sparse, 1, 2, IDGPU_CASE_BATCH, 0, f->buffer))
IDGPU_IB_CASE(m2_algo2, case_ib_solve(a, f, p, f->sparse, 2, 2, IDGPU_CASE_BATCH, 0, f->buffer))
IDGPU_IB_CASE(batch0, case_ib_solve(a, f, p, f->sparse, 0, IDGPU_CASE_M, 0, 0, f->buffer))
IDGPU_IB_CASE(batch_neg, case_ib_solve(a, f, p, f->sparse, 2, IDGPU_CASE_M, -1, 0, f->buffer))
IDGPU_IB_CASE(buffer_misaligned_algo0, case_ib_solve(a, f, p, f->sparse, 0, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, idgpu_case_misaligned(f)))
IDGPU_IB_CASE(buffer_misaligned_algo2, case_ib_solve(a, f, p, f->sparse, 2, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, idgpu_case_misaligned(f)))
IDGPU_IB_CASE(null_handle, case_ib_solve(a, f, p, NULL, 0, IDGPU_CASE_M, IDGPU_CASE_BATCH, 0, f->buffer))
IDGPU_IB_CASE(null_dl, case_ib_solve(a, f, p, f->sparse, 0, IDGPU_CASE_M, IDGPU_CASE_BATCH, 1, f->buffer))

/* ---- The table ----------------------------------------------------------------------------- */

#define IDGPU_CASE(name, fn) {name, fn, 0, 0}
#define IDGPU_CASE_ISO(name, fn) {name, fn, 0, IDGPU_CASE_ISOLATED}
/* One case in every precision. */
#define IDGPU_CASE_ALL(name, fn)                                                                       \
  {"S." name, fn, IDGPU_TEST_PREC_S, 0}, {"D." name, fn, IDGPU_TEST_PREC_D, 0},                         \
  {"C." name, fn, IDGPU_TEST_PREC_C, 0}, {"Z." name, fn, IDGPU_TEST_PREC_Z, 0}
/* Cases that may crash or fault: single precision, isolated. */
#define IDGPU_CASE_S_ISO(name, fn) {"S." name, fn, IDGPU_TEST_PREC_S, IDGPU_CASE_ISOLATED}

static const IdgpuStatusCase idgpu_status_cases[] = {
    /* cuFFT: plan creation */
    IDGPU_CASE("cufft.plan1d.valid", case_plan1d_valid),
    IDGPU_CASE("cufft.plan1d.nx0", case_plan1d_nx0),
    IDGPU_CASE("cufft.plan1d.nx_neg", case_plan1d_nx_neg),
    IDGPU_CASE("cufft.plan1d.batch0", case_plan1d_batch0),
    IDGPU_CASE("cufft.plan1d.batch_neg", case_plan1d_batch_neg),
    IDGPU_CASE("cufft.plan1d.type_0x99", case_plan1d_type_0x99),
    IDGPU_CASE("cufft.plan1d.type_0", case_plan1d_type_0),
    IDGPU_CASE("cufft.plan2d.nx0", case_plan2d_nx0),
    IDGPU_CASE("cufft.plan2d.ny_neg", case_plan2d_ny_neg),
    IDGPU_CASE("cufft.plan3d.nz0", case_plan3d_nz0),
    IDGPU_CASE("cufft.plan3d.type_0x99", case_plan3d_type_0x99),
    IDGPU_CASE("cufft.planmany.rank0", case_planmany_rank0),
    IDGPU_CASE("cufft.planmany.rank4", case_planmany_rank4),
    IDGPU_CASE("cufft.planmany.rank_neg", case_planmany_rank_neg),
    IDGPU_CASE("cufft.planmany.n0", case_planmany_n0),
    IDGPU_CASE("cufft.planmany.batch0", case_planmany_batch0),
    IDGPU_CASE("cufft.planmany.istride0", case_planmany_stride0),
    IDGPU_CASE("cufft.makeplan1d.destroyed_handle", case_make1d_destroyed),
    IDGPU_CASE("cufft.makeplan1d.unknown_handle", case_make1d_unknown),
    IDGPU_CASE("cufft.makeplan1d.twice", case_make1d_twice),
    IDGPU_CASE("cufft.makeplan1d.type_0x99", case_make1d_type_0x99),
    IDGPU_CASE("cufft.makeplanmany64.rank4", case_makemany64_rank4),
    IDGPU_CASE("cufft.xtmakeplanmany.mixed_precision", case_xtmakemany_bad_types),
    /* cuFFT: handles */
    IDGPU_CASE("cufft.exec_c2c.destroyed_handle", case_exec_c2c_destroyed),
    IDGPU_CASE("cufft.exec_c2c.unknown_handle", case_exec_c2c_unknown),
    IDGPU_CASE("cufft.xtexec.destroyed_handle", case_xtexec_on_destroyed),
    IDGPU_CASE("cufft.destroy.twice", case_destroy_twice),
    IDGPU_CASE("cufft.destroy.unknown_handle", case_destroy_unknown),
    IDGPU_CASE("cufft.destroy.zero_handle", case_destroy_zero),
    IDGPU_CASE("cufft.destroy.negative_handle", case_destroy_negative),
    IDGPU_CASE("cufft.destroy.negative7_handle", case_destroy_negative7),
    IDGPU_CASE("cufft.setstream.destroyed_handle", case_setstream_destroyed),
    IDGPU_CASE("cufft.setworkarea.destroyed_handle", case_setworkarea_destroyed),
    IDGPU_CASE("cufft.setautoallocation.destroyed_handle", case_setautoalloc_destroyed),
    IDGPU_CASE("cufft.getsize.destroyed_handle", case_getsize_destroyed),
    /* cuFFT: execution */
    IDGPU_CASE("cufft.exec_c2c.valid", case_exec_c2c_valid),
    IDGPU_CASE("cufft.exec_r2c.on_c2c_plan", case_exec_r2c_on_c2c),
    IDGPU_CASE("cufft.exec_c2r.on_c2c_plan", case_exec_c2r_on_c2c),
    IDGPU_CASE("cufft.exec_z2z.on_c2c_plan", case_exec_z2z_on_c2c),
    IDGPU_CASE("cufft.exec_c2c.on_r2c_plan", case_exec_c2c_on_r2c),
    IDGPU_CASE("cufft.exec_c2r.on_r2c_plan", case_exec_c2r_on_r2c),
    IDGPU_CASE("cufft.exec_d2z.on_r2c_plan", case_exec_d2z_on_r2c),
    IDGPU_CASE("cufft.exec_r2c.on_c2r_plan", case_exec_r2c_on_c2r),
    IDGPU_CASE("cufft.exec_z2d.on_d2z_plan", case_exec_z2d_on_d2z),
    IDGPU_CASE("cufft.exec_c2c.on_z2z_plan", case_exec_c2c_on_z2z),
    IDGPU_CASE("cufft.exec_c2c.direction0", case_exec_c2c_dir0),
    IDGPU_CASE("cufft.exec_c2c.direction2", case_exec_c2c_dir2),
    IDGPU_CASE("cufft.exec_z2z.direction0", case_exec_z2z_dir0),
    IDGPU_CASE("cufft.exec_c2c.created_not_made", case_exec_created_unmade),
    /* cuFFT: may crash */
    IDGPU_CASE_ISO("cufft.plan1d.null_plan", case_plan1d_null_plan),
    IDGPU_CASE_ISO("cufft.create.null_plan", case_create_null),
    IDGPU_CASE_ISO("cufft.planmany.null_n", case_planmany_null_n),
    IDGPU_CASE_ISO("cufft.makeplan1d.null_worksize", case_make1d_null_worksize),
    IDGPU_CASE_ISO("cufft.getsize.null_worksize", case_getsize_null),
    IDGPU_CASE_ISO("cufft.getversion.null", case_getversion_null),
    IDGPU_CASE_ISO("cufft.exec_c2c.no_workarea", case_exec_without_workarea),

    /* gtsv2 */
    IDGPU_CASE_ALL("gtsv2_bufferSizeExt.valid", case_gtsv2_bs_valid),
    IDGPU_CASE_ALL("gtsv2_bufferSizeExt.m2", case_gtsv2_bs_m2),
    IDGPU_CASE_ALL("gtsv2_bufferSizeExt.m0", case_gtsv2_bs_m0),
    IDGPU_CASE_ALL("gtsv2_bufferSizeExt.n_neg", case_gtsv2_bs_n_neg),
    IDGPU_CASE_ALL("gtsv2_bufferSizeExt.ldb_lt_m", case_gtsv2_bs_ldb_lt_m),
    IDGPU_CASE_ALL("gtsv2_bufferSizeExt.null_dl", case_gtsv2_bs_null_dl),
    IDGPU_CASE_ALL("gtsv2_bufferSizeExt.null_B", case_gtsv2_bs_null_B),
    IDGPU_CASE_ALL("gtsv2.valid", case_gtsv2_valid),
    IDGPU_CASE_ALL("gtsv2.m3", case_gtsv2_m3),
    IDGPU_CASE_ALL("gtsv2.m2", case_gtsv2_m2),
    IDGPU_CASE_ALL("gtsv2.m_neg", case_gtsv2_m_neg),
    IDGPU_CASE_ALL("gtsv2.n_neg", case_gtsv2_n_neg),
    IDGPU_CASE_ALL("gtsv2.n0", case_gtsv2_n0),
    IDGPU_CASE_ALL("gtsv2.ldb_lt_m", case_gtsv2_ldb_lt_m),
    IDGPU_CASE_ALL("gtsv2.ldb0", case_gtsv2_ldb0),
    IDGPU_CASE_ALL("gtsv2.buffer_misaligned", case_gtsv2_buffer_misaligned),
    /* gtsv2_nopivot */
    IDGPU_CASE_ALL("gtsv2_nopivot_bufferSizeExt.valid", case_nopivot_bs_valid),
    IDGPU_CASE_ALL("gtsv2_nopivot_bufferSizeExt.m2", case_nopivot_bs_m2),
    IDGPU_CASE_ALL("gtsv2_nopivot_bufferSizeExt.m0", case_nopivot_bs_m0),
    IDGPU_CASE_ALL("gtsv2_nopivot_bufferSizeExt.n_neg", case_nopivot_bs_n_neg),
    IDGPU_CASE_ALL("gtsv2_nopivot_bufferSizeExt.ldb_lt_m", case_nopivot_bs_ldb_lt_m),
    IDGPU_CASE_ALL("gtsv2_nopivot_bufferSizeExt.null_dl", case_nopivot_bs_null_dl),
    IDGPU_CASE_ALL("gtsv2_nopivot_bufferSizeExt.null_B", case_nopivot_bs_null_B),
    IDGPU_CASE_ALL("gtsv2_nopivot.valid", case_nopivot_valid),
    IDGPU_CASE_ALL("gtsv2_nopivot.m3", case_nopivot_m3),
    IDGPU_CASE_ALL("gtsv2_nopivot.m2", case_nopivot_m2),
    IDGPU_CASE_ALL("gtsv2_nopivot.m_neg", case_nopivot_m_neg),
    IDGPU_CASE_ALL("gtsv2_nopivot.n_neg", case_nopivot_n_neg),
    IDGPU_CASE_ALL("gtsv2_nopivot.n0", case_nopivot_n0),
    IDGPU_CASE_ALL("gtsv2_nopivot.ldb_lt_m", case_nopivot_ldb_lt_m),
    IDGPU_CASE_ALL("gtsv2_nopivot.ldb0", case_nopivot_ldb0),
    IDGPU_CASE_ALL("gtsv2_nopivot.buffer_misaligned", case_nopivot_buffer_misaligned),
    /* gtsv2StridedBatch */
    IDGPU_CASE_ALL("gtsv2StridedBatch_bufferSizeExt.valid", case_sb_bs_valid),
    IDGPU_CASE_ALL("gtsv2StridedBatch_bufferSizeExt.m2", case_sb_bs_m2),
    IDGPU_CASE_ALL("gtsv2StridedBatch_bufferSizeExt.batch0", case_sb_bs_batch0),
    IDGPU_CASE_ALL("gtsv2StridedBatch_bufferSizeExt.batch_neg", case_sb_bs_batch_neg),
    IDGPU_CASE_ALL("gtsv2StridedBatch_bufferSizeExt.stride_lt_m", case_sb_bs_stride_lt_m),
    IDGPU_CASE_ALL("gtsv2StridedBatch_bufferSizeExt.null_x", case_sb_bs_null_x),
    IDGPU_CASE_ALL("gtsv2StridedBatch.valid", case_sb_valid),
    IDGPU_CASE_ALL("gtsv2StridedBatch.m2", case_sb_m2),
    IDGPU_CASE_ALL("gtsv2StridedBatch.m0", case_sb_m0),
    IDGPU_CASE_ALL("gtsv2StridedBatch.batch0", case_sb_batch0),
    IDGPU_CASE_ALL("gtsv2StridedBatch.batch_neg", case_sb_batch_neg),
    IDGPU_CASE_ALL("gtsv2StridedBatch.stride_lt_m", case_sb_stride_lt_m),
    IDGPU_CASE_ALL("gtsv2StridedBatch.stride_eq_m", case_sb_stride_eq_m),
    IDGPU_CASE_ALL("gtsv2StridedBatch.buffer_misaligned", case_sb_buffer_misaligned),
    /* gtsvInterleavedBatch */
    IDGPU_CASE_ALL("gtsvInterleavedBatch_bufferSizeExt.valid_algo0", case_ib_bs_valid_algo0),
    IDGPU_CASE_ALL("gtsvInterleavedBatch_bufferSizeExt.valid_algo1", case_ib_bs_valid_algo1),
    IDGPU_CASE_ALL("gtsvInterleavedBatch_bufferSizeExt.valid_algo2", case_ib_bs_valid_algo2),
    IDGPU_CASE_ALL("gtsvInterleavedBatch_bufferSizeExt.algo3", case_ib_bs_algo3),
    IDGPU_CASE_ALL("gtsvInterleavedBatch_bufferSizeExt.algo_neg", case_ib_bs_algo_neg),
    IDGPU_CASE_ALL("gtsvInterleavedBatch_bufferSizeExt.m2_algo0", case_ib_bs_m2_algo0),
    IDGPU_CASE_ALL("gtsvInterleavedBatch_bufferSizeExt.m2_algo2", case_ib_bs_m2_algo2),
    IDGPU_CASE_ALL("gtsvInterleavedBatch_bufferSizeExt.batch0", case_ib_bs_batch0),
    IDGPU_CASE_ALL("gtsvInterleavedBatch_bufferSizeExt.batch_neg", case_ib_bs_batch_neg),
    IDGPU_CASE_ALL("gtsvInterleavedBatch_bufferSizeExt.null_dl", case_ib_bs_null_dl),
    IDGPU_CASE_ALL("gtsvInterleavedBatch.valid_algo0", case_ib_valid_algo0),
    IDGPU_CASE_ALL("gtsvInterleavedBatch.valid_algo1", case_ib_valid_algo1),
    IDGPU_CASE_ALL("gtsvInterleavedBatch.valid_algo2", case_ib_valid_algo2),
    IDGPU_CASE_ALL("gtsvInterleavedBatch.algo3", case_ib_algo3),
    IDGPU_CASE_ALL("gtsvInterleavedBatch.algo_neg", case_ib_algo_neg),
    IDGPU_CASE_ALL("gtsvInterleavedBatch.m2_algo0", case_ib_m2_algo0),
    IDGPU_CASE_ALL("gtsvInterleavedBatch.m2_algo1", case_ib_m2_algo1),
    IDGPU_CASE_ALL("gtsvInterleavedBatch.m2_algo2", case_ib_m2_algo2),
    IDGPU_CASE_ALL("gtsvInterleavedBatch.batch0", case_ib_batch0),
    IDGPU_CASE_ALL("gtsvInterleavedBatch.batch_neg", case_ib_batch_neg),
    IDGPU_CASE_ALL("gtsvInterleavedBatch.buffer_misaligned_algo0", case_ib_buffer_misaligned_algo0),
    IDGPU_CASE_ALL("gtsvInterleavedBatch.buffer_misaligned_algo2", case_ib_buffer_misaligned_algo2),

    /* gtsv: may crash (NULL host output pointer) or fault the context (NULL device array or
     * buffer that is not rejected), one process each. */
    IDGPU_CASE_S_ISO("gtsv2_bufferSizeExt.null_size", case_gtsv2_bs_null_size),
    IDGPU_CASE_S_ISO("gtsv2_bufferSizeExt.null_handle", case_gtsv2_bs_null_handle),
    IDGPU_CASE_S_ISO("gtsv2.null_handle", case_gtsv2_null_handle),
    IDGPU_CASE_S_ISO("gtsv2.null_dl", case_gtsv2_null_dl),
    IDGPU_CASE_S_ISO("gtsv2.buffer_null", case_gtsv2_buffer_null),
    IDGPU_CASE_S_ISO("gtsv2_nopivot_bufferSizeExt.null_size", case_nopivot_bs_null_size),
    IDGPU_CASE_S_ISO("gtsv2_nopivot_bufferSizeExt.null_handle", case_nopivot_bs_null_handle),
    IDGPU_CASE_S_ISO("gtsv2_nopivot.null_handle", case_nopivot_null_handle),
    IDGPU_CASE_S_ISO("gtsv2_nopivot.null_dl", case_nopivot_null_dl),
    IDGPU_CASE_S_ISO("gtsv2_nopivot.buffer_null", case_nopivot_buffer_null),
    IDGPU_CASE_S_ISO("gtsv2StridedBatch_bufferSizeExt.null_size", case_sb_bs_null_size),
    IDGPU_CASE_S_ISO("gtsv2StridedBatch_bufferSizeExt.null_handle", case_sb_bs_null_handle),
    IDGPU_CASE_S_ISO("gtsv2StridedBatch.null_handle", case_sb_null_handle),
    IDGPU_CASE_S_ISO("gtsv2StridedBatch.null_dl", case_sb_null_dl),
    IDGPU_CASE_S_ISO("gtsv2StridedBatch.buffer_null", case_sb_buffer_null),
    IDGPU_CASE_S_ISO("gtsvInterleavedBatch_bufferSizeExt.null_size", case_ib_bs_null_size),
    IDGPU_CASE_S_ISO("gtsvInterleavedBatch_bufferSizeExt.null_handle", case_ib_bs_null_handle),
    IDGPU_CASE_S_ISO("gtsvInterleavedBatch.null_handle", case_ib_null_handle),
    IDGPU_CASE_S_ISO("gtsvInterleavedBatch.null_dl", case_ib_null_dl),
};

enum { IDGPU_STATUS_CASE_COUNT = (int)(sizeof(idgpu_status_cases) / sizeof(idgpu_status_cases[0])) };

static inline const IdgpuStatusCase *idgpu_find_status_case(const char *name) {
  for (int index = 0; index < IDGPU_STATUS_CASE_COUNT; ++index) {
    if (strcmp(idgpu_status_cases[index].name, name) == 0) return &idgpu_status_cases[index];
  }
  return NULL;
}

/* ---- The fixture ----------------------------------------------------------------------------- */

/* Allocates the device arrays and builds the host images. `create` / `set_stream` are the
 * vendor's cusparseCreate / cusparseSetStream (the handle is always the vendor's). Returns 0 on
 * success, else a message. */
static inline const char *idgpu_status_fixture_init(IdgpuStatusFixture *f, const IdgpuTestApi *vendor_handles) {
  memset(f, 0, sizeof(*f));
  if (cudaStreamCreateWithFlags(&f->stream, cudaStreamNonBlocking) != cudaSuccess) return "cudaStreamCreate failed";
  void **arrays[6] = {&f->dl, &f->d, &f->du, &f->x, &f->fft_in, &f->fft_out};
  for (int index = 0; index < 6; ++index) {
    if (cudaMalloc(arrays[index], IDGPU_CASE_ARRAY_BYTES) != cudaSuccess) return "cudaMalloc failed";
  }
  if (cudaMalloc(&f->buffer, IDGPU_CASE_BUFFER_BYTES) != cudaSuccess) return "cudaMalloc (buffer) failed";
  if (cudaMemset(f->buffer, 0, IDGPU_CASE_BUFFER_BYTES) != cudaSuccess) return "cudaMemset failed";
  if (vendor_handles->cusparseCreate(&f->sparse) != CUSPARSE_STATUS_SUCCESS) return "cusparseCreate failed";
  if (vendor_handles->cusparseSetStream(f->sparse, f->stream) != CUSPARSE_STATUS_SUCCESS) return "cusparseSetStream failed";

  /* FFT inputs: random single/double values over the whole array (any type reads valid data). */
  {
    unsigned long long state = idgpu_test_seed("status.fft");
    unsigned char *host = (unsigned char *)malloc(IDGPU_CASE_ARRAY_BYTES);
    if (host == NULL) return "malloc failed";
    idgpu_test_fill_random(host, IDGPU_CASE_ARRAY_BYTES / 4, 4, &state);
    cudaMemcpy(f->fft_in, host, IDGPU_CASE_ARRAY_BYTES, cudaMemcpyHostToDevice);
    cudaMemcpy(f->fft_out, host, IDGPU_CASE_ARRAY_BYTES, cudaMemcpyHostToDevice);
    free(host);
  }
  /* gtsv: every element diagonally dominant, in each precision. */
  for (int prec = 0; prec < IDGPU_TEST_PREC_COUNT; ++prec) {
    unsigned long long state = idgpu_test_seed("status.gtsv") + (unsigned long long)prec;
    const size_t element = (size_t)idgpu_test_prec_scalar_bytes[prec] * (size_t)idgpu_test_prec_components[prec];
    const size_t count = IDGPU_CASE_REFILL_BYTES / element;
    for (int which = 0; which < 4; ++which) {
      f->image[prec][which] = (unsigned char *)malloc(IDGPU_CASE_REFILL_BYTES);
      if (f->image[prec][which] == NULL) return "malloc failed";
    }
    for (size_t index = 0; index < count; ++index) {
      idgpu_test_tridiag_element(f->image[prec][0], f->image[prec][1], f->image[prec][2], index, prec, 0, 0, &state);
    }
    idgpu_test_fill_random(f->image[prec][3], count * (size_t)idgpu_test_prec_components[prec],
                           idgpu_test_prec_scalar_bytes[prec], &state);
  }
  return NULL;
}

/* Restores the gtsv arrays (a solve overwrites x, an interleaved solve its diagonals too). */
static inline void idgpu_status_fixture_refill(IdgpuStatusFixture *f, int prec) {
  void *arrays[4] = {f->dl, f->d, f->du, f->x};
  cudaStreamSynchronize(f->stream);
  for (int which = 0; which < 4; ++which) {
    cudaMemcpy(arrays[which], f->image[prec][which], IDGPU_CASE_REFILL_BYTES, cudaMemcpyHostToDevice);
  }
}

#ifdef __cplusplus
}
#endif

#endif /* IDGPU_TESTS_STATUS_CASES_H */
