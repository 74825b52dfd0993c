// The native side of the tridiagonal dispatch: which problems our kernels serve (a registry of
// solvers, each with the evidence-backed range where it beats the vendor), the buffer each needs,
// and the launch. The vendor is the last solver and is not listed here.
#pragma once

#include <cuda_runtime_api.h>
#include <cusparse.h>

#include <cstddef>

#include "tridiag/problem.h"

namespace idgpu::tridiag {

struct NativeSolver {
  const char* name;
  // The bytes of pBuffer it needs for a problem it serves.
  std::size_t (*buffer_bytes)(const Problem& problem);
};

// The native solver for a problem, or null with `reason` saying why the vendor serves it. Decided
// on the host from the problem, the policy and the device's properties; the same problem always
// gets the same answer, so a buffer sized by _bufferSizeExt fits the solve.
const NativeSolver* choose_native(const Problem& problem, const char** reason);

// What the run_* functions return when the native solve failed before any of its launches ran
// (a kernel the device cannot launch, src/core/launch.h): the caller's arrays are as they came,
// and the vendor serves the call. Not a cuSPARSE status, never returned to callers.
inline constexpr cusparseStatus_t kNotServed = static_cast<cusparseStatus_t>(0x1d6000);

// Runs a native gtsvInterleavedBatch on `stream`. T is float, double, cuComplex or cuDoubleComplex.
template <class T>
cusparseStatus_t run_interleaved(const NativeSolver& solver, const Problem& problem, T* dl, T* d, T* du, T* x,
                                 void* buffer, cudaStream_t stream);

// Runs a native gtsv2StridedBatch on `stream`.
template <class T>
cusparseStatus_t run_strided(const NativeSolver& solver, const Problem& problem, const T* dl, const T* d,
                             const T* du, T* x, void* buffer, cudaStream_t stream);

// Runs a native gtsv2_nopivot (n columns of B against one matrix) on `stream`.
template <class T>
cusparseStatus_t run_columns(const NativeSolver& solver, const Problem& problem, const T* dl, const T* d,
                             const T* du, T* B, void* buffer, cudaStream_t stream);

}  // namespace idgpu::tridiag
