/* idgpu: the library's own C API, beside the cuFFT and cuSPARSE APIs it serves.
 *
 * Version, dispatch policy and dispatch statistics. The same controls exist as environment
 * variables (IDGPU_POLICY, IDGPU_REPORT, IDGPU_LOG), read once when the library loads; the calls
 * here change or read them at run time.
 */
#ifndef IDGPU_IDGPU_H
#define IDGPU_IDGPU_H

#include <cuComplex.h>
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdio.h>

#include "idgpu/version.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum idgpuStatus_t {
  IDGPU_STATUS_SUCCESS = 0,
  IDGPU_STATUS_INVALID_VALUE = 1,
  IDGPU_STATUS_NOT_FOUND = 2,
  IDGPU_STATUS_EXECUTION_FAILED = 3
} idgpuStatus_t;

/* Which side serves a call: ours where it is faster (the default), always the vendor, or ours
 * wherever a native path exists (the vendor elsewhere, with a log line). */
typedef enum idgpuPolicy_t {
  IDGPU_POLICY_AUTO = 0,
  IDGPU_POLICY_VENDOR = 1,
  IDGPU_POLICY_NATIVE = 2
} idgpuPolicy_t;

/* Which vendor library a call concerns. */
typedef enum idgpuVendorLibrary_t {
  IDGPU_VENDOR_CUFFT = 0,
  IDGPU_VENDOR_CUSPARSE = 1
} idgpuVendorLibrary_t;

/* Dispatch statistics of one exported vendor function. gpuMilliseconds and timedCalls are
 * filled only when IDGPU_REPORT=timing. */
typedef struct idgpuCallStats_t {
  const char *name;
  unsigned long long calls;
  unsigned long long nativeCalls;
  unsigned long long vendorCalls;
  unsigned long long failedCalls;
  unsigned long long timedCalls;
  double gpuMilliseconds;
} idgpuCallStats_t;

/* IDGPU_VERSION_MAJOR * 10000 + IDGPU_VERSION_MINOR * 100 + IDGPU_VERSION_PATCH of the loaded
 * library (which may differ from the header's IDGPU_VERSION). */
int idgpuGetVersion(void);
const char *idgpuGetVersionString(void);

idgpuStatus_t idgpuSetPolicy(idgpuPolicy_t policy);
idgpuStatus_t idgpuGetPolicy(idgpuPolicy_t *policy);

/* FFT kernels compiled at run time (IDGPU_FFT_RUNTIME_KERNELS): the radix sequences whose kernels
 * this process has loaded, and the launches made on them so far. Either pointer may be NULL. */
idgpuStatus_t idgpuGetFftRuntimeKernelStats(int *loaded, long long *launches);

/* Which native algorithm cusparse?gtsv2_nopivot runs when the dispatch serves it natively: the
 * one measured fastest on the device class (AUTO, the default: the partition solver), or one of the
 * others, for comparison. Every one solves the same systems (diagonally dominant, no pivoting) to
 * the same accuracy. IDGPU_TRIDIAG_SOLVER=auto|partition|wang-mou|pcr-thomas sets the initial
 * value. Whether a call runs natively at all is still the policy's decision. */
typedef enum idgpuTridiagSolver_t {
  IDGPU_TRIDIAG_SOLVER_AUTO = 0,
  IDGPU_TRIDIAG_SOLVER_PARTITION = 1, /* chunks in registers, separators reduced by cyclic reduction */
  IDGPU_TRIDIAG_SOLVER_WANG_MOU = 2,  /* multi-stage Wang-Mou divide and conquer (Dieguez et al.) */
  IDGPU_TRIDIAG_SOLVER_PCR_THOMAS = 3 /* k steps of tiled PCR, then p-Thomas (Kim et al.) */
} idgpuTridiagSolver_t;

idgpuStatus_t idgpuSetTridiagSolver(idgpuTridiagSolver_t solver);
idgpuStatus_t idgpuGetTridiagSolver(idgpuTridiagSolver_t *solver);

/* The functions with statistics are numbered 0 .. idgpuGetCallStatsCount()-1. */
int idgpuGetCallStatsCount(void);
idgpuStatus_t idgpuGetCallStats(int index, idgpuCallStats_t *stats);
/* By exported name, e.g. "cufftExecC2C"; IDGPU_STATUS_NOT_FOUND for a name we do not export. */
idgpuStatus_t idgpuGetCallStatsByName(const char *name, idgpuCallStats_t *stats);
idgpuStatus_t idgpuResetCallStats(void);
/* Writes the dispatch report (as printed at exit with IDGPU_REPORT=1) to stream. */
idgpuStatus_t idgpuWriteReport(FILE *stream);
/* The same report as one JSON object (as written at exit with IDGPU_REPORT=json): "pid",
 * "version", "device" ({"name", "compute_capability"} where the calling thread has a CUDA
 * context, else null), "timing", "functions" (per function: "function", "calls", "native",
 * "vendor", "failed", and with IDGPU_REPORT=timing "gpu_ms" and "timed"), "rows" (per function,
 * side, problem shape and reason: "function", "path" ("native", "vendor" or "none": refused before
 * dispatch), "shape", "reason", "calls", "failed") and "unserved_vendor_libraries". */
idgpuStatus_t idgpuWriteReportJson(FILE *stream);
/* The JSON report into a caller's buffer, NUL-terminated. *length receives the size it needs (the
 * text and its NUL). buffer may be NULL (size 0) to ask for that size; a buffer smaller than it is
 * left untouched and gives IDGPU_STATUS_INVALID_VALUE (calls in between may lengthen the report: ask
 * again). IDGPU_STATUS_INVALID_VALUE also for a NULL length. */
idgpuStatus_t idgpuGetReportJson(char *buffer, size_t size, size_t *length);

/* The path of the vendor library calls are forwarded to, loading it if needed; NULL when it
 * cannot be found (the log says where it looked). */
const char *idgpuGetVendorLibraryPath(idgpuVendorLibrary_t library);

/* Variable-size batched tridiagonal solve, which the vendor does not offer (no pivoting, as
 * cuThomasVBatch: for diagonally dominant systems; solved by the same partition solver as
 * gtsvInterleavedBatch algo 0).
 *
 * The layout is gtsvInterleavedBatch's padded to maxM rows: element i of system j is at
 * i*batchCount + j, for i < maxM. System j has sizes[j] equations (sizes: a device array of
 * batchCount ints); rows i >= sizes[j] are padding and are neither read nor written, so whatever
 * they hold (NaN included) cannot reach a solution. dl[j] (row 0) and the last row's du are
 * ignored. x holds the right-hand sides and receives the solutions; dl, d and du are not written.
 * Systems longer than one block holds need scratch, allocated and freed on `stream`
 * (cudaMallocAsync). A system whose size is outside 1..maxM is left untouched.
 * Enqueued on `stream` without host synchronisation (capturable in a CUDA graph).
 * IDGPU_STATUS_INVALID_VALUE for maxM < 0, batchCount < 0 or a null pointer;
 * IDGPU_STATUS_EXECUTION_FAILED when the launch fails (no device, bad pointers). */
idgpuStatus_t idgpuSgtsvInterleavedVarBatch(cudaStream_t stream, int maxM, const int *sizes, const float *dl,
                                            const float *d, float *du, float *x, int batchCount);
idgpuStatus_t idgpuDgtsvInterleavedVarBatch(cudaStream_t stream, int maxM, const int *sizes, const double *dl,
                                            const double *d, double *du, double *x, int batchCount);
idgpuStatus_t idgpuCgtsvInterleavedVarBatch(cudaStream_t stream, int maxM, const int *sizes, const cuComplex *dl,
                                            const cuComplex *d, cuComplex *du, cuComplex *x, int batchCount);
idgpuStatus_t idgpuZgtsvInterleavedVarBatch(cudaStream_t stream, int maxM, const int *sizes,
                                            const cuDoubleComplex *dl, const cuDoubleComplex *d,
                                            cuDoubleComplex *du, cuDoubleComplex *x, int batchCount);

/* FFT Poisson solver: the second-order finite-difference Poisson equation Lap_h u = f on an
 * nx x ny x nz grid (nz = 1: a 2D grid), in device memory, with a plan object as cuFFT's.
 *
 * Layout: f and u hold element (x, y, z) at (z * ny + y) * nx + x (x contiguous), in the plan's
 * precision. The discrete operator, for spacings hx, hy, hz:
 *   (u[x-1] - 2 u[x] + u[x+1]) / hx^2 + (the same along y) + (the same along z),
 * periodic in x and y. In z (the boundary given at creation):
 *  - IDGPU_POISSON_PERIODIC: periodic, nz points z_k = k hz;
 *  - IDGPU_POISSON_NEUMANN: nz >= 2 points z_k = k hz on [0, (nz - 1) hz], du/dz = 0 at both ends
 *    (mirrored ghost points u[-1] = u[1], u[nz] = u[nz-2]);
 *  - IDGPU_POISSON_DIRICHLET: nz interior points z_k = (k + 1) hz of [0, (nz + 1) hz], u = 0 at
 *    both ends (nz = 1 too: one plane between two zero walls, its -2 u / hz^2 term kept).
 * A 2D grid is nz = 1 with periodic z (the x-y plane), or ny = 1 (an x-z plane, any z boundary).
 * The algorithm: real-to-complex FFTs along x and y; periodic z: the FFT along z, the division by
 * the operator's eigenvalues and the inverse FFT along z in one kernel (the eigenvalues computed
 * from the indices, the normalisation folded in); Neumann or Dirichlet z: one tridiagonal system
 * along z per (kx, ky), solved in one kernel; then the inverse FFTs along y and x. The FFTs are
 * idgpu's cuFFT plans (native where the dispatch policy serves them natively).
 *
 * The zero mode: periodic everywhere, or Neumann in z, the operator is singular (constants are in
 * its null space) and Lap_h u = f has a solution only when f's weighted mean is zero (weights 1,
 * with Neumann 1/2 on the first and last z planes). The solver solves for f minus that mean and
 * returns the solution whose weighted mean is the plan's mean value (0 unless set by
 * idgpuPoissonSetMean). With Dirichlet in z nothing is removed and the mean value is unused.
 *
 * Execution is enqueued on the plan's stream (default: the legacy default stream) without host
 * synchronisation, and can be captured in a CUDA graph. f and u may be the same array; f is not
 * written otherwise. A plan is used by one host thread at a time; different plans on different
 * threads run independently. */
typedef struct idgpuPoissonPlan *idgpuPoissonPlan_t;

typedef enum idgpuPoissonBoundary_t {
  IDGPU_POISSON_PERIODIC = 0,
  IDGPU_POISSON_NEUMANN = 1,
  IDGPU_POISSON_DIRICHLET = 2
} idgpuPoissonBoundary_t;

typedef enum idgpuPrecision_t {
  IDGPU_PRECISION_SINGLE = 0,
  IDGPU_PRECISION_DOUBLE = 1
} idgpuPrecision_t;

/* Creates a plan on the current device, with its device memory (the half spectrum, about
 * nx * ny * nz reals, and small tables; idgpuPoissonGetWorkSize). nx >= 2, ny >= 1, nz >= 1
 * (nz >= 2 with Neumann), nx * ny * nz < 2^31, spacings positive and finite.
 * IDGPU_STATUS_INVALID_VALUE for bad arguments (nothing created, *plan untouched);
 * IDGPU_STATUS_EXECUTION_FAILED when device memory or an FFT plan cannot be had. */
idgpuStatus_t idgpuPoissonCreate(idgpuPoissonPlan_t *plan, int nx, int ny, int nz, double hx, double hy, double hz,
                                 idgpuPoissonBoundary_t zBoundary, idgpuPrecision_t precision);
idgpuStatus_t idgpuPoissonDestroy(idgpuPoissonPlan_t plan);
idgpuStatus_t idgpuPoissonSetStream(idgpuPoissonPlan_t plan, cudaStream_t stream);
/* The weighted mean of the solution of a singular problem (see above); finite. */
idgpuStatus_t idgpuPoissonSetMean(idgpuPoissonPlan_t plan, double mean);
/* Bytes of device memory the plan holds. */
idgpuStatus_t idgpuPoissonGetWorkSize(idgpuPoissonPlan_t plan, size_t *bytes);
/* Solves for u. IDGPU_STATUS_INVALID_VALUE for a null plan or pointer, or the other precision's
 * call (nothing written); IDGPU_STATUS_EXECUTION_FAILED when a launch fails. */
idgpuStatus_t idgpuPoissonExecS(idgpuPoissonPlan_t plan, const float *f, float *u);
idgpuStatus_t idgpuPoissonExecD(idgpuPoissonPlan_t plan, const double *f, double *u);

/* Out-of-core FFT: a complex-to-complex transform of data in host memory, which may be far larger
 * than the device's memory, in place. The data cross the bus in chunks through pinned staging
 * buffers, the copies in both directions overlapped with the transforms on several streams (J.
 * Wu's pipeline, "Optimization Techniques for Mapping Algorithms and Applications onto CUDA GPU
 * Platforms and CPU-GPU Heterogeneous Platforms", PhD thesis, University of Maryland, 2014,
 * chapter 4). A 3D array [n0][n1][n2] (n2 contiguous; n0 = 1 for a 2D one) moves once each way
 * where the whole array fits one staging slot (a budget of about six times its bytes: three slots,
 * each with an FFT work area as large), otherwise twice: slabs of whole n1 x n2 planes (axes 1
 * and 2), then pencils of n0 x W elements (axis 0). `batch` 1D transforms of n points move once, in
 * chunks of whole transforms. The budget does not count cuFFT's own plan memory (twiddle tables).
 *
 * deviceBytes is the device memory the plan may use (staging slots and the FFTs' work areas): 0
 * takes IDGPU_OOC_DEVICE_BYTES where set, else 80% of the free device memory. The sign and the
 * scaling are cuFFT's (IDGPU_OOC_FORWARD = -1, IDGPU_OOC_INVERSE = +1, unnormalised). Elements are
 * cuComplex (single) or cuDoubleComplex (double). idgpuOocExec returns when the result is in
 * `data` (synchronous), which may be pageable or pinned host memory (device memory is refused).
 * Device and pinned buffers are allocated when the plan is made; execs of one plan are serialised.
 * IDGPU_STATUS_INVALID_VALUE for bad arguments or a budget too small for the least chunk (the
 * log line says the least budget); IDGPU_STATUS_EXECUTION_FAILED when device memory, pinned memory
 * or a launch fails (the data may then be partly transformed). */
typedef struct idgpuOocPlan *idgpuOocPlan_t;
#define IDGPU_OOC_FORWARD (-1)
#define IDGPU_OOC_INVERSE 1

idgpuStatus_t idgpuOocPlan3d(idgpuOocPlan_t *plan, long long n0, long long n1, long long n2,
                             idgpuPrecision_t precision, size_t deviceBytes);
idgpuStatus_t idgpuOocPlanMany1d(idgpuOocPlan_t *plan, long long n, long long batch, idgpuPrecision_t precision,
                                 size_t deviceBytes);
/* How the plan moves the data: round trips over the bus (1 or 2; 0 when every axis has one point)
 * and chunks in all. IDGPU_STATUS_INVALID_VALUE for a null argument. */
idgpuStatus_t idgpuOocGetSchedule(idgpuOocPlan_t plan, int *roundTrips, long long *chunks);
idgpuStatus_t idgpuOocExec(idgpuOocPlan_t plan, void *data, int direction);
idgpuStatus_t idgpuOocDestroy(idgpuOocPlan_t plan);

/* Out-of-core real transforms, cuFFT's R2C / C2R (single) and D2Z / Z2D (double) of data in host
 * memory: a 3D real array [n0][n1][n2] (n2 contiguous, n2 >= 2; n0 = 1 for a 2D one) and its half
 * spectrum [n0][n1][n2 / 2 + 1] complex, or `batch` 1D transforms of n >= 2 reals and their n / 2 + 1
 * complex values each. The plan is made with idgpuOocPlanReal3d / idgpuOocPlanRealMany1d and run with
 * idgpuOocExecR2C / idgpuOocExecC2R (idgpuOocExec refuses it, as these refuse a complex plan).
 * It is scheduled as the complex plan of the half spectrum's shape (idgpuOocGetSchedule reports that
 * schedule, the same for both directions): the real
 * side crosses the bus in the slabs (or batches) that transform axis n2, rows padded on the device
 * to 2 (n2 / 2 + 1) reals; a forward transform runs the slabs first, an inverse one last.
 *  - out of place (in != out): the real array's rows are n2 reals apart, as cuFFT's basic layout;
 *  - in place (in == out): cuFFT's padded layout, real rows 2 (n2 / 2 + 1) reals apart.
 * idgpuOocExecR2C does not write `in` out of place. idgpuOocExecC2R may overwrite `in` (with two
 * round trips its axis-0 pass runs in place in it), as cuFFT's multi-dimensional C2R may. Unnormalised,
 * synchronous, pageable or pinned host memory as idgpuOocExec. */
idgpuStatus_t idgpuOocPlanReal3d(idgpuOocPlan_t *plan, long long n0, long long n1, long long n2,
                                 idgpuPrecision_t precision, size_t deviceBytes);
idgpuStatus_t idgpuOocPlanRealMany1d(idgpuOocPlan_t *plan, long long n, long long batch, idgpuPrecision_t precision,
                                     size_t deviceBytes);
idgpuStatus_t idgpuOocExecR2C(idgpuOocPlan_t plan, const void *in, void *out);
idgpuStatus_t idgpuOocExecC2R(idgpuOocPlan_t plan, void *in, void *out);

/* The out-of-core Poisson solve: idgpuPoisson*'s problem (the same operator, boundaries, layout and
 * zero mode; nx >= 2, ny >= 1, nz >= 2 here, 64-bit sizes) with f and u in host memory (pageable or
 * pinned; f == u allowed), larger than the device where need be, within a device budget
 * (deviceBytes: as idgpuOocPlan3d's). Where the in-core solver's memory (about three times the data)
 * fits the budget, the data cross the bus once each way around an in-core solve. Otherwise in three
 * round trips through the plan's host copy of the half spectrum (nz * ny * (nx / 2 + 1) complex
 * values, pinned where the system grants it; idgpuOocPoissonGetHostBytes): slabs of xy planes
 * (real-to-complex FFTs), pencils of whole z columns (the periodic z FFT, the eigenvalue division
 * and the inverse z FFT; or the z systems with Neumann / Dirichlet z), slabs of xy planes
 * (complex-to-real FFTs). The budget holds the slots, the FFTs' work areas and the z solve's scratch
 * (not cuFFT's plan tables or the solver's small eigenvalue tables). f is not written unless it is u.
 * Synchronous; one exec of a plan at a time.
 * IDGPU_STATUS_INVALID_VALUE for bad arguments or a budget too small for the least chunk;
 * IDGPU_STATUS_EXECUTION_FAILED when memory or a launch fails (u may then be partly written). */
typedef struct idgpuOocPoissonPlan *idgpuOocPoissonPlan_t;

idgpuStatus_t idgpuOocPoissonCreate(idgpuOocPoissonPlan_t *plan, long long nx, long long ny, long long nz, double hx,
                                    double hy, double hz, idgpuPoissonBoundary_t zBoundary,
                                    idgpuPrecision_t precision, size_t deviceBytes);
idgpuStatus_t idgpuOocPoissonSetMean(idgpuOocPoissonPlan_t plan, double mean);
/* Round trips over the bus (1 or 3) and device chunks in all (1 for the in-core solve). */
idgpuStatus_t idgpuOocPoissonGetSchedule(idgpuOocPoissonPlan_t plan, int *roundTrips, long long *chunks);
/* Host bytes the plan holds for the half spectrum (0 for the in-core solve). */
idgpuStatus_t idgpuOocPoissonGetHostBytes(idgpuOocPoissonPlan_t plan, size_t *bytes);
/* f and u: nx * ny * nz reals of the plan's precision. */
idgpuStatus_t idgpuOocPoissonExec(idgpuOocPoissonPlan_t plan, const void *f, void *u);
idgpuStatus_t idgpuOocPoissonDestroy(idgpuOocPoissonPlan_t plan);

#ifdef __cplusplus
}
#endif

#endif /* IDGPU_IDGPU_H */
