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
#include "tridiag/native.h"
#include "tridiag/problem.h"
#include "core/stats.h"
#include "core/vendor.h"

namespace idgpu::tridiag {

// What idgpu refuses itself, before any dispatch, with the vendor's status codes. The rules are
// the vendor's own, measured against cuSPARSE 12.6 by tests/gpu (status_codes): the _bufferSizeExt
// functions check nothing (m = 2, n < 0, ldb < m, batchCount <= 0 all return success) and crash on
// a null size pointer, and gtsv2_bufferSizeExt also on a null handle, which idgpu refuses instead;
// gtsvInterleavedBatch checks algo and a negative batchCount but accepts m < 3 and batchCount = 0;
// the other solvers check m >= 3, n >= 0, ldb >= max(1, m), batchCount > 0, batchStride >= m.
// A null data pointer in a solve is accepted by the vendor, which then faults on the device (a
// sticky error that ends the CUDA context): idgpu refuses it with CUSPARSE_STATUS_INVALID_VALUE.
// pBuffer is not judged: the vendor documents a 128-byte alignment but accepts any pointer
// (gtsv2StridedBatch and gtsvInterleavedBatch with pBuffer + 64 return success).
// Returns CUSPARSE_STATUS_SUCCESS for a call to pass on.
cusparseStatus_t refuse_buffer_size(const Problem& problem, bool has_handle, bool has_size);
cusparseStatus_t refuse_solve(const Problem& problem, bool has_handle, bool has_data);

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

// The stream a cuSPARSE handle runs on.
cudaStream_t stream_of(cusparseHandle_t handle);

// Runs the vendor entry point, `reason` saying why the vendor serves the call; `timed`: under
// IDGPU_REPORT=timing, with a timer of its own.
template <class Fn, class... Args>
cusparseStatus_t call_vendor(Call& call, const char* reason, bool timed, Fn vendor_fn, cusparseHandle_t handle,
                             Args... args) {
  if (vendor_fn == nullptr) return kVendorMissing;
  call.path = Path::kVendor;
  call.reason = reason;
  if (!timed) return vendor_fn(handle, args...);
  stats::GpuTimer timer(call.api, stats::timing_enabled() ? stream_of(handle) : nullptr);
  return vendor_fn(handle, args...);
}

// The problem's shape for the dispatch report.
inline Shape shape_of(const Problem& problem) {
  const bool batched = problem.layout == Layout::kStrided || problem.layout == Layout::kInterleaved;
  return Shape{0, problem.m, batched ? problem.batch : problem.n,
               problem.layout == Layout::kInterleaved ? problem.algo : 0};
}

// Runs the vendor entry point for a problem no native solver takes.
template <class Fn, class... Args>
cusparseStatus_t serve(Call& call, const Problem& problem, Fn vendor_fn, cusparseHandle_t handle, Args... args) {
  call.shape = shape_of(problem);
  const char* reason = "";
  choose_native(problem, &reason);
  return call_vendor(call, reason, true, vendor_fn, handle, args...);
}

// The vendor's buffer size, or more where the native solver needs more, so that a buffer of the
// returned size fits either side.
inline void widen_for_native(const Problem& problem, cusparseStatus_t status, size_t* size) {
  const char* reason = "";
  if (const NativeSolver* solver = choose_native(problem, &reason);
      solver != nullptr && status == CUSPARSE_STATUS_SUCCESS && solver->buffer_bytes(problem) > *size) {
    *size = solver->buffer_bytes(problem);
  }
}

// The native solver for a solve, or null where the vendor serves it, including where the native
// solver needs pBuffer and it is null or misaligned for the element type.
inline const NativeSolver* native_for_buffer(const Problem& problem, const void* buffer, size_t alignment,
                                             const char** reason) {
  const NativeSolver* solver = choose_native(problem, reason);
  if (solver != nullptr && solver->buffer_bytes(problem) > 0 &&
      (buffer == nullptr || reinterpret_cast<std::uintptr_t>(buffer) % alignment != 0)) {
    *reason = "pBuffer is null or not aligned for the native solver";
    return nullptr;
  }
  return solver;
}

// A solve: by the native solver where one serves the problem, else by the vendor entry point, as
// also where the native solve failed before any of its launches ran (kNotServed).
// run_native(solver, stream) runs the native side; args are the vendor entry point's after the
// handle.
template <class T, class RunNative, class Fn, class... Args>
cusparseStatus_t solve(Call& call, const Problem& problem, const void* buffer, const RunNative& run_native,
                       Fn vendor_fn, cusparseHandle_t handle, Args... args) {
  call.shape = shape_of(problem);
  const char* reason = "";
  const NativeSolver* solver = native_for_buffer(problem, buffer, alignof(T), &reason);
  if (solver == nullptr) return call_vendor(call, reason, true, vendor_fn, handle, args...);
  call.path = Path::kNative;
  call.reason = solver->name;
  const cudaStream_t stream = stream_of(handle);
  stats::GpuTimer timer(call.api, stream);
  const cusparseStatus_t status = run_native(*solver, stream);
  if (status != kNotServed) return status;
  // Within the native side's timer: one timed interval for the call.
  return call_vendor(call, "the native solver could not be launched on this device: the vendor", false,
                     vendor_fn, handle, args...);
}

template <class T, class Fn>
cusparseStatus_t gtsv2_buffer_size(Call& call, Fn vendor_fn, Layout layout, cusparseHandle_t handle, int m, int n,
                                   const T* dl, const T* d, const T* du, const T* B, int ldb, size_t* size) {
  Problem problem = make_problem<T>(layout);
  problem.m = m;
  problem.n = n;
  problem.ldb = ldb;
  if (const auto status = refuse_buffer_size(problem, handle != nullptr, size != nullptr);
      status != CUSPARSE_STATUS_SUCCESS) {
    return status;
  }
  const cusparseStatus_t status = serve(call, problem, vendor_fn, handle, m, n, dl, d, du, B, ldb, size);
  widen_for_native(problem, status, size);
  return status;
}

template <class T, class Fn>
cusparseStatus_t gtsv2_solve(Call& call, Fn vendor_fn, Layout layout, cusparseHandle_t handle, int m, int n,
                             const T* dl, const T* d, const T* du, T* B, int ldb, void* buffer) {
  Problem problem = make_problem<T>(layout);
  problem.m = m;
  problem.n = n;
  problem.ldb = ldb;
  const bool has_data = dl != nullptr && d != nullptr && du != nullptr && B != nullptr;
  if (const auto status = refuse_solve(problem, handle != nullptr, has_data); status != CUSPARSE_STATUS_SUCCESS) {
    return status;
  }
  const auto run_native = [&](const NativeSolver& solver, cudaStream_t stream) {
    return run_columns<T>(solver, problem, dl, d, du, B, buffer, stream);
  };
  return solve<T>(call, problem, buffer, run_native, vendor_fn, handle, m, n, dl, d, du, B, ldb, buffer);
}

template <class T, class Fn>
cusparseStatus_t strided_buffer_size(Call& call, Fn vendor_fn, cusparseHandle_t handle, int m, const T* dl,
                                     const T* d, const T* du, const T* x, int batch, int stride, size_t* size) {
  Problem problem = make_problem<T>(Layout::kStrided);
  problem.m = m;
  problem.batch = batch;
  problem.batch_stride = stride;
  if (const auto status = refuse_buffer_size(problem, handle != nullptr, size != nullptr);
      status != CUSPARSE_STATUS_SUCCESS) {
    return status;
  }
  const cusparseStatus_t status = serve(call, problem, vendor_fn, handle, m, dl, d, du, x, batch, stride, size);
  widen_for_native(problem, status, size);
  return status;
}

template <class T, class Fn>
cusparseStatus_t strided_solve(Call& call, Fn vendor_fn, cusparseHandle_t handle, int m, const T* dl, const T* d,
                               const T* du, T* x, int batch, int stride, void* buffer) {
  Problem problem = make_problem<T>(Layout::kStrided);
  problem.m = m;
  problem.batch = batch;
  problem.batch_stride = stride;
  const bool has_data = dl != nullptr && d != nullptr && du != nullptr && x != nullptr;
  if (const auto status = refuse_solve(problem, handle != nullptr, has_data); status != CUSPARSE_STATUS_SUCCESS) {
    return status;
  }
  const auto run_native = [&](const NativeSolver& solver, cudaStream_t stream) {
    return run_strided<T>(solver, problem, dl, d, du, x, buffer, stream);
  };
  return solve<T>(call, problem, buffer, run_native, vendor_fn, handle, m, dl, d, du, x, batch, stride, buffer);
}

template <class T, class Fn>
cusparseStatus_t interleaved_buffer_size(Call& call, Fn vendor_fn, cusparseHandle_t handle, int algo, int m,
                                         const T* dl, const T* d, const T* du, const T* x, int batch, size_t* size) {
  Problem problem = make_problem<T>(Layout::kInterleaved);
  problem.m = m;
  problem.batch = batch;
  problem.algo = algo;
  if (const auto status = refuse_buffer_size(problem, handle != nullptr, size != nullptr);
      status != CUSPARSE_STATUS_SUCCESS) {
    return status;
  }
  const cusparseStatus_t status = serve(call, problem, vendor_fn, handle, algo, m, dl, d, du, x, batch, size);
  widen_for_native(problem, status, size);
  return status;
}

template <class T, class Fn>
cusparseStatus_t interleaved_solve(Call& call, Fn vendor_fn, cusparseHandle_t handle, int algo, int m, T* dl, T* d,
                                   T* du, T* x, int batch, void* buffer) {
  Problem problem = make_problem<T>(Layout::kInterleaved);
  problem.m = m;
  problem.batch = batch;
  problem.algo = algo;
  const bool has_data = dl != nullptr && d != nullptr && du != nullptr && x != nullptr;
  if (const auto status = refuse_solve(problem, handle != nullptr, has_data); status != CUSPARSE_STATUS_SUCCESS) {
    return status;
  }
  const auto run_native = [&](const NativeSolver& solver, cudaStream_t stream) {
    return run_interleaved<T>(solver, problem, dl, d, du, x, buffer, stream);
  };
  return solve<T>(call, problem, buffer, run_native, vendor_fn, handle, algo, m, dl, d, du, x, batch, buffer);
}

}  // namespace idgpu::tridiag
