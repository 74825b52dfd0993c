// The cluster kernels: two consecutive passes of a plan in one kernel (fft/stockham_index.h,
// cluster kernels), where two launches would write the intermediate to device memory and read it
// back. A thread-block cluster of C blocks takes T consecutive sub-transforms of the combined pass
// (length M = NA NB, span L, stride S); block `rank` holds 1/C of them in shared memory at every
// moment:
//
//  1. Stage A (the first pass, kernels/stockham_pow2.cuh's column side): the block's T TA columns
//     (c, n1 = rank TA + tr), each an NA-point sub-transform read straight from the input in rows
//     of T consecutive elements (of TA when T = 1: whole transforms), with the first pass's
//     inter-pass twiddle w_{L NA}^{n2 j} on load where L > 1; out of it, in registers,
//     Y[c, n1, k2] for the thread's k2.
//  2. The second pass's inter-pass twiddle w_{L M}^{n1 (j + L k2)} (j = the sub-transform's
//     id mod L; w_M^{n1 k2} for L = 1), applied here instead of on its load.
//  3. The exchange: every block stores Y[c, n1, k2] into the shared memory of block k2 / TB, row
//     cluster_row(c, k2 mod TB), column n1: distributed shared memory, between two cluster
//     barriers (all reads of stage A done before the first stores; all stores visible before
//     stage B's reads).
//  4. Stage B (the second pass): the block's T TB rows, NB-point sub-transforms, written straight
//     to the output element p = k2 + NA k1 of each sub-transform: contiguous runs of TB where
//     L = 1, rows of T consecutive elements (stride L) otherwise.
//
// Same values as the two passes: the same stage tables, the same stage order and the same
// inter-pass twiddles (fp32 by the double recurrence, fp64 from the lo/hi tables). Device memory
// sees one read and one write per element, as a single pass. A block writes only output it
// read no input of, but every input element of a cluster's sub-transforms is read before the
// first barrier, and the second pass of a plan (L M = n) writes the elements it read: such a
// kernel runs in place too.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <atomic>
#include <utility>

#include "fft/kernels/stockham_pow2.cuh"

namespace idgpu::fft::kernels {

// The compiled geometry of a cluster kernel: M = 2^Bits, NA = 2^BitsA, C = 2^RankBits,
// T = 2^ColumnsLog2.
template <int Bits, int BitsA, int RankBits, int ColumnsLog2>
struct ClusterShape {
  static constexpr int kBitsA = BitsA;
  static constexpr int kBitsB = Bits - BitsA;
  static constexpr int kRankBits = RankBits;
  static constexpr int kRanks = 1 << kRankBits;
  static constexpr int kColumnsLog2 = kBitsB - kRankBits;  // TA
  static constexpr int kRowsLog2 = kBitsA - kRankBits;     // TB
  static constexpr int kThreads = 1 << (Bits + ColumnsLog2 - kRankBits - 4);
  static_assert(kColumnsLog2 >= 0 && kRowsLog2 >= 0 && kRankBits <= 4, "1 <= C <= 16, C divides NA and NB");
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
// The 32-bit distributed-shared-memory address of `local` (this block's shared memory) in the
// cluster's block `rank`, and 8/16-byte stores there.
__device__ __forceinline__ unsigned cluster_shared_address(const void* local, unsigned rank) {
  const auto address = static_cast<unsigned>(__cvta_generic_to_shared(local));
  unsigned mapped = 0;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(mapped) : "r"(address), "r"(rank));
  return mapped;
}
__device__ __forceinline__ void store_cluster_shared(unsigned address, float2 value) {
  asm volatile("st.shared::cluster.v2.f32 [%0], {%1, %2};" ::"r"(address), "f"(value.x), "f"(value.y) : "memory");
}
__device__ __forceinline__ void store_cluster_shared(unsigned address, double2 value) {
  asm volatile("st.shared::cluster.v2.f64 [%0], {%1, %2};" ::"r"(address), "d"(value.x), "d"(value.y) : "memory");
}
#endif

template <class Real, bool Inverse, int Bits, int BitsA, int RankBits, int ColumnsLog2, bool Later>
__global__ void __maxnreg__(kPow2Registers<Real>) stockham_cluster(const __grid_constant__ ClusterLaunch p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  using Shape = ClusterShape<Bits, BitsA, RankBits, ColumnsLog2>;
  using A = Pow2Pass<Real, Inverse, Shape::kBitsA, kColumn>;
  using B = Pow2Pass<Real, Inverse, Shape::kBitsB, kColumn>;
  using C = typename A::C;
  static_assert(A::kE == 16 && B::kE == 16, "both stages keep 16 elements per thread");
  static_assert(A::kThreads << (ColumnsLog2 + Shape::kColumnsLog2) == Shape::kThreads, "stage A fills the block");
  static_assert(B::kThreads << (ColumnsLog2 + Shape::kRowsLog2) == Shape::kThreads, "stage B fills the block");
  constexpr int kE = 16;
  constexpr int kT = 1 << ColumnsLog2;
  constexpr int kM = 1 << Bits;

  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const long long first = (static_cast<long long>(blockIdx.x) >> RankBits) << ColumnsLog2;
  const BlockFrame frame = block_frame(p.shape, first);
  const int stride = static_cast<int>(p.shape.sub);  // S (1 for whole transforms)
  const int span = static_cast<int>(p.shape.span);   // L
  extern __shared__ __align__(16) unsigned char shared_raw[];
  C* sm = reinterpret_cast<C*>(shared_raw);
  const int thread = static_cast<int>(threadIdx.x);
  C v[kE];

  // Stage A: buffer columns c + T tr across the lanes.
  {
    constexpr int kColumnsLog2 = ColumnsLog2 + Shape::kColumnsLog2;
    const int column = thread & ((1 << kColumnsLog2) - 1);
    const int tid = thread >> kColumnsLog2;
    const int c = column & (kT - 1);
    const int n1 = (rank << Shape::kColumnsLog2) + (column >> ColumnsLog2);
    // Element t = n1 + NB n2 of sub-transform c is at c + t S (below n: 32 bits).
    const C* in = static_cast<const C*>(p.input) + frame.in_base + c + n1 * stride;
#pragma unroll
    for (int k = 0; k < kE; ++k) v[k] = in[((tid + k * A::kThreads) << Shape::kBitsB) * stride];
    const long long j = Later ? frame.j0 + c : 0;  // the sub-transform's id mod L
    if constexpr (Later) {
      if constexpr (sizeof(Real) == 4) {
        column_twiddles_by_recurrence<Inverse, kE, A::kThreads>(v, tid, j, static_cast<long long>(span) << BitsA);
      } else {
        column_twiddles_from_tables<Inverse, kE, A::kThreads>(v, tid, j, p.lo_twiddles_a, p.hi_twiddles_a,
                                                              p.lo_bits_a);
      }
    }
    const A stage_a{p.twiddles_a, sm + column * p.stride_a, p.shape.shift, tid, true};
    stage_a.stages(v, std::make_integer_sequence<int, A::kStages>());
    // v[k] = Y[c, n1, k2], k2 = tid + k NA / 16; times w_{L M}^{n1 (j + L k2)}.
    if constexpr (sizeof(Real) == 4) {
      column_twiddles_by_recurrence<Inverse, kE, A::kThreads>(v, tid, static_cast<long long>(n1) * span,
                                                              static_cast<long long>(span) * kM, n1 * j);
    } else {
      column_twiddles_from_tables<Inverse, kE, A::kThreads>(v, tid, static_cast<long long>(n1) * span,
                                                            p.lo_twiddles_b, p.hi_twiddles_b, p.lo_bits_b, n1 * j);
    }
    cluster.sync();  // every block's stage A is done with its shared memory
    // k2 = tid + k NA / 16 with tid < NA / 16 and C <= 16, so the block it goes to,
    // k2 / TB = k / (16 / C), is known at compile time: one address mapping per block.
    constexpr int kPerRank = kE >> Shape::kRankBits;
#pragma unroll
    for (int to = 0; to < Shape::kRanks; ++to) {
      const unsigned base = cluster_shared_address(sm, static_cast<unsigned>(to));
#pragma unroll
      for (int kk = 0; kk < kPerRank; ++kk) {
        const int k = to * kPerRank + kk;
        const int k2 = tid + k * A::kThreads;
        const int row = cluster_row(c, k2 & ((1 << Shape::kRowsLog2) - 1), ColumnsLog2, Shape::kRowsLog2, !Later);
        const int slot = cluster_exchange_slot(row, n1, p.stride_b, p.shape.shift);
        store_cluster_shared(base + static_cast<unsigned>(slot * sizeof(C)), v[k]);
      }
    }
    cluster.sync();  // every store into this block is visible, and no block reads another any more
  }

  // Stage B: buffer rows across the lanes.
  {
    constexpr int kRowsLog2 = ColumnsLog2 + Shape::kRowsLog2;
    const int row = thread & ((1 << kRowsLog2) - 1);
    const int tid = thread >> kRowsLog2;
    int c = 0, tb = 0;
    cluster_row_parts(row, ColumnsLog2, Shape::kRowsLog2, !Later, &c, &tb);
    C* mine = sm + row * p.stride_b;
#pragma unroll
    for (int k = 0; k < kE; ++k) {
      const int e = tid + k * B::kThreads;
      v[k] = mine[e + (e >> p.shape.shift)];
    }
    __syncthreads();  // stage B's first stage writes the buffer it was read from
    const B stage_b{p.twiddles_b, mine, p.shape.shift, tid, true};
    stage_b.stages(v, std::make_integer_sequence<int, B::kStages>());
    // Output element p = k2 + NA k1 of sub-transform c: c M + p where L = 1, c + L p otherwise.
    const int k2 = (rank << Shape::kRowsLog2) + tb;
    C* out = static_cast<C*>(p.output) + frame.out_base;
    if constexpr (Later) {
      out += c + k2 * span;
#pragma unroll
      for (int k = 0; k < kE; ++k) out[((tid + k * B::kThreads) << BitsA) * span] = v[k];
    } else {
      out += c * kM + k2;
#pragma unroll
      for (int k = 0; k < kE; ++k) out[(tid + k * B::kThreads) << BitsA] = v[k];
    }
  }
#endif
}

// Host side.

template <class Real, bool Inverse, int Bits, int BitsA, int RankBits, int ColumnsLog2, bool Later>
cudaError_t launch_cluster_kernel(const ClusterLaunch& launch, cudaStream_t stream) {
  using Shape = ClusterShape<Bits, BitsA, RankBits, ColumnsLog2>;
  static std::atomic<unsigned> allowed[64] = {};
  static std::atomic<bool> wide{false};
  const auto kernel = stockham_cluster<Real, Inverse, Bits, BitsA, RankBits, ColumnsLog2, Later>;
  if (const cudaError_t status = allow_shared(kernel, launch.shared_bytes, allowed); status != cudaSuccess) {
    return status;
  }
  if (Shape::kRanks > 8 && !wide.load(std::memory_order_relaxed)) {
    // 16 blocks is beyond the portable cluster size; sm_90 allows it on request.
    const cudaError_t status = cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    if (status != cudaSuccess) return status;
    wide.store(true, std::memory_order_relaxed);
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(launch.clusters << RankBits));
  config.blockDim = dim3(static_cast<unsigned>(Shape::kThreads));
  config.dynamicSmemBytes = launch.shared_bytes;
  config.stream = stream;
  cudaLaunchAttribute attribute = {};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = Shape::kRanks;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, launch);
}

// The kernels compiled: whole transforms 2^kClusterMinBits..2^kClusterMaxBits, and pass pairs
// M = 2^kClusterPairMinBits..2^kClusterPairMaxBits of either side (fft/stockham_index.h). A
// launch whose geometry is not one of them is refused.
template <class Real, bool Inverse, bool Later, int Bits, int RankBits, int ColumnsLog2>
bool launch_cluster_if(const ClusterLaunch& launch, cudaStream_t stream, cudaError_t* status) {
  const bool later = launch.shape.span > 1;
  if (later != Later || launch.shape.size != (1 << Bits) || launch.bits_a != cluster_bits_a(Bits) ||
      launch.rank_bits != RankBits || launch.columns_log2 != ColumnsLog2 ||
      launch.threads != ClusterShape<Bits, cluster_bits_a(Bits), RankBits, ColumnsLog2>::kThreads) {
    return false;
  }
  *status = launch_cluster_kernel<Real, Inverse, Bits, cluster_bits_a(Bits), RankBits, ColumnsLog2, Later>(launch,
                                                                                                      stream);
  return true;
}

template <class Real, bool Inverse, int... Whole, int... Pair>
cudaError_t launch_cluster_compiled(const ClusterLaunch& launch, cudaStream_t stream,
                                    std::integer_sequence<int, Whole...>, std::integer_sequence<int, Pair...>) {
  constexpr int kElement = 2 * static_cast<int>(sizeof(Real));
  constexpr int kPairColumns = cluster_pair_columns_log2(kElement);
  cudaError_t status = cudaErrorInvalidValue;
  (launch_cluster_if<Real, Inverse, false, kClusterMinBits + Whole, cluster_rank_bits(kClusterMinBits + Whole), 0>(
       launch, stream, &status) ||
   ...) ||
      (launch_cluster_if<Real, Inverse, false, kClusterPairMinBits + Pair,
                         cluster_pair_rank_bits(kClusterPairMinBits + Pair, kElement), kPairColumns>(launch, stream,
                                                                                                     &status) ||
       ...) ||
      (launch_cluster_if<Real, Inverse, true, kClusterPairMinBits + Pair,
                         cluster_pair_rank_bits(kClusterPairMinBits + Pair, kElement), kPairColumns>(launch, stream,
                                                                                                    &status) ||
       ...);
  return status;
}

template <class Real>
bool cluster_kernels_usable() {
  cudaFuncAttributes attributes = {};
  if (cudaFuncGetAttributes(&attributes, stockham_cluster<Real, false, kClusterMinBits, cluster_bits_a(kClusterMinBits),
                                                          cluster_rank_bits(kClusterMinBits), 0, false>) !=
      cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.binaryVersion >= 90;
}

template <class Real>
cudaError_t launch_cluster(const ClusterLaunch& launch, bool inverse, cudaStream_t stream) {
  using Whole = std::make_integer_sequence<int, kClusterMaxBits - kClusterMinBits + 1>;
  using Pair = std::make_integer_sequence<int, kClusterPairMaxBits - kClusterPairMinBits + 1>;
  return inverse ? launch_cluster_compiled<Real, true>(launch, stream, Whole(), Pair())
                 : launch_cluster_compiled<Real, false>(launch, stream, Whole(), Pair());
}

}  // namespace idgpu::fft::kernels
