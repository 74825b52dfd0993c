#include "tridiag/native.h"

#include <cuComplex.h>

#include <array>
#include <cstdint>
#include <mutex>

#include "core/config.h"
#include "core/device.h"
#include "core/launch.h"
#include "core/log.h"
#include "tridiag/kernels/kernels.h"
#include "tridiag/tuning.h"

namespace idgpu::tridiag {
namespace {

// The second superdiagonal of U (R), one element per unknown, as the vendor's algos 1 and 2 ask.
std::size_t fill_buffer(const Problem& problem) {
  return static_cast<std::size_t>(problem.m) * static_cast<std::size_t>(problem.batch) *
         static_cast<std::size_t>(problem.element_bytes);
}

std::size_t partition_buffer(const Problem& problem) {
  return kernels::partition_buffer_bytes(problem.m, problem.batch, problem.layout == Layout::kInterleaved,
                                         problem.element_bytes);
}

std::size_t columns_buffer(const Problem& problem) {
  return kernels::partition_columns_buffer_bytes(problem.m, problem.n, problem.element_bytes);
}

std::size_t wang_mou_buffer(const Problem& problem) {
  return kernels::wang_mou_buffer_bytes(problem.m, problem.n, problem.element_bytes);
}

std::size_t pcr_thomas_buffer(const Problem& problem) {
  return kernels::pcr_thomas_buffer_bytes(problem.m, problem.n, problem.element_bytes);
}

std::size_t pivoting_buffer(const Problem& problem) {
  return kernels::pivoting_buffer_bytes(problem.m, problem.n, problem.element_bytes);
}

// The gathered batch allocates its scratch on the stream (kernels/interleaved_pivoting.cu): pBuffer
// is the vendor's size and unused.
std::size_t no_buffer(const Problem&) { return 0; }

// Whether algos 1/2 gather the batch into one system (IDGPU_INTERLEAVED_PIVOTING overrides).
bool gathered_batch(const Problem& problem) {
  const bool fits = kernels::interleaved_pivoting_fits(problem.m, problem.batch);
  switch (config().interleaved_pivoting) {
    case InterleavedPivoting::kGathered: return fits && problem.m >= 256;  // the lengths it is tested on
    case InterleavedPivoting::kStored:
    case InterleavedPivoting::kRecompute: return false;
    default: return fits && gathered_batch_wins(problem);
  }
}

const NativeSolver kPivoting{"chunks by diagonal pivoting, separators reduced level by level", pivoting_buffer};
const NativeSolver kPartitionColumns{"partition solver over the columns of B (one matrix)", columns_buffer};
const NativeSolver kWangMou{"multi-stage Wang-Mou over the columns of B (one matrix)", wang_mou_buffer};
const NativeSolver kPcrThomas{"k-step tiled PCR and p-Thomas over the columns of B (one matrix)", pcr_thomas_buffer};
const NativeSolver kPartition{"partition solver (chunks in registers, separators by cyclic reduction)",
                              partition_buffer};
const NativeSolver kInterleavedLu{"interleaved LU with partial pivoting (thread per system)", fill_buffer};
const NativeSolver kInterleavedQr{"interleaved Givens QR (thread per system)", fill_buffer};
const NativeSolver kInterleavedPivoting{"interleaved batch gathered, chunks by diagonal pivoting", no_buffer};

// A solve's status as the vendor's: synchronised and checked first under IDGPU_SYNC_CHECK. A
// failure before any launch of the solve ran (launch::not_launched, launch::launches_ran() == 0:
// the caller's arrays are as they came) is left to the vendor (kNotServed); any other is the
// caller's, since the launches that ran may have written x or B.
cusparseStatus_t finish_launch(const NativeSolver& solver, const Problem& problem, cudaError_t launched,
                               cudaStream_t stream) {
  cudaError_t status = launched;
  if (status == cudaSuccess && config().sync_check) status = cudaStreamSynchronize(stream);
  if (status == cudaSuccess) return CUSPARSE_STATUS_SUCCESS;
  cudaGetLastError();
  const bool redo = launched != cudaSuccess && launch::not_launched(launched) && launch::launches_ran() == 0;
  log::kernel().error("{} (m={}, n={}, batch={}): {}{}", solver.name, problem.m, problem.n, problem.batch,
                      cudaGetErrorString(status), redo ? "; nothing of it ran, the vendor serves this call" : "");
  return redo ? kNotServed : CUSPARSE_STATUS_EXECUTION_FAILED;
}

}  // namespace

const NativeSolver* choose_native(const Problem& problem, const char** reason) {
  const Policy current = policy();
  if (current == Policy::kVendor) {
    *reason = "IDGPU_POLICY=vendor";
    return nullptr;
  }
  const NativeSolver* candidate = nullptr;
  if (problem.layout == Layout::kInterleaved && problem.m >= 1 && problem.batch >= 1) {
    candidate = problem.algo == 0 ? &kPartition : problem.algo == 1 ? &kInterleavedLu : &kInterleavedQr;
    if (problem.algo != 0 && gathered_batch(problem)) candidate = &kInterleavedPivoting;
  }
  if (problem.layout == Layout::kStrided) candidate = &kPartition;
  if (problem.layout == Layout::kSingleNopivot && problem.n >= 1) {
    // The partition solver measured fastest everywhere (src/tridiag/tuning.cpp); the others on request.
    switch (tridiag_solver()) {
      case TridiagSolver::kWangMou: candidate = &kWangMou; break;
      case TridiagSolver::kPcrThomas: candidate = &kPcrThomas; break;
      default: candidate = &kPartitionColumns; break;
    }
  }
  if (problem.layout == Layout::kSingle && problem.n >= 1) candidate = &kPivoting;
  if (candidate == nullptr) {
    *reason = "no native solver for this problem yet";
    return nullptr;
  }
  // The device is asked only when the tuning table could pick the native side (a runtime call on
  // every forwarded call would be most of the forwarding cost).
  if (current != Policy::kNative && !native_wins(problem, kAnyDevice, reason)) return nullptr;
  const int arch = current_device_arch();
  if (arch < 80) {
    *reason = arch == 0 ? "no CUDA device" : "native kernels are built for sm_80 and newer";
    return nullptr;
  }
  if (current == Policy::kNative) return candidate;
  if (!native_wins(problem, {arch, current_device_memory_gbs()}, reason)) return nullptr;
  return candidate;
}

template <class T>
cusparseStatus_t run_interleaved(const NativeSolver& solver, const Problem& problem, T* dl, T* d, T* du, T* x,
                                 void* buffer, cudaStream_t stream) {
  launch::begin_call();
  cudaError_t launched = cudaSuccess;
  if (&solver == &kPartition) {
    launched = kernels::partition_solve<T>(problem.m, problem.batch, problem.m, true, dl, d, du, x, buffer, stream);
  } else if (&solver == &kInterleavedPivoting) {
    launched = kernels::interleaved_pivoting_solve<T>(problem.algo, problem.m, problem.batch, dl, d, du, x, stream);
  } else {
    T* fill = static_cast<T*>(buffer);
    if (&solver == &kInterleavedLu) {
      launched = kernels::interleaved_lu<T>(problem.m, problem.batch, dl, d, du, x, fill, stream);
    } else {
      launched = kernels::interleaved_qr<T>(problem.m, problem.batch, dl, d, du, x, fill, stream);
    }
  }
  return finish_launch(solver, problem, launched, stream);
}

template <class T>
cusparseStatus_t run_strided(const NativeSolver& solver, const Problem& problem, const T* dl, const T* d,
                             const T* du, T* x, void* buffer, cudaStream_t stream) {
  launch::begin_call();
  const cudaError_t launched = kernels::partition_solve<T>(problem.m, problem.batch, problem.batch_stride, false, dl,
                                                           d, du, x, buffer, stream);
  return finish_launch(solver, problem, launched, stream);
}

template <class T>
cusparseStatus_t run_columns(const NativeSolver& solver, const Problem& problem, const T* dl, const T* d,
                             const T* du, T* B, void* buffer, cudaStream_t stream) {
  launch::begin_call();
  cudaError_t launched = cudaSuccess;
  if (&solver == &kPivoting) {
    launched = kernels::pivoting_solve<T>(problem.m, problem.n, problem.ldb, dl, d, du, B, buffer, stream);
  } else if (&solver == &kWangMou) {
    launched = kernels::wang_mou_solve_columns<T>(problem.m, problem.n, problem.ldb, dl, d, du, B, buffer, stream);
  } else if (&solver == &kPcrThomas) {
    launched = kernels::pcr_thomas_solve_columns<T>(problem.m, problem.n, problem.ldb, dl, d, du, B, buffer, stream);
  } else {
    launched = kernels::partition_solve_columns<T>(problem.m, problem.n, problem.ldb, dl, d, du, B, buffer, stream);
  }
  return finish_launch(solver, problem, launched, stream);
}

template cusparseStatus_t run_columns<float>(const NativeSolver&, const Problem&, const float*, const float*,
                                             const float*, float*, void*, cudaStream_t);
template cusparseStatus_t run_columns<double>(const NativeSolver&, const Problem&, const double*, const double*,
                                              const double*, double*, void*, cudaStream_t);
template cusparseStatus_t run_columns<cuComplex>(const NativeSolver&, const Problem&, const cuComplex*,
                                                 const cuComplex*, const cuComplex*, cuComplex*, void*, cudaStream_t);
template cusparseStatus_t run_columns<cuDoubleComplex>(const NativeSolver&, const Problem&, const cuDoubleComplex*,
                                                       const cuDoubleComplex*, const cuDoubleComplex*,
                                                       cuDoubleComplex*, void*, cudaStream_t);

template cusparseStatus_t run_strided<float>(const NativeSolver&, const Problem&, const float*, const float*,
                                             const float*, float*, void*, cudaStream_t);
template cusparseStatus_t run_strided<double>(const NativeSolver&, const Problem&, const double*, const double*,
                                              const double*, double*, void*, cudaStream_t);
template cusparseStatus_t run_strided<cuComplex>(const NativeSolver&, const Problem&, const cuComplex*,
                                                 const cuComplex*, const cuComplex*, cuComplex*, void*, cudaStream_t);
template cusparseStatus_t run_strided<cuDoubleComplex>(const NativeSolver&, const Problem&, const cuDoubleComplex*,
                                                       const cuDoubleComplex*, const cuDoubleComplex*,
                                                       cuDoubleComplex*, void*, cudaStream_t);

template cusparseStatus_t run_interleaved<float>(const NativeSolver&, const Problem&, float*, float*, float*, float*,
                                                 void*, cudaStream_t);
template cusparseStatus_t run_interleaved<double>(const NativeSolver&, const Problem&, double*, double*, double*,
                                                  double*, void*, cudaStream_t);
template cusparseStatus_t run_interleaved<cuComplex>(const NativeSolver&, const Problem&, cuComplex*, cuComplex*,
                                                     cuComplex*, cuComplex*, void*, cudaStream_t);
template cusparseStatus_t run_interleaved<cuDoubleComplex>(const NativeSolver&, const Problem&, cuDoubleComplex*,
                                                           cuDoubleComplex*, cuDoubleComplex*, cuDoubleComplex*,
                                                           void*, cudaStream_t);

}  // namespace idgpu::tridiag
