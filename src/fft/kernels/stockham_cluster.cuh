// The cluster kernel: a whole power-of-two transform of n = NA NB points (fft/stockham_index.h,
// cluster plans) in one kernel, where the two-pass plan (fft/planner.h) would write the
// intermediate to device memory and read it back. A thread-block cluster of C blocks takes one
// transform; block `rank` holds 1/C of it in shared memory at every moment:
//
//  1. Stage A (the first pass, kernels/stockham_pow2.cuh's column side): the block's TA = NB / C
//     columns n1 = rank TA + tr, each an NA-point sub-transform read straight from the input in
//     rows of TA consecutive elements; out of it, in registers, Y[n1, k2] for the thread's k2.
//  2. The inter-pass twiddle w_n^{n1 k2} (the last pass's, applied here instead of on its load),
//     between the arrive and the wait of the first cluster barrier: its double-precision
//     recurrence overlaps the other blocks' stage A.
//  3. The exchange: every block stores Y[n1, k2] into the shared memory of block k2 / TB, row
//     k2 mod TB (TB = NA / C), column n1: distributed shared memory, between two cluster
//     barriers (all reads of stage A done before the first stores; all stores visible before
//     stage B's reads).
//  4. Stage B (the last pass): the block's TB rows, NB-point sub-transforms, written straight to
//     the output X[k2 + NA k1] in rows of TB consecutive elements.
//
// Same values as the two passes: the same stage tables, the same stage order and the same
// inter-pass twiddle (fp32 by the double recurrence, fp64 from the lo/hi tables). Device memory
// sees one read and one write per element, as a single pass. A block writes only output it
// read no input of, but every input element of the transform is read before the first barrier,
// so the kernel runs in place too.
//
// A real plan (1D R2C / C2R of n = 2 M reals, M the cluster's length; Step below) adds the real
// step of the paired passes (RealStep in fft/planner.h) where the data meet the complex side:
//  - R2C (kClusterR2C): stage A reads the n reals as M complex values; its exchange gives each
//    block its stage-B rows in pairs k2, NA - k2 (cluster_paired_row, fft/stockham_index.h), so
//    that after stage B every output's partner Z[M - k] is in the block's own buffer: the real
//    step after one more block barrier, the outputs stored in two runs of TB / 2 rows.
//    Measured on an H100 against the blocks' contiguous rows, where the partners were in other
//    blocks: reading them there (generic loads, each waiting for the last output's store) gave
//    fp32 2^15 .. 2^17 0.28 / 0.28 / 0.37 of copy bandwidth, a second exchange of stores
//    between two cluster barriers 0.36 / 0.34 / 0.37;
//  - C2R (kClusterC2R): stage A forms Z[m] from X[m] and X[M - m], both read from device memory
//    (the partner's lines are the mirror block's, read by it at about the same time: the L2
//    serves the second read), and stage B writes the M complex values as the n reals. Measured
//    slower on an H100: each block's columns paired as R2C's rows (n1 with NB - n1, the
//    partners read from shared memory after a block barrier), fp32 2^15 .. 2^17 0.62 / 0.46 /
//    0.42 of copy bandwidth against 0.60 / 0.57 / 0.53, fp64 0.46 / 0.47 / 0.43 against 0.50 /
//    0.50 / 0.45 (its stage-A loads in two runs of TA / 2 columns, 64 B at 2^16).
// Still one read and one write per element; in place too (cuFFT's padded layout), since every
// input of a transform, partners included, is read before the first barrier.
#pragma once

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <atomic>
#include <utility>

#include "fft/kernels/stockham.h"
#include "fft/kernels/stockham_pow2.cuh"

namespace idgpu::fft::kernels {

// What a cluster kernel does around the complex transform: ClusterLaunch::real_step
// (kClusterComplex .. kClusterPackedR2C, kernels/stockham.h).

// A cluster's split of N = 2^Bits points over its blocks, for 2^LinesLog2 lines at once (a
// cluster column pass; 0: one transform, a cluster plan).
template <int Bits, int LinesLog2 = 0, int BitsA = cluster_bits_a(Bits)>
struct ClusterShape {
  static constexpr int kBitsA = BitsA;
  static constexpr int kBitsB = Bits - kBitsA;
  static constexpr int kRankBits = cluster_rank_bits(Bits + LinesLog2);
  static constexpr int kRanks = 1 << kRankBits;
  static constexpr int kColumnsLog2 = kBitsB - kRankBits;  // TA
  static constexpr int kRowsLog2 = kBitsA - kRankBits;     // TB
  static constexpr int kThreads = 1 << (Bits + LinesLog2 - kRankBits - 4);
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
// An empty asm that reads v[0..E): the values exist (and the loads they came from have
// returned) before the next volatile asm issues.
template <int E>
__device__ __forceinline__ void registers_ready(const float2* v) {
#pragma unroll
  for (int k = 0; k < E; ++k) asm volatile("" ::"f"(v[k].x), "f"(v[k].y));
}
template <int E>
__device__ __forceinline__ void registers_ready(const double2* v) {
#pragma unroll
  for (int k = 0; k < E; ++k) asm volatile("" ::"d"(v[k].x), "d"(v[k].y));
}
// The two halves of a cluster barrier; the arrive without memory ordering.
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.aligned;" ::: "memory"); }
__device__ __forceinline__ void store_cluster_shared(unsigned address, float2 value) {
  asm volatile("st.shared::cluster.v2.f32 [%0], {%1, %2};" ::"r"(address), "f"(value.x), "f"(value.y) : "memory");
}
__device__ __forceinline__ void store_cluster_shared(unsigned address, double2 value) {
  asm volatile("st.shared::cluster.v2.f64 [%0], {%1, %2};" ::"r"(address), "d"(value.x), "d"(value.y) : "memory");
}
// Stage A's exchange: v[k], row k2 = tid + k NA / 16 of the thread's stage-A output, into block
// k2 / TB at element slot(k) of its shared memory. With tid < NA / 16 and C <= 16 blocks,
// k2 / TB = k / (16 / C) is known at compile time: one address mapping per block.
template <int Ranks, class C, class Slot>
__device__ __forceinline__ void exchange_rows(const C* v, C* sm, Slot slot) {
  constexpr int kPerRank = 16 / Ranks;
#pragma unroll
  for (int to = 0; to < Ranks; ++to) {
    const unsigned base = cluster_shared_address(sm, static_cast<unsigned>(to));
#pragma unroll
    for (int kk = 0; kk < kPerRank; ++kk) {
      const int k = to * kPerRank + kk;
      store_cluster_shared(base + static_cast<unsigned>(slot(k) * sizeof(C)), v[k]);
    }
  }
}
#endif

// The real steps of the cluster kernels (RealStep in fft/planner.h), w = w_{2M}^k from the
// paired passes' split tables:
//  - C2R, before stage A: Z[m] = (X[m] + b) + i conj(w) (X[m] - b), b = conj X[M - m];
//  - R2C, after stage B: X[k] = (Z[k] + b) / 2 - i w (Z[k] - b) / 2, b = conj Z[M - k].
template <class C>
__device__ __forceinline__ C cluster_c2r_combine(C x, C b, const void* tables, int lo_bits, unsigned m) {
  const C w = cconj(split_real_twiddle<C>(tables, lo_bits, m));
  const C sum = cadd(x, b);
  const C t = cmul(w, csub(x, b));
  return make<C>(sum.x - t.y, sum.y + t.x);
}
template <class C>
__device__ __forceinline__ C cluster_r2c_split(C z, C b, const void* tables, int lo_bits, unsigned k) {
  using Real = decltype(z.x);
  const C w = split_real_twiddle<C>(tables, lo_bits, k);
  const C sum = cadd(z, b);
  const C t = cmul(w, csub(z, b));
  return make<C>(static_cast<Real>(0.5) * (sum.x + t.y), static_cast<Real>(0.5) * (sum.y - t.x));
}
// Stage B's outputs v[k] (elements tid + k Threads of the lane's row) back into the lane's padded
// buffer `mine` (where `store`), between two block barriers: the first keeps stage B's last reads
// of the buffers before the stores, the second makes every buffer whole before partners are read.
template <int E, int Threads, class C>
__device__ __forceinline__ void stage_rows(const C* v, C* mine, int tid, int shift, bool store) {
  __syncthreads();
  if (store) {
#pragma unroll
    for (int k = 0; k < E; ++k) {
      const int e = tid + k * Threads;
      mine[e + (e >> shift)] = v[k];
    }
  }
  __syncthreads();
}

template <class Real, bool Inverse, int Bits, int Step = kClusterComplex>
__global__ void __maxnreg__(kPow2Registers<Real>) stockham_cluster(const __grid_constant__ ClusterLaunch p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  using Shape = ClusterShape<Bits>;
  using A = Pow2Pass<Real, Inverse, Shape::kBitsA, kColumn>;
  using B = Pow2Pass<Real, Inverse, Shape::kBitsB, kColumn>;
  using C = typename A::C;
  static_assert(A::kE == 16 && B::kE == 16, "both stages keep 16 elements per thread");
  static_assert(A::kThreads << Shape::kColumnsLog2 == Shape::kThreads, "stage A fills the block");
  static_assert(B::kThreads << Shape::kRowsLog2 == Shape::kThreads, "stage B fills the block");
  constexpr int kE = 16;
  constexpr int kNA = 1 << Shape::kBitsA;
  constexpr int kNB = 1 << Shape::kBitsB;

  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const long long transform = static_cast<long long>(blockIdx.x) >> Shape::kRankBits;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  C* sm = reinterpret_cast<C*>(shared_raw);
  const int thread = static_cast<int>(threadIdx.x);
  C v[kE];

  // Stage A: columns across the lanes, rank TA + tr.
  {
    const int tr = thread & ((1 << Shape::kColumnsLog2) - 1);
    const int tid = thread >> Shape::kColumnsLog2;
    const int n1 = (rank << Shape::kColumnsLog2) + tr;
    const C* x = static_cast<const C*>(p.input) + transform * p.in_dist;
#pragma unroll
    for (int k = 0; k < kE; ++k) v[k] = x[n1 + (tid + k * A::kThreads) * kNB];
    if constexpr (Step == kClusterC2R) {
      // Z[m] = (X[m] + conj X[M-m]) + i w^-m (X[m] - conj X[M-m]), m = n1 + NB n2 (m = 0: X[M]).
#pragma unroll
      for (int k = 0; k < kE; ++k) {
        const int m = n1 + (tid + k * A::kThreads) * kNB;
        v[k] = cluster_c2r_combine(v[k], cconj(x[(1 << Bits) - m]), p.real_twiddles, p.real_lo_bits,
                                   static_cast<unsigned>(m));
      }
    }
    const A stage_a{p.twiddles_a, sm + tr * p.stride_a, p.shift, tid, true};
    stage_a.stages(v, std::make_integer_sequence<int, A::kStages>());
    // This block is done with its shared memory (stage A's last stage read it into v[] and does
    // not write it back): arrive now and take the twiddles while the other blocks catch up. The
    // barrier only has to keep this block's reads before the other blocks' stores into its
    // buffer, so the arrive is relaxed; v[] depends on every read and is made to exist before the
    // arrive issues, so the reads have returned (the stores come a barrier's round trip later).
    // Measured on an H100 against cluster.sync() after the twiddles: 2^14..2^16 moved 0.85 /
    // 0.81 / 0.73 of copy bandwidth in fp32 (0.82 / 0.76 / 0.64 before) and 0.72 / 0.73 / 0.60
    // in fp64 (0.63 / 0.59 / 0.49); a relaxed arrive at the same place alone gave 1-4%.
    registers_ready<kE>(v);
    cluster_arrive_relaxed();
    // v[k] = Y[n1, k2], k2 = tid + k NA / 16.
    if constexpr (sizeof(Real) == 4) {
      column_twiddles_by_recurrence<Inverse, kE, A::kThreads>(v, tid, n1, 1LL << Bits);
    } else {
      column_twiddles_from_tables<Inverse, kE, A::kThreads>(v, tid, n1, p.lo_twiddles, p.hi_twiddles, p.lo_bits);
    }
    cluster_wait();  // every block's stage A is done with its shared memory
    if constexpr (Step == kClusterR2C) {
      // Rows paired within the blocks (cluster_paired_row): a block and row per element.
#pragma unroll
      for (int k = 0; k < kE; ++k) {
        int to = 0, row = 0;
        cluster_paired_row(tid + k * A::kThreads, Shape::kRowsLog2, Shape::kBitsA, &to, &row);
        store_cluster_shared(
            cluster_shared_address(sm + row * p.stride_b + n1 + (n1 >> p.shift), static_cast<unsigned>(to)), v[k]);
      }
    } else {
      exchange_rows<Shape::kRanks>(v, sm, [&](int k) {
        return cluster_exchange_slot(tid + k * A::kThreads, n1, Shape::kRowsLog2, p.stride_b, p.shift);
      });
    }
    cluster.sync();  // every store into this block is visible, and no block reads another any more
  }

  // Stage B: rows across the lanes, rank TB + tr.
  {
    const int tr = thread & ((1 << Shape::kRowsLog2) - 1);
    const int tid = thread >> Shape::kRowsLog2;
    C* mine = sm + tr * p.stride_b;
#pragma unroll
    for (int k = 0; k < kE; ++k) {
      const int e = tid + k * B::kThreads;
      v[k] = mine[e + (e >> p.shift)];
    }
    __syncthreads();  // stage B's first stage writes the buffer it was read from
    const B stage_b{p.twiddles_b, mine, p.shift, tid, true};
    stage_b.stages(v, std::make_integer_sequence<int, B::kStages>());
    const int k2 = Step == kClusterR2C ? cluster_paired_k2(rank, tr, Shape::kRowsLog2, Shape::kBitsA)
                                       : (rank << Shape::kRowsLog2) + tr;
    C* out = static_cast<C*>(p.output) + transform * p.out_dist;
    if constexpr (Step == kClusterR2C) {
      // v[k] = Z[k2 + NA k1], k1 = tid + k NB / 16, into the buffer; the partners Z[M - k] are
      // in the block's row cluster_paired_partner_row.
      stage_rows<kE, B::kThreads>(v, mine, tid, p.shift, true);
      const C* partner = sm + cluster_paired_partner_row(rank, tr, Shape::kRowsLog2) * p.stride_b;
      // X[k] = (Z[k] + conj Z[M-k]) / 2 - i w^k (Z[k] - conj Z[M-k]) / 2; k = 0 also writes
      // X[M] = Re Z[0] - Im Z[0].
#pragma unroll
      for (int k = 0; k < kE; ++k) {
        const int e = tid + k * B::kThreads;
        int partner_k2 = 0, partner_k1 = 0;
        cluster_real_partner(k2, e, Shape::kBitsA, Shape::kBitsB, &partner_k2, &partner_k1);
        const C bc = cconj(partner[partner_k1 + (partner_k1 >> p.shift)]);
        const int index = k2 + e * kNA;
        out[index] = cluster_r2c_split(v[k], bc, p.real_twiddles, p.real_lo_bits, static_cast<unsigned>(index));
        if (index == 0) out[1 << Bits] = make<C>(v[k].x - v[k].y, static_cast<Real>(0));
      }
    } else {
#pragma unroll
      for (int k = 0; k < kE; ++k) out[k2 + (tid + k * B::kThreads) * kNA] = v[k];
    }
  }
#endif
}

// v[k] times w_m^{first + k step} (exponents below m): fp32 by the recurrence in double
// (twiddles_by_recurrence), fp64 each from its own double sincospi (the cluster column passes
// keep no lo/hi tables; one rounding of 2 x / m, as accurate as a table entry).
template <bool Inverse, int E, class C>
__device__ __forceinline__ void line_twiddles(C* v, unsigned long long first, unsigned long long step,
                                              unsigned long long m) {
  if constexpr (sizeof(v[0].x) == 4) {
    twiddles_by_recurrence<Inverse, E>(v, first, step, m);
  } else {
#pragma unroll
    for (int k = 0; k < E; ++k) {
      const unsigned long long exponent = first + static_cast<unsigned long long>(k) * step;
      if (exponent != 0) v[k] = cmul(v[k], unit_root<Inverse>(exponent, m));
    }
  }
}

// A cluster column pass (fft/stockham_index.h): T = 2^LinesLog2 adjacent lines of a column pass
// of N = 2^Bits points per cluster, each line's transform split NA x NB over the blocks as the
// kernel above splits one transform, the lines innermost in every lane layout so that each
// global access is a row of T lines (line_twiddles for the inter-pass and cluster twiddles).
// ContiguousOut: a first pass, each line's output contiguous (out_line apart), split N / 16 x 16
// so that a block's rows are runs of TB >= 16 outputs (cluster_rows_slot in fft/stockham_index.h).
// Step: a two-pass real plan's paired pass (real cluster column passes in fft/stockham_index.h):
// kClusterC2R a first pass whose stage A forms Z from X and its mirror, kClusterR2C a last pass
// whose stage B's outputs meet their partners in the block's own buffers. kClusterPackedR2C: an
// R2C plane's axis pass over S = n / 2 + 1 lines (S - 1 a multiple of T), lines 0 and S - 1 (real
// after the rows' R2C) packed as z = a + i b into line 0 of the first cluster, whose rows pair as
// a real cluster plan's (cluster_paired_row) so that A[k] = (Z[k] + conj Z[N-k]) / 2 and
// B[k] = (Z[k] - conj Z[N-k]) / 2i meet in the block (packed cluster column passes).
template <int Bits, int LinesLog2, bool ContiguousOut>
using ClusterLinesShape =
    ClusterShape<Bits, LinesLog2, ContiguousOut ? cluster_first_bits_a(Bits) : cluster_bits_a(Bits)>;

template <class Real, bool Inverse, int Bits, int LinesLog2, bool ContiguousOut, int Step = kClusterComplex>
__global__ void __maxnreg__(kPow2Registers<Real>) stockham_cluster_lines(const __grid_constant__ ClusterLaunch p) {
  static_assert(Step == kClusterComplex || (Step == kClusterR2C && !Inverse && !ContiguousOut) ||
                    (Step == kClusterC2R && Inverse && ContiguousOut) ||
                    (Step == kClusterPackedR2C && !Inverse && !ContiguousOut),
                "R2C's step follows a forward last pass, C2R's precedes an inverse first pass");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  namespace cg = cooperative_groups;
  using Shape = ClusterLinesShape<Bits, LinesLog2, ContiguousOut>;
  using A = Pow2Pass<Real, Inverse, Shape::kBitsA, kColumn>;
  using B = Pow2Pass<Real, Inverse, Shape::kBitsB, kColumn>;
  using C = typename A::C;
  static_assert(A::kE == 16 && B::kE == 16, "both stages keep 16 elements per thread");
  static_assert(A::kThreads << (Shape::kColumnsLog2 + LinesLog2) == Shape::kThreads, "stage A fills the block");
  static_assert(B::kThreads << (Shape::kRowsLog2 + LinesLog2) == Shape::kThreads, "stage B fills the block");
  constexpr int kE = 16;
  constexpr int kLines = 1 << LinesLog2;
  constexpr int kNA = 1 << Shape::kBitsA;
  constexpr int kNB = 1 << Shape::kBitsB;

  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  constexpr bool kPaired = Step == kClusterR2C || Step == kClusterC2R;
  // Cluster -> (transform, its lines: columns j0 .. j0 + T - 1, or a paired group's columns).
  const long long id = static_cast<long long>(blockIdx.x) >> Shape::kRankBits;
  const long long groups = p.lines >> LinesLog2;
  const long long transform = id / groups;
  const long long group = id - transform * groups;
  const int j0 = static_cast<int>(kPaired ? group << (LinesLog2 - 1) : group << LinesLog2);
  const int stride = static_cast<int>(p.lines);  // S; l + e S < S N <= 2^31
  const auto column_of = [&](int line) {
    return kPaired ? static_cast<int>(cluster_paired_column(p.lines, j0, line, LinesLog2)) : j0 + line;
  };
  extern __shared__ __align__(16) unsigned char shared_raw[];
  C* sm = reinterpret_cast<C*>(shared_raw);
  const int thread = static_cast<int>(threadIdx.x);
  C v[kE];

  // Stage A: lanes tr = l + T c, column n1 = rank TA + c of line l.
  {
    const int tr = thread & ((kLines << Shape::kColumnsLog2) - 1);
    const int line = tr & (kLines - 1);
    const int n1 = (rank << Shape::kColumnsLog2) + (tr >> LinesLog2);
    const int tid = thread >> (Shape::kColumnsLog2 + LinesLog2);
    const int column = column_of(line);
    const C* in = static_cast<const C*>(p.input) + transform * p.in_dist;
    const C* x = in + column;
    // The packed line (kClusterPackedR2C): line 0 of the first cluster, z = a + i b with b from
    // line S - 1.
    const bool packed = Step == kClusterPackedR2C && column == 0;
#pragma unroll
    for (int k = 0; k < kE; ++k) v[k] = x[(n1 + (tid + k * A::kThreads) * kNB) * stride];
    if (packed) {
#pragma unroll
      for (int k = 0; k < kE; ++k) {
        const C b = x[(n1 + (tid + k * A::kThreads) * kNB) * stride + stride - 1];
        v[k] = make<C>(v[k].x - b.y, v[k].y + b.x);
      }
    }
    if constexpr (Step == kClusterC2R) {
      // Z[m] = (X[m] + conj X[M-m]) + i w^-m (X[m] - conj X[M-m]), m = column + S e (m = 0: X[M]).
      const int total = stride << Bits;  // M
#pragma unroll
      for (int k = 0; k < kE; ++k) {
        const int m = column + (n1 + (tid + k * A::kThreads) * kNB) * stride;
        v[k] = cluster_c2r_combine(v[k], cconj(in[total - m]), p.real_twiddles, p.real_lo_bits,
                                   static_cast<unsigned>(m));
      }
    }
    if (p.twiddle_m > 0) {
      // w_M^{e j}, e = n1 + NB (tid + k NA / 16), j the column.
      const auto j = static_cast<unsigned long long>(column);
      line_twiddles<Inverse, kE>(v, static_cast<unsigned long long>(n1 + tid * kNB) * j,
                                 static_cast<unsigned long long>(A::kThreads * kNB) * j,
                                 static_cast<unsigned long long>(p.twiddle_m));
    }
    const A stage_a{p.twiddles_a, sm + tr * p.stride_a, p.shift, tid, true};
    stage_a.stages(v, std::make_integer_sequence<int, A::kStages>());
    // As the kernel above: this block's reads are done; arrive, twiddle, then wait for the others.
    registers_ready<kE>(v);
    cluster_arrive_relaxed();
    // v[k] = Y[n1, k2] of line l, k2 = tid + k NA / 16: times w_N^{n1 k2}.
    line_twiddles<Inverse, kE>(v, static_cast<unsigned long long>(tid) * n1,
                               static_cast<unsigned long long>(A::kThreads) * n1, 1ULL << Bits);
    cluster_wait();
    if constexpr (Step == kClusterR2C || Step == kClusterPackedR2C) {
      // Rows paired within the blocks (cluster_mirror_row; column 0 cluster_paired_row; the
      // packed kernel's other lines as the complex exchange's), still line-innermost: a block
      // and row per element.
#pragma unroll
      for (int k = 0; k < kE; ++k) {
        const int k2 = tid + k * A::kThreads;
        int to = k2 >> Shape::kRowsLog2, row = k2 & ((1 << Shape::kRowsLog2) - 1);
        if (column == 0) {
          cluster_paired_row(k2, Shape::kRowsLog2, Shape::kBitsA, &to, &row);
        } else if constexpr (Step == kClusterR2C) {
          cluster_mirror_row(k2, Shape::kRowsLog2, Shape::kBitsA, &to, &row);
        }
        const int slot = cluster_lines_slot(row, n1, line, Shape::kRowsLog2, Shape::kBitsB, LinesLog2);
        store_cluster_shared(cluster_shared_address(sm + slot, static_cast<unsigned>(to)), v[k]);
      }
    } else {
      // Line-innermost rows (cluster_lines_slot): a warp's lanes store one contiguous run.
      exchange_rows<Shape::kRanks>(v, sm, [&](int k) {
        return cluster_lines_slot(tid + k * A::kThreads, n1, line, Shape::kRowsLog2, Shape::kBitsB, LinesLog2);
      });
    }
    cluster.sync();
  }

  // Stage B: lanes tr = l + T r, row k2 = rank TB + r of line l.
  {
    const int tr = thread & ((kLines << Shape::kRowsLog2) - 1);
    const int line = tr & (kLines - 1);
    const int row = tr >> LinesLog2;
    const int tid = thread >> (Shape::kRowsLog2 + LinesLog2);
#pragma unroll
    for (int k = 0; k < kE; ++k) {
      v[k] = sm[cluster_lines_slot(row, tid + k * B::kThreads, line, Shape::kRowsLog2, Shape::kBitsB, LinesLog2)];
    }
    __syncthreads();  // stage B (or the output's staging) writes over the exchange's rows
    const B stage_b{p.twiddles_b, sm + tr * p.stride_b, p.shift, tid, true};
    stage_b.stages(v, std::make_integer_sequence<int, B::kStages>());
    if constexpr (ContiguousOut) {
      // One radix-16 butterfly a thread: v[k1] = Z[k2 + NA k1] of line l. Staged rows-innermost
      // (cluster_rows_slot), then stored in runs of TB consecutive outputs a line.
      static_assert(B::kStages == 1 && B::kThreads == 1, "a first pass's stage B is one butterfly in registers");
#pragma unroll
      for (int k = 0; k < kE; ++k) sm[cluster_rows_slot(row, k, line, Shape::kRowsLog2, Shape::kBitsB)] = v[k];
      __syncthreads();
      C* out = static_cast<C*>(p.output) + transform * p.out_dist + (rank << Shape::kRowsLog2);
#pragma unroll
      for (int i = 0; i < kE; ++i) {
        const int q = thread + i * Shape::kThreads;  // (line, k1, row), rows innermost
        const int r = q & ((1 << Shape::kRowsLog2) - 1);
        const int k1 = (q >> Shape::kRowsLog2) & (kNB - 1);
        const int l = q >> (Shape::kRowsLog2 + Shape::kBitsB);
        out[column_of(l) * p.out_line + r + k1 * kNA] = sm[cluster_rows_slot(r, k1, l, Shape::kRowsLog2, Shape::kBitsB)];
      }
    } else if constexpr (Step == kClusterR2C) {
      // v[k] = Z[k2 + NA k1] of the line's column, k1 = tid + k NB / 16, into the lane's buffer;
      // the partners Z[M - k] are in the partner line's row (cluster_real_partner's element for
      // column 0, else NB - 1 - k1).
      const int column = column_of(line);
      const bool own = column == 0;
      const int k2 = own ? cluster_paired_k2(rank, row, Shape::kRowsLog2, Shape::kBitsA)
                         : cluster_mirror_k2(rank, row, Shape::kRowsLog2, Shape::kBitsA);
      stage_rows<kE, B::kThreads>(v, sm + tr * p.stride_b, tid, p.shift, true);
      const int partner_line = cluster_paired_line(p.lines, column, line, LinesLog2);
      const int partner_row =
          own ? cluster_paired_partner_row(rank, row, Shape::kRowsLog2) : (1 << Shape::kRowsLog2) - 1 - row;
      const C* partner = sm + (partner_line + (partner_row << LinesLog2)) * p.stride_b;
      C* out = static_cast<C*>(p.output) + transform * p.out_dist;
      // X[k] = (Z[k] + conj Z[M-k]) / 2 - i w^k (Z[k] - conj Z[M-k]) / 2; k = 0 also writes
      // X[M] = Re Z[0] - Im Z[0].
#pragma unroll
      for (int k = 0; k < kE; ++k) {
        const int k1 = tid + k * B::kThreads;
        int partner_k2 = 0, partner_k1 = kNB - 1 - k1;
        if (own) cluster_real_partner(k2, k1, Shape::kBitsA, Shape::kBitsB, &partner_k2, &partner_k1);
        const C bc = cconj(partner[partner_k1 + (partner_k1 >> p.shift)]);
        const int index = column + (k2 + k1 * kNA) * stride;
        out[index] = cluster_r2c_split(v[k], bc, p.real_twiddles, p.real_lo_bits, static_cast<unsigned>(index));
        if (index == 0) out[stride << Bits] = make<C>(v[k].x - v[k].y, static_cast<Real>(0));
      }
    } else if constexpr (Step == kClusterPackedR2C) {
      // The packed line's rows as a real cluster plan's (cluster_paired_k2); the first cluster's
      // blocks stage their rows to pair them, the others store as the complex pass.
      const int column = column_of(line);
      const bool packed = column == 0;
      const int k2 = packed ? cluster_paired_k2(rank, row, Shape::kRowsLog2, Shape::kBitsA) : (rank << Shape::kRowsLog2) + row;
      C* out = static_cast<C*>(p.output) + transform * p.out_dist;
      if (j0 == 0) {  // the same for every thread of the cluster
        stage_rows<kE, B::kThreads>(v, sm + tr * p.stride_b, tid, p.shift, packed);
        if (packed) {
          // A[k] = (Z[k] + conj Z[N-k]) / 2 to line 0, B[k] = (Z[k] - conj Z[N-k]) / 2i to line S - 1.
          const C* partner = sm + (cluster_paired_partner_row(rank, row, Shape::kRowsLog2) << LinesLog2) * p.stride_b;
#pragma unroll
          for (int k = 0; k < kE; ++k) {
            const int k1 = tid + k * B::kThreads;
            int partner_k2 = 0, partner_k1 = 0;
            cluster_real_partner(k2, k1, Shape::kBitsA, Shape::kBitsB, &partner_k2, &partner_k1);
            const C bc = cconj(partner[partner_k1 + (partner_k1 >> p.shift)]);
            const int index = (k2 + k1 * kNA) * stride;
            const C sum = cadd(v[k], bc);
            const C difference = csub(v[k], bc);
            out[index] = make<C>(static_cast<Real>(0.5) * sum.x, static_cast<Real>(0.5) * sum.y);
            out[index + stride - 1] =
                make<C>(static_cast<Real>(0.5) * difference.y, static_cast<Real>(-0.5) * difference.x);
          }
        }
      }
      if (!packed) {
#pragma unroll
        for (int k = 0; k < kE; ++k) out[(k2 + (tid + k * B::kThreads) * kNA) * stride + column] = v[k];
      }
    } else {
      const int k2 = (rank << Shape::kRowsLog2) + row;
      C* out = static_cast<C*>(p.output) + transform * p.out_dist + column_of(line);
#pragma unroll
      for (int k = 0; k < kE; ++k) out[(k2 + (tid + k * B::kThreads) * kNA) * stride] = v[k];
    }
  }
#endif
}

// Host side.

// `clusters` clusters of the kernel's Shape; each kernel (a template instance) keeps its own
// attribute flags, per device (allow_shared, allow_wide_clusters).
template <class Shape, class Kernel>
cudaError_t launch_clusters(Kernel kernel, const ClusterLaunch& launch, long long clusters, cudaStream_t stream,
                            std::atomic<unsigned>* allowed, std::atomic<bool>* wide) {
  if (launch.rank_bits != Shape::kRankBits || launch.threads != Shape::kThreads) return cudaErrorInvalidValue;
  if (clusters < 1 || clusters > (0x7fffffffLL >> Shape::kRankBits)) return cudaErrorInvalidValue;
  if (const cudaError_t status = allow_shared(kernel, launch.shared_bytes, allowed); status != cudaSuccess) {
    return status;
  }
  // 16 blocks is beyond the portable cluster size; sm_90 allows it on request.
  if constexpr (Shape::kRanks > 8) {
    if (const cudaError_t status = allow_wide_clusters(kernel, wide); status != cudaSuccess) return status;
  }
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(clusters << Shape::kRankBits));
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

template <class Real, bool Inverse, int Bits, int Step>
cudaError_t launch_cluster_kernel(const ClusterLaunch& launch, cudaStream_t stream) {
  static std::atomic<unsigned> allowed[64] = {};
  static std::atomic<bool> wide[64] = {};
  return launch_clusters<ClusterShape<Bits>>(stockham_cluster<Real, Inverse, Bits, Step>, launch, launch.batch, stream,
                                             allowed, wide);
}

template <class Real, bool Inverse, int Bits, bool ContiguousOut, int Step>
cudaError_t launch_cluster_lines_kernel(const ClusterLaunch& launch, cudaStream_t stream) {
  constexpr int kLinesLog2 = cluster_column_lines_log2(2 * sizeof(Real));
  static std::atomic<unsigned> allowed[64] = {};
  static std::atomic<bool> wide[64] = {};
  // S lines a transform, a multiple of T; a packed pass's S - 1.
  const long long tiled = Step == kClusterPackedR2C ? launch.lines - 1 : launch.lines;
  if (launch.lines_log2 != kLinesLog2 || tiled < 1 || tiled % (1LL << kLinesLog2) != 0) {
    return cudaErrorInvalidValue;
  }
  return launch_clusters<ClusterLinesShape<Bits, kLinesLog2, ContiguousOut>>(
      stockham_cluster_lines<Real, Inverse, Bits, kLinesLog2, ContiguousOut, Step>, launch,
      launch.batch * (launch.lines >> kLinesLog2), stream, allowed, wide);
}

template <class Real, bool Inverse, int Step, int... Offset>
cudaError_t launch_cluster_bits(const ClusterLaunch& launch, cudaStream_t stream,
                                std::integer_sequence<int, Offset...>) {
  cudaError_t status = cudaErrorInvalidValue;
  const auto launch_if = [&](auto bits) {
    constexpr int kBits = decltype(bits)::value;
    if (launch.bits != kBits) return false;
    status = launch_cluster_kernel<Real, Inverse, kBits, Step>(launch, stream);
    return true;
  };
  (launch_if(std::integral_constant<int, kClusterMinBits + Offset>()) || ...);
  return status;
}

// A cluster column pass (launch.lines_log2 > 0; stockham_cluster_lines_f32.cu, _f64.cu).
template <class Real, bool Inverse, int Step, int... Offset>
cudaError_t launch_cluster_lines_bits(const ClusterLaunch& launch, cudaStream_t stream,
                                      std::integer_sequence<int, Offset...>) {
  cudaError_t status = cudaErrorInvalidValue;
  const auto launch_if = [&](auto bits) {
    constexpr int kBits = decltype(bits)::value;
    if (launch.bits != kBits) return false;
    if constexpr (Step == kClusterComplex) {
      status = launch.out_line > 0 ? launch_cluster_lines_kernel<Real, Inverse, kBits, true, Step>(launch, stream)
                                   : launch_cluster_lines_kernel<Real, Inverse, kBits, false, Step>(launch, stream);
    } else {
      // R2C's step in a last pass (column out), C2R's in a first pass (contiguous out); the
      // packed pass column out, with no twiddle.
      constexpr bool kFirst = Step == kClusterC2R;
      constexpr bool kTables = Step != kClusterPackedR2C;
      if ((launch.out_line > 0) != kFirst || (kTables && launch.real_twiddles == nullptr) ||
          (!kTables && launch.twiddle_m != 0)) {
        return true;
      }
      status = launch_cluster_lines_kernel<Real, Inverse, kBits, kFirst, Step>(launch, stream);
    }
    return true;
  };
  (launch_if(std::integral_constant<int, kClusterColumnMinBits + Offset>()) || ...);
  return status;
}

// A real plan's paired pass (launch.real_step kClusterR2C / kClusterC2R) runs in its step's
// direction: R2C forward, C2R inverse.
template <class Real>
cudaError_t launch_cluster_lines(const ClusterLaunch& launch, bool inverse, cudaStream_t stream) {
  const auto line_bits = std::make_integer_sequence<int, kClusterColumnMaxBits - kClusterColumnMinBits + 1>();
  switch (launch.real_step) {
    case kClusterComplex:
      return inverse ? launch_cluster_lines_bits<Real, true, kClusterComplex>(launch, stream, line_bits)
                     : launch_cluster_lines_bits<Real, false, kClusterComplex>(launch, stream, line_bits);
    case kClusterR2C: return launch_cluster_lines_bits<Real, false, kClusterR2C>(launch, stream, line_bits);
    case kClusterC2R: return launch_cluster_lines_bits<Real, true, kClusterC2R>(launch, stream, line_bits);
    case kClusterPackedR2C: return launch_cluster_lines_bits<Real, false, kClusterPackedR2C>(launch, stream, line_bits);
    default: return cudaErrorInvalidValue;
  }
}

template <class Real>
bool cluster_kernels_usable() {
  cudaFuncAttributes attributes = {};
  if (cudaFuncGetAttributes(&attributes, stockham_cluster<Real, false, kClusterMinBits>) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return attributes.binaryVersion >= 90;
}

// A real plan's direction is its step's: R2C forward, C2R inverse.
// Complex plans up to kClusterMaxBits, a real plan's half up to kClusterRealMaxBits; cluster
// column passes (lines_log2 > 0) of kClusterColumnMinBits..kClusterColumnMaxBits.
template <class Real>
cudaError_t launch_cluster(const ClusterLaunch& launch, bool inverse, cudaStream_t stream) {
  const auto bits = std::make_integer_sequence<int, kClusterMaxBits - kClusterMinBits + 1>();
  const auto real_bits = std::make_integer_sequence<int, kClusterRealMaxBits - kClusterMinBits + 1>();
  if (launch.lines_log2 > 0) {  // stockham_cluster_lines_f32.cu, _f64.cu
    return sizeof(Real) == 4 ? launch_cluster_lines_f32(launch, inverse, stream)
                             : launch_cluster_lines_f64(launch, inverse, stream);
  }
  switch (launch.real_step) {
    case kClusterComplex:
      return inverse ? launch_cluster_bits<Real, true, kClusterComplex>(launch, stream, bits)
                     : launch_cluster_bits<Real, false, kClusterComplex>(launch, stream, bits);
    case kClusterR2C: return launch_cluster_bits<Real, false, kClusterR2C>(launch, stream, real_bits);
    case kClusterC2R: return launch_cluster_bits<Real, true, kClusterC2R>(launch, stream, real_bits);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace idgpu::fft::kernels
