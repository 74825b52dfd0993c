// gtsvInterleavedBatch algos 1 and 2 on long systems (element i of system j at i*batch + j): the
// batch gathered into one block-diagonal system of batch*m rows, system j's rows contiguous from
// row j*m with its first lower and last upper entries zero (cuSPARSE asks them to be zero; zeroing
// them here keeps the systems apart whatever the caller left there), solved by gtsv2's chunked
// diagonal pivoting with its refinement step (pivoting.cu), and the solution scattered back.
//
// A system of the batch is solved with the same stability as a gtsv2 call: chunks of 8 rows by
// diagonal pivoting (1 x 1 / 2 x 2 blocks, Erway and Marcia's rule), separators reduced level by
// level, one step of iterative refinement with the residual in twice the working precision where
// a pivot was small. The vendor's algos factor each system by LU with partial pivoting (1) or
// Givens QR (2), one thread a system, a serial chain of m steps: at m = 4096 and more, the
// partitioned solve of the whole batch at once is an order of magnitude faster (measurements in
// src/tridiag/tuning.cpp). The gather and scatter move five arrays in and one out, through 32 x 32
// tiles in shared memory so that both sides are coalesced.
//
// The systems meet only through exact zeros, and 0 x NaN is NaN: a system with a NaN or Inf in its
// data, or an exactly singular one, makes every system of the batch non-finite (finite values
// never cross: a product with an exact zero is an exact zero). So the solution is checked for
// non-finite values before it is scattered; where there is one, x is left as it came and the
// algo's own thread-per-system solver (interleaved.cu) solves the batch, as the vendor's would,
// keeping the damage in the bad system. The scratch (the four gathered arrays, the fallback's
// fill-in, the flag, the pivoting solve's levels, chunk factors and x1: about 9 m batch elements) is allocated on
// the stream, not taken from pBuffer: a buffer sized once for a larger batch (which the dispatch
// may leave with the vendor, whose buffer is about m batch elements) must not be too small for a
// smaller one, and where the device has no room the call is the vendor's.
#include <algorithm>
#include <climits>
#include <cstdint>

#include "core/config.h"
#include "core/launch.h"
#include "core/scratch.h"
#include "tridiag/kernels/kernels.h"
#include "tridiag/kernels/scalar.cuh"
#include "tridiag/tuning.h"

namespace idgpu::tridiag::kernels {
namespace {

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8;  // blockDim.y: each thread moves kTile / kRowsPerPass elements
constexpr std::size_t kAlign = 256;

std::size_t aligned(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// The scratch: the gathered dl, d, du and x and the fallback's fill-in (batch*m elements each),
// the non-finite flag, then the pivoting solve's buffer.
struct Gathered {
  std::size_t array_bytes;
  std::size_t flag_offset;
  std::size_t pivoting_offset;
  std::size_t total;
};

Gathered gathered_layout(int m, int batch, int element_bytes, bool batched) {
  Gathered g{};
  const long long rows = static_cast<long long>(m) * batch;
  g.array_bytes = aligned(static_cast<std::size_t>(rows) * static_cast<std::size_t>(element_bytes));
  g.flag_offset = 5 * g.array_bytes;
  g.pivoting_offset = g.flag_offset + kAlign;
  g.total = g.pivoting_offset + (batched ? pivoting_batched_buffer_bytes(m, batch, element_bytes)
                                         : pivoting_buffer_bytes(static_cast<int>(rows), 1, element_bytes));
  return g;
}



__device__ __forceinline__ bool finite(float v) { return isfinite(v); }
__device__ __forceinline__ bool finite(double v) { return isfinite(v); }
__device__ __forceinline__ bool finite(cuComplex v) { return isfinite(v.x) && isfinite(v.y); }
__device__ __forceinline__ bool finite(cuDoubleComplex v) { return isfinite(v.x) && isfinite(v.y); }

// Sets *flag where any of the n values is not finite.
template <class T>
__global__ void __launch_bounds__(256) finite_check_kernel(long long n, const T* x, int* flag) {
  bool bad = false;
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    bad = bad || !finite(x[i]);
  }
  if (__syncthreads_or(bad) && threadIdx.x == 0) *flag = 1;
}

// Interleaved (row i of system j at i*batch + j) to contiguous (at j*m + i), for the four arrays
// at once (blockIdx.z: dl, d, du, x). Rows of dl at i = 0 and of du at i = m - 1 become zero.
template <class T>
__global__ void __launch_bounds__(kTile* kRowsPerPass)
    gather_kernel(int m, int batch, const T* dl, const T* d, const T* du, const T* x, T* out_dl, T* out_d,
                  T* out_du, T* out_x) {
  __shared__ T tile[kTile][kTile + 1];
  const int which = blockIdx.z;
  const T* in = which == 0 ? dl : which == 1 ? d : which == 2 ? du : x;
  T* out = which == 0 ? out_dl : which == 1 ? out_d : which == 2 ? out_du : out_x;
  const long long system0 = static_cast<long long>(blockIdx.x) * kTile;
  for (long long row0 = static_cast<long long>(blockIdx.y) * kTile; row0 < m; row0 += gridDim.y * kTile) {
    // Load: consecutive threads along the systems (consecutive addresses).
    for (int r = threadIdx.y; r < kTile; r += kRowsPerPass) {
      const long long row = row0 + r, system = system0 + threadIdx.x;
      if (row < m && system < batch) {
        const bool outside = (which == 0 && row == 0) || (which == 2 && row == m - 1);
        tile[r][threadIdx.x] = outside ? zero<T>() : in[row * batch + system];
      }
    }
    __syncthreads();
    // Store: consecutive threads along the rows of one system.
    for (int s = threadIdx.y; s < kTile; s += kRowsPerPass) {
      const long long row = row0 + threadIdx.x, system = system0 + s;
      if (row < m && system < batch) out[system * m + row] = tile[threadIdx.x][s];
    }
    __syncthreads();
  }
}

// Contiguous back to interleaved, for x; nothing where *skip (a non-finite value) is set.
template <class T>
__global__ void __launch_bounds__(kTile* kRowsPerPass)
    scatter_kernel(int m, int batch, const T* in, T* out, const int* skip) {
  if (*skip != 0) return;
  __shared__ T tile[kTile][kTile + 1];
  const long long system0 = static_cast<long long>(blockIdx.x) * kTile;
  for (long long row0 = static_cast<long long>(blockIdx.y) * kTile; row0 < m; row0 += gridDim.y * kTile) {
    for (int s = threadIdx.y; s < kTile; s += kRowsPerPass) {
      const long long row = row0 + threadIdx.x, system = system0 + s;
      if (row < m && system < batch) tile[threadIdx.x][s] = in[system * m + row];
    }
    __syncthreads();
    for (int r = threadIdx.y; r < kTile; r += kRowsPerPass) {
      const long long row = row0 + r, system = system0 + threadIdx.x;
      if (row < m && system < batch) out[row * batch + system] = tile[r][threadIdx.x];
    }
    __syncthreads();
  }
}

}  // namespace

bool interleaved_pivoting_fits(int m, int batch) {
  return m >= 1 && batch >= 1 && static_cast<long long>(m) * batch <= INT_MAX;
}

template <class T>
cudaError_t interleaved_pivoting_solve(int algo, int m, int batch, const T* dl, T* d, T* du, T* x,
                                       cudaStream_t stream) {
  if (!interleaved_pivoting_fits(m, batch)) return cudaErrorInvalidValue;
  // One block a system, or the batch as one system level by level (tridiag/tuning.h).
  const bool batched = gathered_one_block_a_system(m, batch, static_cast<int>(sizeof(T)), config().pivot_one_block);
  const Gathered g = gathered_layout(m, batch, sizeof(T), batched);
  void* scratch = nullptr;
  // Stream-ordered, so that the call stays asynchronous and capturable.
  if (const cudaError_t status = scratch_allocate(&scratch, g.total, stream); status != cudaSuccess) return status;
  unsigned char* base = static_cast<unsigned char*>(scratch);
  T* gdl = reinterpret_cast<T*>(base);
  T* gd = reinterpret_cast<T*>(base + g.array_bytes);
  T* gdu = reinterpret_cast<T*>(base + 2 * g.array_bytes);
  T* gx = reinterpret_cast<T*>(base + 3 * g.array_bytes);
  T* fill = reinterpret_cast<T*>(base + 4 * g.array_bytes);
  int* flag = reinterpret_cast<int*>(base + g.flag_offset);
  const int rows = m * batch;
  const dim3 block(kTile, kRowsPerPass);
  const dim3 grid(static_cast<unsigned>((batch + kTile - 1) / kTile),
                  static_cast<unsigned>(std::min(65535, (m + kTile - 1) / kTile)));
  // Each launch checked before the next (launch::counted): a failure stops the sequence.
  cudaError_t status = cudaMemsetAsync(flag, 0, sizeof(int), stream);
  if (status == cudaSuccess) {
    status = launch::counted([&] {
      gather_kernel<T><<<dim3(grid.x, grid.y, 4), block, 0, stream>>>(m, batch, dl, d, du, x, gdl, gd, gdu, gx);
    });
  }
  if (status == cudaSuccess) {
    // Without gtsv2's dominance check (pivoting_solve): not measured on gathered batches.
    status = batched ? pivoting_solve_batched<T>(m, batch, gdl, gd, gdu, gx, base + g.pivoting_offset, stream)
                     : pivoting_solve<T>(rows, 1, rows, gdl, gd, gdu, gx, base + g.pivoting_offset, stream, false);
  }
  if (status == cudaSuccess) {
    const long long wanted = (static_cast<long long>(rows) + 255) / 256;
    const unsigned blocks = static_cast<unsigned>(std::min<long long>(wanted, 4096));
    status = launch::counted([&] { finite_check_kernel<T><<<blocks, 256, 0, stream>>>(rows, gx, flag); });
  }
  if (status == cudaSuccess) {
    status = launch::counted([&] { scatter_kernel<T><<<grid, block, 0, stream>>>(m, batch, gx, x, flag); });
  }
  if (status == cudaSuccess) {
    status = algo == 2 ? interleaved_qr<T>(m, batch, dl, d, du, x, fill, stream, flag)
                       : interleaved_lu<T>(m, batch, dl, d, du, x, fill, stream, flag);
  }
  const cudaError_t freed = scratch_free(scratch, stream);
  return status != cudaSuccess ? status : freed;
}

#define IDGPU_INSTANTIATE_(T)                                                                                  \
  template cudaError_t interleaved_pivoting_solve<T>(int, int, int, const T*, T*, T*, T*, cudaStream_t);
IDGPU_INSTANTIATE_(float)
IDGPU_INSTANTIATE_(double)
IDGPU_INSTANTIATE_(cuComplex)
IDGPU_INSTANTIATE_(cuDoubleComplex)
#undef IDGPU_INSTANTIATE_

}  // namespace idgpu::tridiag::kernels
