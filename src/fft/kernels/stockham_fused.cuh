// The fused kernel: both passes of a two-pass power-of-two plan (fft/planner.h, FftFused), out
// of place, in one persistent launch. Two launches move every element through device memory
// twice (read input, write output; read output, write output); here the first pass's tiles of a
// transform write its intermediate into the output, and the last pass's tiles transform it there
// in place a little later, while it is still in the L2 cache (H100: 50 MB, H200: 60 MB), so that
// device memory sees about one read and one write per element.
//
// The blocks take tiles by ticket (one atomic counter) in the order of fft/stockham_index.h's
// FusedSchedule: the first-pass tiles of transform s, then the last-pass tiles of transform s - D.
// A first-pass tile runs pow2_block<kFirst>, waits for all its threads' stores, then adds one to
// its transform's counter (release: barrier, fence, atomic, as a grid barrier does). A last-pass
// tile waits until that counter reaches the first pass's tile count (acquire: one thread spins
// on ld.acquire.gpu, then a barrier) and runs pow2_block<kColumn>, whose loads of the
// intermediate go to the L2 (ld.global.cg). Every tile waited on holds a smaller ticket, taken by
// a block that waits on nothing, so the kernel cannot deadlock however many blocks are resident.
//
// Bytes moved: device memory sees the input read and the output written once (plus what the L2
// evicts early); the L2 sees that plus the intermediate written and read back. Measured on an H100
// at 2^26 points per call: 0.59 of copy bandwidth at fp32 2^17, falling to 0.48 at 2^20 as the
// intermediates in flight fill the L2 (fp64 2^17: 0.63). Nsight Compute at fp32 2^17: L2
// throughput 89% of peak, L2 hit rate 72%, DRAM 54%, two blocks of 512 threads per SM (64
// registers): the L2, which carries twice the bytes DRAM does, is what bounds the kernel.
//
// The counters live with the plan and are zero between launches: the last block to finish (one
// more counter) zeroes them, after every other block has taken its last ticket. Launches of one
// plan must therefore not overlap, which the vendor's contract asks too (a plan's work area is
// one).
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <utility>

#include "fft/kernels/stockham_pow2.cuh"

namespace idgpu::fft::kernels {

__device__ __forceinline__ unsigned load_acquire(const unsigned* counter) {
  unsigned value = 0;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(counter) : "memory");
  return value;
}

// FirstKind: kFirst (a 1D plan's first pass: columns in, each sub-transform written contiguously)
// or kSingle (a multi-dimensional plan's innermost axis: whole rows in and out); the last pass is
// a column pass, twiddled in a 1D plan and not in a multi-dimensional one (PassShape::twiddled).
template <class Real, bool Inverse, int FirstKind, int LogFirst, int LogLast>
__global__ void __maxnreg__(kPow2Registers<Real>) stockham_fused(const __grid_constant__ FusedLaunch p) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  __shared__ long long ticket_slot;
  __shared__ bool last_block;
  unsigned* tickets = p.counters;
  unsigned* finished = p.counters + 1;
  unsigned* first_done = p.counters + 2;  // per transform
  const long long total = fused_tickets(p.schedule);
  const auto first_tiles = static_cast<unsigned>(p.schedule.first_tiles);
  for (;;) {
    if (threadIdx.x == 0) ticket_slot = atomicAdd(tickets, 1u);
    __syncthreads();
    const long long ticket = ticket_slot;
    if (ticket >= total) break;
    int pass = 0, tile = 0;
    long long transform = 0;
    fused_tile(p.schedule, ticket, &pass, &transform, &tile);
    if (pass == 0) {
      pow2_block<Real, Inverse, LogFirst, FirstKind, kFusedTile>(p.first, transform * p.schedule.first_tiles + tile,
                                                                shared_raw, static_cast<int>(threadIdx.x));
      __syncthreads();  // every thread's stores of the tile are issued
      if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(&first_done[transform], 1u);
      }
    } else {
      if (threadIdx.x == 0) {
        while (load_acquire(&first_done[transform]) < first_tiles) __nanosleep(64);
      }
      __syncthreads();
      pow2_block<Real, Inverse, LogLast, kColumn, kFusedTile>(p.last, transform * p.schedule.last_tiles + tile,
                                                                shared_raw, static_cast<int>(threadIdx.x));
    }
    __syncthreads();  // shared memory and ticket_slot are free for the next tile
  }
  if (threadIdx.x == 0) {
    __threadfence();
    last_block = atomicAdd(finished, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last_block) {
    // Every other block has taken its last ticket and finished its tiles.
    for (long long t = threadIdx.x; t < p.schedule.batch; t += blockDim.x) first_done[t] = 0;
    if (threadIdx.x == 0) {
      *tickets = 0;
      *finished = 0;
    }
  }
}

// Host side: the (first, last) pass lengths compiled, by precision and first kind. kFirst: the
// planner's two-pass splits of the powers of two it fuses (fft/planner.cpp), 2^17 .. 2^21 in
// fp32, 2^17 .. 2^20 in fp64. kSingle: the square planes of multi-dimensional plans whose two
// innermost axes it fuses, 128^2 .. 1024^2 (fft/planner.h, kFusedAxesMaxLog).
template <class Real, int FirstKind>
struct FusedShapes;
template <>
struct FusedShapes<float, kFirst> {
  static constexpr int kFirstLog[] = {7, 9, 8, 10, 10};
  static constexpr int kLastLog[] = {10, 9, 11, 10, 11};
};
template <>
struct FusedShapes<double, kFirst> {
  static constexpr int kFirstLog[] = {7, 9, 8, 10};
  static constexpr int kLastLog[] = {10, 9, 11, 10};
};
template <>
struct FusedShapes<float, kSingle> {
  static constexpr int kFirstLog[] = {7, 8, 9, 10};
  static constexpr int kLastLog[] = {7, 8, 9, 10};
};
template <>
struct FusedShapes<double, kSingle> {
  static constexpr int kFirstLog[] = {7, 8, 9, 10};
  static constexpr int kLastLog[] = {7, 8, 9, 10};
};

template <class Real, bool Inverse, int FirstKind, int Index>
constexpr auto fused_kernel() {
  using Shapes = FusedShapes<Real, FirstKind>;
  return stockham_fused<Real, Inverse, FirstKind, Shapes::kFirstLog[Index], Shapes::kLastLog[Index]>;
}

// Calls `use(kernel)` with the kernel compiled for the launch's pass lengths; false when none is.
template <class Real, bool Inverse, int FirstKind, class Use, int... Index>
bool with_fused_kernel(int log_first, int log_last, const Use& use, std::integer_sequence<int, Index...>) {
  using Shapes = FusedShapes<Real, FirstKind>;
  const auto try_one = [&](auto index) {
    constexpr int kIndex = decltype(index)::value;
    if (Shapes::kFirstLog[kIndex] != log_first || Shapes::kLastLog[kIndex] != log_last) return false;
    constexpr auto kKernel = fused_kernel<Real, Inverse, FirstKind, kIndex>();
    use(std::integral_constant<decltype(kKernel), kKernel>());
    return true;
  };
  return (try_one(std::integral_constant<int, Index>()) || ...);
}

template <class Real, bool Inverse, int FirstKind, class Use>
bool with_fused_kernel_of(const FusedLaunch& launch, const Use& use) {
  constexpr int kCount = static_cast<int>(sizeof(FusedShapes<Real, FirstKind>::kFirstLog) / sizeof(int));
  return with_fused_kernel<Real, Inverse, FirstKind>(launch.first.shape.size_log2, launch.last.shape.size_log2, use,
                                                     std::make_integer_sequence<int, kCount>());
}

template <class Real, bool Inverse, class Use>
bool with_fused_kernel(const FusedLaunch& launch, const Use& use) {
  return launch.axes ? with_fused_kernel_of<Real, Inverse, kSingle>(launch, use)
                     : with_fused_kernel_of<Real, Inverse, kFirst>(launch, use);
}

template <class Real>
int fused_resident_blocks(const FusedLaunch& launch) {
  int per_sm = 0;
  int device = 0;
  int sms = 0;
  const bool found = with_fused_kernel<Real, false>(launch, [&](auto kernel_constant) {
    constexpr auto kernel = decltype(kernel_constant)::value;
    if (launch.shared_bytes > 48 * 1024 &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(launch.shared_bytes)) != cudaSuccess) {
      return;
    }
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(launch.threads),
                                                      launch.shared_bytes) != cudaSuccess) {
      per_sm = 0;
    }
  });
  if (!found || per_sm <= 0 || cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return per_sm * sms;
}

// The shared memory each kernel has been opted into, per device.
template <class Kernel, Kernel kKernel>
std::atomic<unsigned>* shared_allowed() {
  static std::atomic<unsigned> allowed[64] = {};
  return allowed;
}

template <class Real, bool Inverse>
cudaError_t launch_fused(const FusedLaunch& launch, cudaStream_t stream) {
  cudaError_t status = cudaErrorInvalidValue;
  with_fused_kernel<Real, Inverse>(launch, [&](auto kernel_constant) {
    constexpr auto kernel = decltype(kernel_constant)::value;
    status = allow_shared(kernel, launch.shared_bytes, shared_allowed<decltype(kernel), kernel>());
    if (status != cudaSuccess) return;
    kernel<<<launch.grid, launch.threads, launch.shared_bytes, stream>>>(launch);
    status = cudaGetLastError();
  });
  return status;
}

template <class Real>
cudaError_t launch_fused(const FusedLaunch& launch, bool inverse, cudaStream_t stream) {
  return inverse ? launch_fused<Real, true>(launch, stream) : launch_fused<Real, false>(launch, stream);
}

}  // namespace idgpu::fft::kernels
