// The two sides' function tables, filled with dlsym: the benchmark links neither cuFFT nor
// cuSPARSE, so the vendor side is exactly the vendor library loaded by SONAME and the idgpu side
// exactly libidgpu, with the same names looked up in each.
#pragma once

#include <cufft.h>
#include <cusparse.h>

#include <string>
#include <vector>

#include "idgpu/idgpu.h"

namespace idgpu_bench {

// The cuFFT calls the benchmark makes, on either side.
#define IDGPU_BENCH_CUFFT_FUNCTIONS(X) \
  X(cufftPlanMany)                     \
  X(cufftSetStream)                    \
  X(cufftDestroy)                      \
  X(cufftExecC2C)                      \
  X(cufftExecZ2Z)                      \
  X(cufftExecR2C)                      \
  X(cufftExecC2R)                      \
  X(cufftExecD2Z)                      \
  X(cufftExecZ2D)                      \
  X(cufftGetVersion)

// The cuSPARSE tridiagonal calls (all four precisions: S, D, C, Z), on either side.
#define IDGPU_BENCH_GTSV_FUNCTIONS(X)            \
  X(cusparseSgtsv2_bufferSizeExt)                \
  X(cusparseDgtsv2_bufferSizeExt)                \
  X(cusparseCgtsv2_bufferSizeExt)                \
  X(cusparseZgtsv2_bufferSizeExt)                \
  X(cusparseSgtsv2)                              \
  X(cusparseDgtsv2)                              \
  X(cusparseCgtsv2)                              \
  X(cusparseZgtsv2)                              \
  X(cusparseSgtsv2_nopivot_bufferSizeExt)        \
  X(cusparseDgtsv2_nopivot_bufferSizeExt)        \
  X(cusparseCgtsv2_nopivot_bufferSizeExt)        \
  X(cusparseZgtsv2_nopivot_bufferSizeExt)        \
  X(cusparseSgtsv2_nopivot)                      \
  X(cusparseDgtsv2_nopivot)                      \
  X(cusparseCgtsv2_nopivot)                      \
  X(cusparseZgtsv2_nopivot)                      \
  X(cusparseSgtsv2StridedBatch_bufferSizeExt)    \
  X(cusparseDgtsv2StridedBatch_bufferSizeExt)    \
  X(cusparseCgtsv2StridedBatch_bufferSizeExt)    \
  X(cusparseZgtsv2StridedBatch_bufferSizeExt)    \
  X(cusparseSgtsv2StridedBatch)                  \
  X(cusparseDgtsv2StridedBatch)                  \
  X(cusparseCgtsv2StridedBatch)                  \
  X(cusparseZgtsv2StridedBatch)                  \
  X(cusparseSgtsvInterleavedBatch_bufferSizeExt) \
  X(cusparseDgtsvInterleavedBatch_bufferSizeExt) \
  X(cusparseCgtsvInterleavedBatch_bufferSizeExt) \
  X(cusparseZgtsvInterleavedBatch_bufferSizeExt) \
  X(cusparseSgtsvInterleavedBatch)               \
  X(cusparseDgtsvInterleavedBatch)               \
  X(cusparseCgtsvInterleavedBatch)               \
  X(cusparseZgtsvInterleavedBatch)

// cuSPARSE calls only the vendor serves: libidgpu exports the gtsv entry points and nothing
// else of cuSPARSE, so both sides share one handle made by the vendor library (valid for
// libidgpu because it forwards to this very instance; main() checks that).
#define IDGPU_BENCH_VENDOR_SPARSE_FUNCTIONS(X) \
  X(cusparseCreate)                            \
  X(cusparseDestroy)                           \
  X(cusparseSetStream)                         \
  X(cusparseGetErrorString)                    \
  X(cusparseGetProperty)

// The out-of-core calls the ooc cases make (ooc_cases.cpp), one list per kind of case: the complex
// FFT's, what the real transforms add to it, and the Poisson solve's. Each list names exactly what
// its cases need, so that a missing symbol makes those cases, and only those, unavailable.
#define IDGPU_BENCH_IDGPU_OOC_FFT_FUNCTIONS(X) \
  X(idgpuOocPlan3d)                            \
  X(idgpuOocPlanMany1d)                        \
  X(idgpuOocGetSchedule)                       \
  X(idgpuOocExec)                              \
  X(idgpuOocDestroy)
#define IDGPU_BENCH_IDGPU_OOC_REAL_FUNCTIONS(X) \
  X(idgpuOocPlanReal3d)                         \
  X(idgpuOocPlanRealMany1d)                     \
  X(idgpuOocExecR2C)                            \
  X(idgpuOocExecC2R)
#define IDGPU_BENCH_IDGPU_OOC_POISSON_FUNCTIONS(X) \
  X(idgpuOocPoissonCreate)                         \
  X(idgpuOocPoissonGetSchedule)                    \
  X(idgpuOocPoissonExec)                           \
  X(idgpuOocPoissonDestroy)

// idgpu's own API (include/idgpu/idgpu.h); the idgpuPoisson* calls are the idgpu side of the
// Poisson cases (their vendor side is cuFFT and cuSPARSE, through the tables above), and the
// in-core time printed beside the out-of-core Poisson cases; the idgpuOoc* calls the ooc cases'
// only side (their reference is the bus).
#define IDGPU_BENCH_IDGPU_FUNCTIONS(X)    \
  X(idgpuGetVersionString)                \
  X(idgpuGetVendorLibraryPath)            \
  X(idgpuWriteReport)                     \
  X(idgpuResetCallStats)                  \
  X(idgpuGetPolicy)                       \
  X(idgpuGetTridiagSolver)                \
  X(idgpuPoissonCreate)                   \
  X(idgpuPoissonDestroy)                  \
  X(idgpuPoissonSetStream)                \
  X(idgpuPoissonExecS)                    \
  X(idgpuPoissonExecD)                    \
  IDGPU_BENCH_IDGPU_OOC_FFT_FUNCTIONS(X)  \
  IDGPU_BENCH_IDGPU_OOC_REAL_FUNCTIONS(X) \
  IDGPU_BENCH_IDGPU_OOC_POISSON_FUNCTIONS(X)

#define IDGPU_BENCH_POINTER_(name) decltype(&::name) name = nullptr;

struct CufftApi {
  IDGPU_BENCH_CUFFT_FUNCTIONS(IDGPU_BENCH_POINTER_)
  std::vector<std::string> missing;
};

struct GtsvApi {
  IDGPU_BENCH_GTSV_FUNCTIONS(IDGPU_BENCH_POINTER_)
  std::vector<std::string> missing;
};

struct VendorSparseApi {
  IDGPU_BENCH_VENDOR_SPARSE_FUNCTIONS(IDGPU_BENCH_POINTER_)
  std::vector<std::string> missing;
};

struct IdgpuApi {
  IDGPU_BENCH_IDGPU_FUNCTIONS(IDGPU_BENCH_POINTER_)
  std::vector<std::string> missing;
};

#undef IDGPU_BENCH_POINTER_

// One dlopen'ed library.
struct LoadedLibrary {
  void* handle = nullptr;
  std::string path;   // as the loader reports it
  std::string error;  // why it could not be opened
};

struct Libraries {
  LoadedLibrary vendor_cufft;
  LoadedLibrary vendor_cusparse;
  LoadedLibrary idgpu;
  CufftApi cufft[2];  // [Side]
  GtsvApi gtsv[2];
  VendorSparseApi vendor_sparse;
  IdgpuApi idgpu_api;
  // Empty when the family can run; otherwise why not (missing symbols, different instances).
  std::string fft_unavailable;
  std::string gtsv_unavailable;
  // The Poisson cases need the vendor cuFFT and libidgpu's idgpuPoisson* (those with Neumann or
  // Dirichlet z the vendor cuSPARSE handle too: a case without it fails in its setup).
  std::string poisson_unavailable;
  // The out-of-core cases need libidgpu only (no vendor library has out-of-core transforms): the
  // complex FFT's calls; the real transforms' and those; the Poisson solve's.
  std::string ooc_fft_unavailable;
  std::string ooc_real_unavailable;
  std::string ooc_poisson_unavailable;
  std::string fft_warning;  // the FFT sides run, but libidgpu forwards to another cuFFT instance
};

// Opens a vendor library: `override_path` if given, else by SONAME (the system's search), then
// in the toolkit the benchmark was built against and the usual CUDA locations.
LoadedLibrary open_vendor_library(const char* soname, const std::string& override_path);
// Opens libidgpu: `override_path` if given, else relative to this executable.
LoadedLibrary open_idgpu_library(const std::string& override_path);
// Opens everything, fills the tables and checks that libidgpu forwards to the same vendor
// instances. Returns false (with `error`) only when nothing can be benchmarked.
bool load_libraries(const std::string& cufft_override, const std::string& cusparse_override,
                    const std::string& idgpu_override, Libraries* libraries, std::string* error);

// The real path of the object that defines `address` (empty if unknown).
std::string object_path_of(const void* address);

}  // namespace idgpu_bench
