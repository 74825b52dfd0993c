// The fused kernel: a pair of passes (fft/planner.h, FftFused, FusedKind) in one persistent
// launch: a 1D two-pass power of two out of place (a two-pass real transform's half, fp64: the
// paired real step in one of its passes; R2C in place too), or a 2D/3D plan's two innermost axes
// (a real plan's real pass and the axis next to it), in place or not. Two launches move every element
// through device memory twice; here the first pass's tiles of a transform write its intermediate
// into the array the last pass reads (the output; a C2R pair's, the caller's input), and the last
// pass's tiles transform it a little later, while it is still in the L2 cache (H100: 50 MB, H200:
// 60 MB), so that device memory sees about one read and one write per element.
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
#include "fft/planner.h"

namespace idgpu::fft::kernels {

__device__ __forceinline__ unsigned load_acquire(const unsigned* counter) {
  unsigned value = 0;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(counter) : "memory");
  return value;
}

// Tile `tile` of a pass of the fused kernel: its T sub-transforms of transform `transform`, which
// has `count` of them (the last tile of a transform may have fewer; an R2C plane's axis pass
// tiles count - 1, its last line packed into the first: PassShape::nyquist_packed).
template <class Real, bool Inverse, int LogN, int Kind, int Cache>
__device__ __forceinline__ void fused_pass_tile(const PassLaunch& pass, long long count, long long transform,
                                                int tile, unsigned char* shared_raw) {
  const long long start = static_cast<long long>(tile) * pass.shape.per_block;
  if constexpr (pow2_paired(Kind)) {  // its tiles are always full
    pow2_paired_block<Real, Inverse, LogN, Kind, Cache>(pass, transform * count + start, shared_raw,
                                                        static_cast<int>(threadIdx.x));
  } else {
    const int valid =
        static_cast<int>(min(static_cast<long long>(pass.shape.per_block), tiled_lines(pass.shape, count) - start));
    pow2_tile<Real, Inverse, LogN, Kind, Cache>(pass, transform * count + start, valid, shared_raw,
                                                static_cast<int>(threadIdx.x));
  }
}

// The passes' kinds (FusedKinds): a 1D plan's kFirst (columns in, each sub-transform written
// contiguously) then a twiddled kColumn; a multi-dimensional C2C plan's two innermost axes,
// kSingle (whole rows) then an untwiddled kColumn; a real plan's real pass then its next axis
// (R2C: kRealPack, kColumn) or its innermost axis but one then the real pass (C2R: kColumn,
// kRealUnpack).
// Registers a thread: the pass kernels' (kPow2Registers), but where a real pass shares the kernel
// with a column pass on a plane of other than 256 a side, whose pair needs more (ptxas, sm_90:
// 87-96 in fp32, up to 168 in fp64; at 64 / 128 it spilled 400-560 / 560-850 B a thread); those
// kernels run blocks of half the threads (fft/planner.h, fused_threads).
template <class Real, int FirstKind, int LogFirst, int LastKind, int LogLast>
constexpr int fused_registers() {
  const bool real = FirstKind == kRealPack || LastKind == kRealUnpack;
  const int side_log = FirstKind == kRealPack ? LogLast : LogFirst;  // the column pass's length
  return real && fft::fused_real_wide_registers(1LL << side_log) ? (sizeof(Real) == 8 ? 168 : 96)
                                                                  : kPow2Registers<Real>;
}

template <class Real, bool Inverse, int FirstKind, int LogFirst, int LastKind, int LogLast>
__global__ void __maxnreg__((fused_registers<Real, FirstKind, LogFirst, LastKind, LogLast>())) stockham_fused(
    const __grid_constant__ FusedLaunch p) {
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
      fused_pass_tile<Real, Inverse, LogFirst, FirstKind, kFusedFirst>(p.first, p.first_count, transform, tile,
                                                                       shared_raw);
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
      fused_pass_tile<Real, Inverse, LogLast, LastKind, kFusedLast>(p.last, p.last_count, transform, tile, shared_raw);
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

// Host side: the (first, last) pass lengths compiled, by precision and kinds. 1D: the planner's
// two-pass splits of the powers of two it fuses (fft/planner.cpp), 2^17 .. 2^21 in fp32, 2^17 ..
// 2^20 in fp64. Multi-dimensional: square planes of 128^2 .. 1024^2 (fft/planner.h,
// kFusedAxesMaxLog); a real plane's real pass has half its side's points.
template <class Real, int Kinds>
struct FusedShapes {
  static constexpr int kFirstLog[] = {7, 8, 9, 10};
  static constexpr int kLastLog[] = {7, 8, 9, 10};
};
template <>
struct FusedShapes<float, kFused1D> {
  static constexpr int kFirstLog[] = {7, 9, 8, 10, 10};
  static constexpr int kLastLog[] = {10, 9, 11, 10, 11};
};
template <>
struct FusedShapes<double, kFused1D> {
  static constexpr int kFirstLog[] = {7, 9, 8, 10};
  static constexpr int kLastLog[] = {10, 9, 11, 10};
};
// A two-pass real 1D plan's passes: the 1D pairs of its half (kRealPairedForward / Inverse).
template <class Real>
struct FusedShapes<Real, kFusedPairedForward> : FusedShapes<Real, kFused1D> {};
template <class Real>
struct FusedShapes<Real, kFusedPairedInverse> : FusedShapes<Real, kFused1D> {};
template <class Real>
struct FusedShapes<Real, kFusedRealForward> {
  static constexpr int kFirstLog[] = {6, 7, 8, 9};
  static constexpr int kLastLog[] = {7, 8, 9, 10};
};
template <class Real>
struct FusedShapes<Real, kFusedRealInverse> {
  static constexpr int kFirstLog[] = {7, 8, 9, 10};
  static constexpr int kLastLog[] = {6, 7, 8, 9};
};

// The kinds of the two passes (first, last) of each FusedKinds, in its order.
inline constexpr int kFusedPassKinds[][2] = {
    {kFirst, kColumn},      {kSingle, kColumn},          {kRealPack, kColumn},
    {kColumn, kRealUnpack}, {kFirst, kPairedPack},       {kPairedUnpack, kColumn},
};

template <class Real, bool Inverse, int Kinds, int Index>
constexpr auto fused_kernel() {
  using Shapes = FusedShapes<Real, Kinds>;
  return stockham_fused<Real, Inverse, kFusedPassKinds[Kinds][0], Shapes::kFirstLog[Index], kFusedPassKinds[Kinds][1],
                        Shapes::kLastLog[Index]>;
}

// Calls `use(kernel)` with the kernel compiled for the launch's pass lengths; false when none is.
template <class Real, bool Inverse, int Kinds, class Use, int... Index>
bool with_fused_kernel(int log_first, int log_last, const Use& use, std::integer_sequence<int, Index...>) {
  using Shapes = FusedShapes<Real, Kinds>;
  const auto try_one = [&](auto index) {
    constexpr int kIndex = decltype(index)::value;
    if (Shapes::kFirstLog[kIndex] != log_first || Shapes::kLastLog[kIndex] != log_last) return false;
    constexpr auto kKernel = fused_kernel<Real, Inverse, Kinds, kIndex>();
    use(std::integral_constant<decltype(kKernel), kKernel>());
    return true;
  };
  return (try_one(std::integral_constant<int, Index>()) || ...);
}

template <class Real, bool Inverse, int Kinds, class Use>
bool with_fused_kernel_of(const FusedLaunch& launch, const Use& use) {
  constexpr int kCount = static_cast<int>(sizeof(FusedShapes<Real, Kinds>::kFirstLog) / sizeof(int));
  return with_fused_kernel<Real, Inverse, Kinds>(launch.first.shape.size_log2, launch.last.shape.size_log2, use,
                                                 std::make_integer_sequence<int, kCount>());
}

// The real kinds' kernels are compiled for their transform's direction only (R2C forward, C2R
// inverse), and where `Compiled`.
template <class Real, bool Inverse, int Kinds, bool ForInverse, bool Compiled = true, class Use>
bool with_one_direction(const FusedLaunch& launch, const Use& use) {
  if constexpr (Inverse != ForInverse || !Compiled) {
    return false;
  } else {
    return with_fused_kernel_of<Real, Inverse, Kinds>(launch, use);
  }
}

template <class Real, bool Inverse, class Use>
bool with_fused_kernel(const FusedLaunch& launch, const Use& use) {
  switch (launch.kinds) {
    case kFused1D: return with_fused_kernel_of<Real, Inverse, kFused1D>(launch, use);
    case kFusedAxes: return with_fused_kernel_of<Real, Inverse, kFusedAxes>(launch, use);
    case kFusedRealForward: return with_one_direction<Real, Inverse, kFusedRealForward, false>(launch, use);
    case kFusedRealInverse: return with_one_direction<Real, Inverse, kFusedRealInverse, true>(launch, use);
    // Two-pass real 1D plans are fused in fp64 only (plan_real).
    case kFusedPairedForward:
      return with_one_direction<Real, Inverse, kFusedPairedForward, false, sizeof(Real) == 8>(launch, use);
    case kFusedPairedInverse:
      return with_one_direction<Real, Inverse, kFusedPairedInverse, true, sizeof(Real) == 8>(launch, use);
    default: return false;
  }
}

template <class Real>
int fused_resident_blocks(const FusedLaunch& launch) {
  int per_sm = 0;
  int device = 0;
  int sms = 0;
  const auto measure = [&](auto kernel_constant) {
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
  };
  // A C2R pair is compiled for the inverse direction only.
  const bool inverse_only = launch.kinds == kFusedRealInverse || launch.kinds == kFusedPairedInverse;
  const bool found = inverse_only ? with_fused_kernel<Real, true>(launch, measure)
                                                       : with_fused_kernel<Real, false>(launch, measure);
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
