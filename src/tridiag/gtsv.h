// The cuSPARSE tridiagonal API behind the exported entry points: validation with the vendor's
// status codes, then the dispatch point where native solvers plug in, then the vendor.
//
// One function template per family of shim/gtsv_api.def, over the element type T; each takes
// the vendor's entry point for its (precision, shape) as its first argument.
#pragma once

#include <cuComplex.h>
#include <cusparse.h>

#include <cstdint>
#include <type_traits>

#include "core/api.h"
#include "core/stats.h"
#include "core/vendor.h"

namespace idgpu::tridiag {

enum class Layout : int { kSingle = 0, kSingleNopivot = 1, kStrided = 2, kInterleaved = 3 };

// The canonical tridiagonal problem a dispatch decision is made on.
struct Problem {
  Layout layout;
  int element_bytes;  // 4, 8, 8 (complex float) or 16
  bool complex;
  int m;
  int n;      // right-hand sides (gtsv2, gtsv2_nopivot)
  int ldb;    // leading dimension of B
  int batch;  // batchCount (batched layouts)
  int batch_stride;
  int algo;  // gtsvInterleavedBatch
};

// pBuffer is not judged here: the vendor documents a 128-byte alignment but accepts any pointer
// (measured: gtsv2StridedBatch with pBuffer + 64 returns success), and a size-0 buffer may be
// null. A native solver that needs alignment aligns inside the buffer it asks for.

// Validation, exactly the vendor's status codes (checked against the vendor on the GPU).
// Returns CUSPARSE_STATUS_SUCCESS when the arguments are valid.
cusparseStatus_t validate(const Problem& problem, bool has_handle);

// Native solvers register here as they land; null with `reason` set when the vendor serves it.
// (The solver interface follows once the first native solver exists.)
const char* native_solver_for(const Problem& problem, const char** reason);

constexpr cusparseStatus_t kVendorMissing = CUSPARSE_STATUS_NOT_INITIALIZED;

template <class T>
constexpr bool is_complex() {
  return std::is_same<T, cuComplex>::value || std::is_same<T, cuDoubleComplex>::value;
}

template <class T>
Problem make_problem(Layout layout) {
  Problem problem{};
  problem.layout = layout;
  problem.element_bytes = static_cast<int>(sizeof(T));
  problem.complex = is_complex<T>();
  return problem;
}

// Runs the vendor entry point for a validated problem, or reports why it cannot.
// The stream a cuSPARSE handle runs on (for timing only).
cudaStream_t stream_of(cusparseHandle_t handle);

template <class Fn, class... Args>
cusparseStatus_t serve(Call& call, const Problem& problem, Fn vendor_fn, cusparseHandle_t handle, Args... args) {
  const char* reason = "";
  native_solver_for(problem, &reason);
  // No native solver is registered yet: every valid call is the vendor's.
  call.path = Path::kVendor;
  call.reason = reason;
  if (vendor_fn == nullptr) return kVendorMissing;
  stats::GpuTimer timer(call.api, stats::timing_enabled() ? stream_of(handle) : nullptr);
  return vendor_fn(handle, args...);
}

template <class T, class Fn>
cusparseStatus_t gtsv2_buffer_size(Call& call, Fn vendor_fn, Layout layout, cusparseHandle_t handle, int m, int n,
                                   const T* dl, const T* d, const T* du, const T* B, int ldb, size_t* size) {
  Problem problem = make_problem<T>(layout);
  problem.m = m;
  problem.n = n;
  problem.ldb = ldb;
  if (const auto status = validate(problem, handle != nullptr); status != CUSPARSE_STATUS_SUCCESS) return status;
  if (size == nullptr) return CUSPARSE_STATUS_INVALID_VALUE;
  return serve(call, problem, vendor_fn, handle, m, n, dl, d, du, B, ldb, size);
}

template <class T, class Fn>
cusparseStatus_t gtsv2_solve(Call& call, Fn vendor_fn, Layout layout, cusparseHandle_t handle, int m, int n,
                             const T* dl, const T* d, const T* du, T* B, int ldb, void* buffer) {
  Problem problem = make_problem<T>(layout);
  problem.m = m;
  problem.n = n;
  problem.ldb = ldb;
  if (const auto status = validate(problem, handle != nullptr); status != CUSPARSE_STATUS_SUCCESS) return status;
  if (dl == nullptr || d == nullptr || du == nullptr || B == nullptr) {
    return CUSPARSE_STATUS_INVALID_VALUE;
  }
  return serve(call, problem, vendor_fn, handle, m, n, dl, d, du, B, ldb, buffer);
}

template <class T, class Fn>
cusparseStatus_t strided_buffer_size(Call& call, Fn vendor_fn, cusparseHandle_t handle, int m, const T* dl,
                                     const T* d, const T* du, const T* x, int batch, int stride, size_t* size) {
  Problem problem = make_problem<T>(Layout::kStrided);
  problem.m = m;
  problem.batch = batch;
  problem.batch_stride = stride;
  if (const auto status = validate(problem, handle != nullptr); status != CUSPARSE_STATUS_SUCCESS) return status;
  if (size == nullptr) return CUSPARSE_STATUS_INVALID_VALUE;
  return serve(call, problem, vendor_fn, handle, m, dl, d, du, x, batch, stride, size);
}

template <class T, class Fn>
cusparseStatus_t strided_solve(Call& call, Fn vendor_fn, cusparseHandle_t handle, int m, const T* dl, const T* d,
                               const T* du, T* x, int batch, int stride, void* buffer) {
  Problem problem = make_problem<T>(Layout::kStrided);
  problem.m = m;
  problem.batch = batch;
  problem.batch_stride = stride;
  if (const auto status = validate(problem, handle != nullptr); status != CUSPARSE_STATUS_SUCCESS) return status;
  if (dl == nullptr || d == nullptr || du == nullptr || x == nullptr) {
    return CUSPARSE_STATUS_INVALID_VALUE;
  }
  return serve(call, problem, vendor_fn, handle, m, dl, d, du, x, batch, stride, buffer);
}

template <class T, class Fn>
cusparseStatus_t interleaved_buffer_size(Call& call, Fn vendor_fn, cusparseHandle_t handle, int algo, int m,
                                         const T* dl, const T* d, const T* du, const T* x, int batch, size_t* size) {
  Problem problem = make_problem<T>(Layout::kInterleaved);
  problem.m = m;
  problem.batch = batch;
  problem.algo = algo;
  if (const auto status = validate(problem, handle != nullptr); status != CUSPARSE_STATUS_SUCCESS) return status;
  if (size == nullptr) return CUSPARSE_STATUS_INVALID_VALUE;
  return serve(call, problem, vendor_fn, handle, algo, m, dl, d, du, x, batch, size);
}

template <class T, class Fn>
cusparseStatus_t interleaved_solve(Call& call, Fn vendor_fn, cusparseHandle_t handle, int algo, int m, T* dl, T* d,
                                   T* du, T* x, int batch, void* buffer) {
  Problem problem = make_problem<T>(Layout::kInterleaved);
  problem.m = m;
  problem.batch = batch;
  problem.algo = algo;
  if (const auto status = validate(problem, handle != nullptr); status != CUSPARSE_STATUS_SUCCESS) return status;
  if (dl == nullptr || d == nullptr || du == nullptr || x == nullptr) {
    return CUSPARSE_STATUS_INVALID_VALUE;
  }
  return serve(call, problem, vendor_fn, handle, algo, m, dl, d, du, x, batch, buffer);
}

}  // namespace idgpu::tridiag
