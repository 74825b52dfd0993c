// Stockham pass kernels compiled for one power-of-two sub-transform length N = 2^LogN, its stages
// fixed by the planner's rule (pow2_stages / pow2_stage_bits in fft/stockham_index.h). Same plan
// and same index arithmetic as the general kernel (stockham.cu), which the host executor
// mirrors; what changes is that every shape constant, radix and twiddle offset is known to the
// compiler, and that the block meets global memory from registers:
//
// A thread keeps E = min(N, 16) elements, v[k] = element tid + k * (N / E) of its sub-transform.
// Every Stockham stage (radix R, span L) reads its butterflies' inputs b + t N / R with
// b = tid + i N / E, which is exactly that set (input t of butterfly i is v[i + t E / R]), and the
// last stage writes its outputs b + p N / R, the same set again. So:
//  - the first stage takes its elements straight from the pass's input, the last one writes
//    them straight to its output, and only the exchanges between stages go through shared
//    memory (padded as in fft/stockham_index.h; one barrier after the writes, one before them),
//    but where a side is staged (pow2_staged_in / out) or an R2C plane's packed Nyquist column
//    is split (PassShape::nyquist_packed);
//  - consecutive threads read consecutive addresses: along the sub-transform on a contiguous
//    side (kSingle: a whole transform per sub-transform), across the block's T sub-transforms on
//    a column side (kFirst, kColumn: rows of T consecutive elements);
//  - the output of a first pass of several (kFirst) is contiguous per sub-transform while its
//    threads run across sub-transforms, so that pass writes its last stage to shared memory and
//    copies the block's T N elements out in linear order.
// The inter-pass twiddle w_{L N}^{e j} of a later pass (kColumn) is applied on load: from the
// tables in fp64 as in the general kernel, computed in fp32 (column_twiddles_by_recurrence).
#pragma once

#include <cuda_runtime.h>

#include <atomic>
#include <utility>

#include "fft/convolution_index.h"
#include "fft/kernels/butterfly.cuh"
#include "fft/kernels/launch.cuh"
#include "fft/kernels/stockham.h"

namespace idgpu::fft::kernels {

enum Pow2Kind : int {
  kSingle = 0,  // contiguous in and out (a one-pass plan)
  kFirst = 1,   // column in, contiguous out (the first pass of several)
  kColumn = 2,  // column in with the inter-pass twiddle, column out (every later pass)
  kStaged = 3,  // contiguous in and out through shared memory (a one-pass plan of a length too
                // short for direct accesses to fill 32-byte sectors)
  // Real transforms (RealStep, fft/planner.h): kStaged's accesses with the real step in shared
  // memory; one read and one write of the data.
  kRealPack = 4,    // R2C: n / 2 points in, the transform, then the n / 2 + 1 outputs packed out
  kRealUnpack = 5,  // C2R: n / 2 + 1 points in, unpacked into n / 2, the transform, n / 2 out
  // The two passes of a real transform whose half M takes two (RealStep::kPairedR2C,
  // kPairedC2R), columns paired as paired_frame (fft/stockham_index.h) lays them out:
  kPairedPack = 6,    // R2C's last pass: kColumn's load and twiddle, the transform, the R2C step
                      // with the partners in shared memory, column out (and X[M] by column 0)
  kPairedUnpack = 7,  // C2R's first pass: column in (and X[M] for column 0), the C2R step with
                      // the partners in shared memory, the transform, kFirst's contiguous out
  // The passes of a multi-pass Bluestein plan over M = 2^a points in two passes (BluesteinStep,
  // fft/planner.h; the indices in fft/convolution_index.h), PassShape::n = M while the caller's
  // arrays hold n = PassLaunch::chirp_length points a transform:
  kChirpFirst = 8,    // kFirst, loading input position < n times the chirp, zero past n (no read)
  kSpectrumTurn = 9,  // kColumn's load and stages, outputs times the spectrum in registers, the
                      // opposite sign's stages, stored where they were read (in place)
  kChirpLast = 10,    // kColumn (the opposite sign) reading each sub-transform as a contiguous run
                      // (turned_input_position), storing output position < n times the chirp
};

// Kinds whose last stage goes to shared memory (and, but for kPairedPack, out in linear order).
__host__ __device__ constexpr bool pow2_staged_out(int kind) {
  return kind == kFirst || kind == kStaged || kind == kRealPack || kind == kRealUnpack || kind == kPairedPack ||
         kind == kPairedUnpack || kind == kChirpFirst;
}
__host__ __device__ constexpr bool pow2_paired(int kind) { return kind == kPairedPack || kind == kPairedUnpack; }
__host__ __device__ constexpr bool pow2_staged_in(int kind) {
  return kind == kStaged || kind == kRealPack || kind == kRealUnpack;
}

// Registers per thread: what a 1024-thread (fp32) or 512-thread (fp64) block allows. Capping
// lower for occupancy was measured slower (H100: 40 fp32 / 80 fp64 registers lost 3-30%
// against 64 / 128 over the power-of-two sweep, though it left 50% more blocks per SM).
template <class Real>
inline constexpr int kPow2Registers = sizeof(Real) == 8 ? 128 : 64;

template <class Real, bool Inverse, int LogN, int Kind>
struct Pow2Pass {
  using C = typename ComplexOf<Real>::type;
  static constexpr int kN = 1 << LogN;
  static constexpr int kLogE = LogN < 4 ? LogN : 4;
  static constexpr int kE = 1 << kLogE;  // elements per thread
  static constexpr int kLogThreads = LogN - kLogE;
  static constexpr int kThreads = 1 << kLogThreads;  // per sub-transform
  static constexpr int kStages = pow2_stages(LogN);

  __host__ __device__ static constexpr int span_log2(int stage) {
    int bits = 0;
    for (int s = 0; s < stage; ++s) bits += pow2_stage_bits(LogN, s);
    return bits;
  }
  // Where stage `stage`'s block of the stage-major twiddle table starts.
  __host__ __device__ static constexpr int twiddle_offset(int stage) {
    int offset = 0;
    for (int s = 0; s < stage; ++s) {
      offset = next_stage_twiddle_offset(offset, 1 << span_log2(s), 1 << pow2_stage_bits(LogN, s));
    }
    return offset;
  }

  const void* stage_twiddles;  // the pass's stage-major table (PassLaunch::stage_twiddles)
  C* mine;                     // the sub-transform's shared buffer
  int shift;
  int tid;
  bool active;

  __device__ __forceinline__ int padded(int e) const { return e + (e >> shift); }

  // Stage St on v[]: read the previous stage's outputs (unless first), twiddle, transform, and
  // write to shared memory (unless the caller takes v[] to global memory after the last stage).
  template <int St>
  __device__ __forceinline__ void stage(C* v) const {
    constexpr int kBits = pow2_stage_bits(LogN, St);
    constexpr int kR = 1 << kBits;
    constexpr int kB = kE / kR;  // butterflies per thread
    constexpr int kSpanLog2 = span_log2(St);
    constexpr int kSpan = 1 << kSpanLog2;
    constexpr bool kFirstStage = St == 0;
    constexpr bool kLastStage = St == kStages - 1;
    const C* __restrict__ table = static_cast<const C*>(stage_twiddles);
    if constexpr (!kFirstStage) {
      __syncthreads();  // the previous stage's writes are visible
      if (active) {
#pragma unroll
        for (int k = 0; k < kE; ++k) v[k] = mine[padded(tid + k * kThreads)];
      }
    }
    if (active) {
#pragma unroll
      for (int i = 0; i < kB; ++i) {
        C x[kR];
#pragma unroll
        for (int t = 0; t < kR; ++t) x[t] = v[i + t * kB];
        if constexpr (kSpan > 1) {
          const int j = (tid + i * kThreads) & (kSpan - 1);
          const C* __restrict__ row = table + twiddle_offset(St) + j;
#pragma unroll
          for (int t = 1; t < kR; ++t) x[t] = cmul(x[t], orient<Inverse>(__ldg(&row[(t - 1) * kSpan])));
        }
        dft<kR, Inverse>(x);
#pragma unroll
        for (int t = 0; t < kR; ++t) v[i + t * kB] = x[t];
      }
    }
    // The last stage's outputs stay in v[] for a direct write; otherwise they go to shared memory
    // (after every thread has read its inputs, when those came from shared memory too).
    if constexpr (kLastStage && !pow2_staged_out(Kind)) return;
    if constexpr (!kFirstStage) __syncthreads();
    if (active) {
#pragma unroll
      for (int i = 0; i < kB; ++i) {
        const int b = tid + i * kThreads;
        const int base = (b & (kSpan - 1)) + ((b >> kSpanLog2) << (kSpanLog2 + kBits));
#pragma unroll
        for (int t = 0; t < kR; ++t) mine[padded(base + t * kSpan)] = v[i + t * kB];
      }
    }
  }

  template <int... St>
  __device__ __forceinline__ void stages(C* v, std::integer_sequence<int, St...>) const {
    (stage<St>(v), ...);
  }
};

// The inter-pass twiddles of a later pass: v[k] (element e = tid + k threads of sub-transform
// j) times w_M^{e j}, M = L N.
//
// fp64 reads them from the lo/hi tables (fft/twiddle.h). fp32 computes them: w^{tid j} and the
// step w^{threads j} with double sincospi (integer exponents below M, exact in double), then
// w^{e j} by a recurrence in double (at most 15 steps: error ~1e-15, far below fp32's rounding),
// rounded once to float. That replaces two table loads per element whose addresses stride by e
// across a warp (the sub-transforms j are the lanes), which Nsight Compute showed scattering
// into one L1 sector per lane.
//
// Every caller's exponent is below m: e < N, and j < L (a column pass's j0 + tr, j0 a multiple
// of T below L and T dividing L, block_frame; a paired pass's column below C = L; the cluster
// kernel's n1 < NB with e < NA, m = NA NB), so x needs no reduction. A 64-bit `x % m` here, a no-op as it was, cost
// the fp32 column kernels 52 B of spills a thread at their 64 registers (ptxas, sm_90).
template <bool Inverse>
__device__ __forceinline__ double2 unit_root(unsigned long long x, unsigned long long m) {
  double s = 0.0, c = 0.0;
  sincospi(2.0 * static_cast<double>(x) / static_cast<double>(m), &s, &c);
  return make<double2>(c, Inverse ? s : -s);
}

// v[k] times w_m^{first + k step} (exponents below m), by that recurrence in double.
template <bool Inverse, int E, class C>
__device__ __forceinline__ void twiddles_by_recurrence(C* v, unsigned long long first, unsigned long long step,
                                                       unsigned long long m) {
  double2 w = unit_root<Inverse>(first, m);
  const double2 advance = unit_root<Inverse>(step, m);
#pragma unroll
  for (int k = 0; k < E; ++k) {
    if (k > 0) w = cmul(w, advance);
    v[k] = cmul(v[k], make<C>(static_cast<float>(w.x), static_cast<float>(w.y)));
  }
}

template <bool Inverse, int E, int Threads, class C>
__device__ __forceinline__ void column_twiddles_by_recurrence(C* v, int tid, long long j, long long m) {
  const auto uj = static_cast<unsigned long long>(j);
  twiddles_by_recurrence<Inverse, E>(v, static_cast<unsigned long long>(tid) * uj,
                                     static_cast<unsigned long long>(Threads) * uj, static_cast<unsigned long long>(m));
}

template <bool Inverse, int E, int Threads, class C>
__device__ __forceinline__ void column_twiddles_from_tables(C* v, int tid, long long j, const void* lo_twiddles,
                                                            const void* hi_twiddles, int lo_bits) {
  const C* __restrict__ lo = static_cast<const C*>(lo_twiddles);
  const C* __restrict__ hi = static_cast<const C*>(hi_twiddles);
  const unsigned mask = (1u << lo_bits) - 1u;
#pragma unroll
  for (int k = 0; k < E; ++k) {
    // e j < L N <= 2^31; w^0 = 1 is skipped.
    const unsigned exponent = static_cast<unsigned>(tid + k * Threads) * static_cast<unsigned>(j);
    if (exponent != 0) {
      v[k] = cmul(v[k], orient<Inverse>(cmul(__ldg(&lo[exponent & mask]), __ldg(&hi[exponent >> lo_bits]))));
    }
  }
}

// How a block meets device memory. kCached: plain loads and stores. In the fused kernel
// (kernels/stockham_fused.cuh) a tile's role sets it: the first pass's tiles (kFusedFirst)
// stream their input (ld.global.cs: read once, evicted first) and store plainly, so that the L2
// keeps the intermediate they write; the last pass's tiles (kFusedLast) read that intermediate
// from the L2 (ld.global.cg: another SM wrote it during this kernel, so this SM's L1 may not hold
// it) and stream their output (st.global.cs).
enum Pow2Cache : int { kCached = 0, kFusedFirst = 1, kFusedLast = 2 };

template <int Cache, class C>
__device__ __forceinline__ C load_global(const C* from) {
  if constexpr (Cache == kFusedFirst) return __ldcs(from);
  if constexpr (Cache == kFusedLast) return __ldcg(from);
  return *from;
}
template <int Cache, class C>
__device__ __forceinline__ void store_global(C* to, C value) {
  if constexpr (Cache == kFusedLast) {
    __stcs(to, value);
  } else {
    *to = value;
  }
}

// w_n^k (n = 2 M, forward sign) of a real step over M points from its lo/hi tables:
// lo[k mod 2^b] hi[k >> b], b = lo_bits.
template <class C>
__device__ __forceinline__ C split_real_twiddle(const void* tables, int lo_bits, unsigned k) {
  const C* __restrict__ table = static_cast<const C*>(tables);
  const unsigned mask = (1u << lo_bits) - 1u;
  return cmul(__ldg(&table[k & mask]), __ldg(&table[(1u << lo_bits) + (k >> lo_bits)]));
}
// A paired real step's (its pass's tables).
template <class C>
__device__ __forceinline__ C paired_real_twiddle(const PassLaunch& p, unsigned k) {
  return split_real_twiddle<C>(p.real_twiddles, p.real_lo_bits, k);
}

// A block of a paired real pass (kPairedPack, kPairedUnpack; fft/stockham_index.h, paired_frame):
// T = P columns of one transform, P / 2 of them primary and their partners, every block full.
// Threads run across the block's columns, as kColumn's: v[k] = element tid + k threads of
// column paired_column(tr).
template <class Real, bool Inverse, int LogN, int Kind, int Cache = kCached>
__device__ __forceinline__ void pow2_paired_block(const PassLaunch& p, long long g0, unsigned char* shared_raw,
                                                  int thread) {
  using Pass = Pow2Pass<Real, Inverse, LogN, Kind>;
  using C = typename Pass::C;
  constexpr int kE = Pass::kE;
  constexpr int kThreads = Pass::kThreads;
  constexpr int kN = Pass::kN;
  C* sm = reinterpret_cast<C*>(shared_raw);
  const PassShape& s = p.shape;
  const PairedFrame frame = paired_frame(s, g0);
  const int tr = thread & (s.per_block - 1);
  const int tid = thread >> s.per_block_log2;
  const int column = static_cast<int>(paired_column(s, frame.j0, tr));  // < C <= M < 2^31
  const int columns = static_cast<int>(s.sub);
  const int half = static_cast<int>(s.n);  // M
  // Not restrict: an R2C's last pass runs in place out of place (plan_buffers); a block writes
  // only elements it read before its first barrier (and X[M], which no block reads).
  const C* in = static_cast<const C*>(p.input) + frame.in_base;
  C* out = static_cast<C*>(p.output) + frame.out_base;
  C* mine = sm + tr * s.smem_stride;
  const auto partner = [&](int e) {
    int partner_tr = 0, partner_e = 0;
    paired_partner(s, column, tr, e, &partner_tr, &partner_e);
    return sm[partner_tr * s.smem_stride + partner_e + (partner_e >> s.shift)];
  };

  C v[kE];
#pragma unroll
  for (int k = 0; k < kE; ++k) v[k] = load_global<Cache>(&in[column + (tid + k * kThreads) * columns]);
  if constexpr (Kind == kPairedPack) {
    if constexpr (sizeof(Real) == 4) {
      column_twiddles_by_recurrence<Inverse, kE, kThreads>(v, tid, column, static_cast<long long>(s.span) << LogN);
    } else {
      column_twiddles_from_tables<Inverse, kE, kThreads>(v, tid, column, p.lo_twiddles, p.hi_twiddles, p.lo_bits);
    }
  } else {
    // Z[k] = (X[k] + conj X[M-k]) + i w^-k (X[k] - conj X[M-k]), k = column + C e: the X of the
    // block through shared memory, X[M] (column 0's partner of e = 0) from device memory.
#pragma unroll
    for (int k = 0; k < kE; ++k) {
      const int e = tid + k * kThreads;
      mine[e + (e >> s.shift)] = v[k];
    }
    const C last = column == 0 && tid == 0 ? load_global<Cache>(&in[half]) : C{};
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kE; ++k) {
      const int e = tid + k * kThreads;
      const C b = cconj(column == 0 && e == 0 ? last : partner(e));
      const C w = cconj(paired_real_twiddle<C>(p, static_cast<unsigned>(column + e * columns)));
      const C sum = cadd(v[k], b);
      const C t = cmul(w, csub(v[k], b));
      v[k] = make<C>(sum.x - t.y, sum.y + t.x);
    }
    __syncthreads();  // the first stage writes where others read
  }

  const Pass pass{p.stage_twiddles, mine, s.shift, tid, true};
  pass.stages(v, std::make_integer_sequence<int, Pass::kStages>());
  __syncthreads();

  if constexpr (Kind == kPairedPack) {
    // X[k] = (Z[k] + conj Z[M-k]) / 2 - i w^k (Z[k] - conj Z[M-k]) / 2 where Z[k] was; column 0's
    // element 0 also writes X[M] = Re Z[0] - Im Z[0].
#pragma unroll
    for (int k = 0; k < kE; ++k) {
      const int e = tid + k * kThreads;
      const C a = mine[e + (e >> s.shift)];
      const C b = cconj(partner(e));
      const C w = paired_real_twiddle<C>(p, static_cast<unsigned>(column + e * columns));
      const C sum = cadd(a, b);
      const C t = cmul(w, csub(a, b));
      store_global<Cache>(&out[column + e * columns],
                          make<C>(static_cast<Real>(0.5) * (sum.x + t.y), static_cast<Real>(0.5) * (sum.y - t.x)));
      if (column == 0 && e == 0) store_global<Cache>(&out[half], make<C>(a.x - a.y, static_cast<Real>(0)));
    }
  } else {
    // Each column's N points a contiguous run at column x N (the intermediate's layout).
    const int count = s.per_block << LogN;
    for (int q = thread; q < count; q += blockDim.x) {
      const int row = q >> LogN;
      const int e = q & (kN - 1);
      const long long to = paired_column(s, frame.j0, row) * kN + e;
      store_global<Cache>(&out[to], sm[row * s.smem_stride + e + (e >> s.shift)]);
    }
  }
}

// The `valid` (<= T) sub-transforms from global sub-transform g0 on, of one transform or, for a
// straddling axis pass, of two (block_frame's split; the
// body of a block of stockham_pow2, and a tile of the fused kernel), with the block's dynamic
// shared memory; `thread` is threadIdx.x.
template <class Real, bool Inverse, int LogN, int Kind, int Cache = kCached>
__device__ __forceinline__ void pow2_tile(const PassLaunch& p, long long g0, int valid, unsigned char* shared_raw,
                                          int thread) {
  using Pass = Pow2Pass<Real, Inverse, LogN, Kind>;
  using C = typename Pass::C;
  constexpr int kE = Pass::kE;
  constexpr int kThreads = Pass::kThreads;
  C* sm = reinterpret_cast<C*>(shared_raw);
  const PassShape& s = p.shape;
  const BlockFrame frame = block_frame(s, g0);
  // Sub-transform and rank: along the sub-transform on contiguous sides, across on column sides.
  constexpr bool kAlong = Kind == kSingle || pow2_staged_in(Kind);  // threads along the sub-transform
  const int tr = kAlong ? thread >> Pass::kLogThreads : thread & (s.per_block - 1);
  const int tid = kAlong ? thread & (kThreads - 1) : thread >> s.per_block_log2;
  const bool active = tr < valid;
  // Not restrict: the last pass of a plan may run in place; a block writes only elements it read
  // before its first barrier.
  const C* in = static_cast<const C*>(p.input) + frame.in_base;
  C* out = static_cast<C*>(p.output) + frame.out_base;
  // An R2C plane's axis pass whose last line runs packed into line 0 (PassShape::nyquist_packed,
  // forward only), in the tile of line 0; the same for all of the block's threads.
  const bool packed = Kind == kColumn && !Inverse && s.nyquist_packed && frame.j0 == 0;

  C v[kE];
  // Distances between the transforms of a single pass (N, unless the plan says otherwise).
  const int in_dist = static_cast<int>(input_distance(s));
  const int out_dist = static_cast<int>(output_distance(s));
  // A later pass's inter-pass twiddle w_{L N}^{e j}, j = j0 + tr.
  const auto twiddle_column = [&] {
    if constexpr (sizeof(Real) == 4) {
      column_twiddles_by_recurrence<Inverse, kE, kThreads>(v, tid, frame.j0 + tr, s.span << LogN);
    } else {
      column_twiddles_from_tables<Inverse, kE, kThreads>(v, tid, frame.j0 + tr, p.lo_twiddles, p.hi_twiddles,
                                                         p.lo_bits);
    }
  };
  if constexpr (Kind == kChirpLast) {
    // The block's T sub-transforms j0 .. j0 + T - 1 are one contiguous run of T N elements
    // (turned_input_position), read in linear order (E loads a thread in flight; every block is
    // full) and staged through shared memory to the column lanes.
    const ChirpFrame chirped = chirp_frame(s, frame.in_base, g0);
    const C* run = static_cast<const C*>(p.input) + chirped.transform * s.n + turned_input_position(s, frame.j0, 0);
    const int step = static_cast<int>(blockDim.x);
    const auto slot = [&](int q) {
      const int e = q & (Pass::kN - 1);
      return (q >> LogN) * s.smem_stride + e + (e >> s.shift);
    };
#pragma unroll
    for (int k = 0; k < kE; ++k) v[k] = load_global<Cache>(&run[thread + k * step]);
#pragma unroll
    for (int k = 0; k < kE; ++k) sm[slot(thread + k * step)] = v[k];
    __syncthreads();
    const C* mine = sm + tr * s.smem_stride;
#pragma unroll
    for (int k = 0; k < kE; ++k) {
      const int e = tid + k * kThreads;
      v[k] = mine[e + (e >> s.shift)];
    }
    twiddle_column();
    __syncthreads();  // the first stage writes where others read
  } else if constexpr (pow2_staged_in(Kind)) {
    // The block's T sub-transforms are T runs of N elements of the input, in_dist apart (one
    // contiguous run when in_dist = N): E per thread when the block is full, all loads issued
    // before the first store to shared memory (v[] holds them), so that each thread has E loads
    // in flight.
    const int count = valid << LogN;
    const auto slot = [&](int q) {
      const int e = q & (Pass::kN - 1);
      return (q >> LogN) * s.smem_stride + e + (e >> s.shift);
    };
    const auto at = [&](int q) { return (q >> LogN) * in_dist + (q & (Pass::kN - 1)); };
    if (valid == s.per_block) {
      const int step = static_cast<int>(blockDim.x);
#pragma unroll
      for (int k = 0; k < kE; ++k) v[k] = load_global<Cache>(&in[at(thread + k * step)]);
#pragma unroll
      for (int k = 0; k < kE; ++k) sm[slot(thread + k * step)] = v[k];
    } else {
      for (int q = thread; q < count; q += blockDim.x) sm[slot(q)] = load_global<Cache>(&in[at(q)]);
    }
    __syncthreads();
    if (active) {
      const C* mine = sm + tr * s.smem_stride;
#pragma unroll
      for (int k = 0; k < kE; ++k) {
        const int e = tid + k * kThreads;
        v[k] = mine[e + (e >> s.shift)];
      }
      if constexpr (Kind == kRealUnpack) {
        // Z[e] = (X[e] + conj X[M-e]) + i w^-e (X[e] - conj X[M-e]); X[M] (the partner of e = 0)
        // is the one input not staged.
        const C* __restrict__ real = static_cast<const C*>(p.real_twiddles);
#pragma unroll
        for (int k = 0; k < kE; ++k) {
          const int e = tid + k * kThreads;
          const int partner = Pass::kN - e;
          const C b = cconj(e == 0 ? load_global<Cache>(&in[tr * in_dist + Pass::kN]) : mine[partner + (partner >> s.shift)]);
          const C w = cconj(__ldg(&real[e]));
          const C sum = cadd(v[k], b);
          const C t = cmul(w, csub(v[k], b));
          v[k] = make<C>(sum.x - t.y, sum.y + t.x);
        }
      }
    }
    __syncthreads();  // the first stage writes where others read
  } else if (active) {
    if constexpr (Kind == kSingle) {
      const C* from = in + tr * in_dist + tid;
#pragma unroll
      for (int k = 0; k < kE; ++k) v[k] = load_global<Cache>(&from[k * kThreads]);
    } else {
      // Element e of sub-transform tr is at tr + e S (fits 32 bits: below n), past the gap to
      // the next transform for a straddling block's later lines.
      const int stride = static_cast<int>(s.sub);
      const C* line = in + (tr + input_jump(frame, tr));
      if constexpr (Kind == kChirpFirst) {
        // Element e of column tr at padded position first + tr + e S (< M <= 2^28) of transform
        // `transform`: the caller's x[position] c[position] below n, a zero of the padding from n.
        const ChirpFrame chirped = chirp_frame(s, frame.in_base, g0);
        const int n = static_cast<int>(p.chirp_length);
        const C* x = static_cast<const C*>(p.input) + chirped.transform * p.chirp_length;
        const C* __restrict__ chirp = static_cast<const C*>(p.chirp);
        const int first = static_cast<int>(chirped.first) + tr;
#pragma unroll
        for (int k = 0; k < kE; ++k) {
          const int position = first + (tid + k * kThreads) * stride;
          v[k] = position < n ? cmul(load_global<Cache>(&x[position]), orient<Inverse>(__ldg(&chirp[position])))
                              : make<C>(static_cast<Real>(0), static_cast<Real>(0));
        }
      } else {
#pragma unroll
        for (int k = 0; k < kE; ++k) v[k] = load_global<Cache>(&line[(tid + k * kThreads) * stride]);
      }
      if constexpr (Kind == kColumn) {
        // Line 0 of a packed pass: z = a + i b, b from line S - 1.
        if (packed && tr == 0) {
#pragma unroll
          for (int k = 0; k < kE; ++k) {
            const C b = load_global<Cache>(&line[(tid + k * kThreads) * stride + stride - 1]);
            v[k] = make<C>(v[k].x - b.y, v[k].y + b.x);
          }
        }
      }
      // An axis pass of a multi-dimensional or strided plan has no inter-pass twiddle.
      if constexpr (Kind == kColumn || Kind == kSpectrumTurn) {
        if (s.twiddled) twiddle_column();
      }
    }
  }

  const Pass pass{p.stage_twiddles, sm + tr * s.smem_stride, s.shift, tid, active};
  pass.stages(v, std::make_integer_sequence<int, Pass::kStages>());
  if constexpr (Kind == kSpectrumTurn) {
    // v[k] is bin j + e S of the M-point transform (e = tid + k threads, j = j0 + tr:
    // spectrum_position): times the kernel's spectrum (read from the L2, shared by the batch),
    // then the opposite sign's stages on the same points, the last one into shared memory.
    if (active) {
      const C* __restrict__ spectrum = static_cast<const C*>(p.spectrum);
      const int j = static_cast<int>(frame.j0) + tr;
      const int columns = static_cast<int>(s.sub);
#pragma unroll
      for (int k = 0; k < kE; ++k) {
        v[k] = cmul(v[k], orient<Inverse>(__ldg(&spectrum[j + (tid + k * kThreads) * columns])));
      }
    }
    __syncthreads();  // every thread read its last-stage inputs before the first stage below writes
    using Back = Pow2Pass<Real, !Inverse, LogN, kColumn>;  // the last stage's outputs stay in v[]
    const Back back{p.stage_twiddles, sm + tr * s.smem_stride, s.shift, tid, active};
    back.stages(v, std::make_integer_sequence<int, Back::kStages>());
  }

  if constexpr (Kind == kRealPack) {
    // X[k] = (Z[k] + conj Z[M-k]) / 2 - i w^k (Z[k] - conj Z[M-k]) / 2 for k < M, in linear
    // order; the thread of k = 0 also writes X[M] = Re Z[0] - Im Z[0].
    __syncthreads();
    const C* __restrict__ real = static_cast<const C*>(p.real_twiddles);
    const int count = valid << LogN;
    for (int q = thread; q < count; q += blockDim.x) {
      const int k = q & (Pass::kN - 1);
      const int row = q >> LogN;
      const C* z = sm + row * s.smem_stride;
      const int partner = (Pass::kN - k) & (Pass::kN - 1);
      const C a = z[k + (k >> s.shift)];
      const C b = cconj(z[partner + (partner >> s.shift)]);
      const C w = __ldg(&real[k]);
      const C sum = cadd(a, b);
      const C t = cmul(w, csub(a, b));
      // (sum - i t) / 2
      store_global<Cache>(&out[row * out_dist + k],
                          make<C>(static_cast<Real>(0.5) * (sum.x + t.y), static_cast<Real>(0.5) * (sum.y - t.x)));
      if (k == 0) store_global<Cache>(&out[row * out_dist + Pass::kN], make<C>(a.x - a.y, static_cast<Real>(0)));
    }
  } else if constexpr (pow2_staged_out(Kind)) {
    // The block's T sub-transforms are T runs of N elements of the output, out_dist apart (one
    // contiguous run of T N elements when out_dist = N).
    __syncthreads();
    const int count = valid << LogN;
    for (int q = thread; q < count; q += blockDim.x) {
      const int e = q & (Pass::kN - 1);
      const int row = q >> LogN;
      store_global<Cache>(&out[row * out_dist + output_jump(frame, row) + e], sm[row * s.smem_stride + e + (e >> s.shift)]);
    }
  } else if constexpr (Kind == kSingle) {
    if (active) {
      C* to = out + tr * out_dist + tid;
#pragma unroll
      for (int k = 0; k < kE; ++k) store_global<Cache>(&to[k * kThreads], v[k]);
    }
  } else if constexpr (Kind == kChirpLast) {
    // Element e of column tr is output position first + tr + e L (< M) of transform `transform`:
    // stored times the transform's chirp (the opposite of this pass's sign) below n, dropped from n.
    if (active) {
      const ChirpFrame chirped = chirp_frame(s, frame.out_base, g0);
      const int n = static_cast<int>(p.chirp_length);
      C* y = static_cast<C*>(p.output) + chirped.transform * p.chirp_length;
      const C* __restrict__ chirp = static_cast<const C*>(p.chirp);
      const int stride = static_cast<int>(s.span);
      const int first = static_cast<int>(chirped.first) + tr;
#pragma unroll
      for (int k = 0; k < kE; ++k) {
        const int position = first + (tid + k * kThreads) * stride;
        if (position < n) store_global<Cache>(&y[position], cmul(v[k], orient<!Inverse>(__ldg(&chirp[position]))));
      }
    }
  } else {
    const int stride = static_cast<int>(s.span);
    // Valid lines only take their jump (block_frame).
    C* line = active ? out + (tr + output_jump(frame, tr)) : out;
    if (packed) {
      // Line 0 holds Z = FFT(a + i b), a and b real: A[e] = (Z[e] + conj Z[N-e]) / 2 to line 0 and
      // B[e] = (Z[e] - conj Z[N-e]) / 2i to line S - 1, the partners through line 0's shared
      // memory (once every thread is past the last stage's reads).
      __syncthreads();
      if (tr == 0) {
#pragma unroll
        for (int k = 0; k < kE; ++k) {
          const int e = tid + k * kThreads;
          sm[e + (e >> s.shift)] = v[k];
        }
      }
      __syncthreads();
      if (tr == 0) {
#pragma unroll
        for (int k = 0; k < kE; ++k) {
          const int e = tid + k * kThreads;
          const int m = (Pass::kN - e) & (Pass::kN - 1);
          const C partner = cconj(sm[m + (m >> s.shift)]);
          const C sum = cadd(v[k], partner);
          const C difference = csub(v[k], partner);
          store_global<Cache>(&line[e * stride], make<C>(static_cast<Real>(0.5) * sum.x, static_cast<Real>(0.5) * sum.y));
          store_global<Cache>(&line[e * stride + stride - 1],
                              make<C>(static_cast<Real>(0.5) * difference.y, static_cast<Real>(-0.5) * difference.x));
        }
      }
    }
    if (active && !(packed && tr == 0)) {
#pragma unroll
      for (int k = 0; k < kE; ++k) store_global<Cache>(&line[(tid + k * kThreads) * stride], v[k]);
    }
  }
}

// Block `block` of a pass: its T sub-transforms (fewer in the grid's last block).
template <class Real, bool Inverse, int LogN, int Kind, int Cache = kCached>
__device__ __forceinline__ void pow2_block(const PassLaunch& p, long long block, unsigned char* shared_raw,
                                           int thread) {
  const long long g0 = block << p.shape.per_block_log2;
  if constexpr (pow2_paired(Kind)) {
    pow2_paired_block<Real, Inverse, LogN, Kind>(p, g0, shared_raw, thread);
  } else {
    const int valid = static_cast<int>(min(static_cast<long long>(p.shape.per_block), p.total - g0));
    pow2_tile<Real, Inverse, LogN, Kind, Cache>(p, g0, valid, shared_raw, thread);
  }
}

template <class Real, bool Inverse, int LogN, int Kind>
__global__ void __maxnreg__(kPow2Registers<Real>) stockham_pow2(const __grid_constant__ PassLaunch p) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  pow2_block<Real, Inverse, LogN, Kind>(p, blockIdx.x, shared_raw, static_cast<int>(threadIdx.x));
}

// Host side: which compiled kernel, if any, serves a pass.

// The sub-transform lengths compiled: 2^1 .. 2^kPow2MaxLog (the planner's largest pass in
// shared memory: 2^14 in fp32, 2^13 in fp64). Single passes up to 2^7 (fp32) / 2^6 (fp64) are
// kStaged, longer ones kSingle: on an H100 the staged kernel moves n = 16..128 at 0.99-1.00 of
// copy bandwidth (1.00-1.03x the vendor) where direct accesses reached 0.82-0.93 for n <= 64 in
// fp32 and 0.87 for fp64 n = 32. Its loads are all issued before the first store to shared
// memory; one at a time, as the general kernel stages, left it at 0.73-0.86.
template <class Real>
inline constexpr int kPow2MaxLog = sizeof(Real) == 8 ? 13 : 14;
template <class Real>
inline constexpr int kPow2MinSingleLog = sizeof(Real) == 8 ? 7 : 8;

template <class Real, bool Inverse, int LogN, int Kind>
cudaError_t launch_pow2_kernel(const PassLaunch& pass, cudaStream_t stream) {
  static std::atomic<unsigned> allowed[64] = {};
  const auto kernel = stockham_pow2<Real, Inverse, LogN, Kind>;
  if (const cudaError_t status = allow_shared(kernel, pass.shared_bytes, allowed); status != cudaSuccess) return status;
  const unsigned threads = static_cast<unsigned>(pass.threads_per_transform * pass.shape.per_block);
  kernel<<<static_cast<unsigned>(pass.blocks), threads, pass.shared_bytes, stream>>>(pass);
  return cudaGetLastError();
}

// The paired kinds' shortest pass: a two-pass real plan splits its half M >= 2^15 (fp32) /
// 2^14 (fp64) into two balanced passes, the shorter at least 2^7 (plan_c2c_1d), so no shorter
// kernel is compiled.
inline constexpr int kPow2MinPairedLog = 7;
// The Bluestein kinds' passes: M from 2^15 (fp32) / 2^14 (fp64), where one block no longer holds
// the convolution, splits into two passes of at least 2^7; M up to 2^26 (the plan-time spectrum's
// double FFT in two passes, fft/native.cpp), 2^13 x 2^13, in both precisions.
inline constexpr int kPow2MinBluesteinLog = 7;
inline constexpr int kPow2MaxBluesteinLog = 13;
__host__ __device__ constexpr bool pow2_bluestein(int kind) {
  return kind == kChirpFirst || kind == kSpectrumTurn || kind == kChirpLast;
}

template <class Real, bool Inverse, int Kind, int... Log>
bool launch_pow2_log(int log_n, const PassLaunch& pass, cudaStream_t stream, cudaError_t* status,
                     std::integer_sequence<int, Log...>) {
  constexpr int kMin = Kind == kSingle         ? kPow2MinSingleLog<Real>
                       : pow2_paired(Kind)    ? kPow2MinPairedLog
                       : pow2_bluestein(Kind) ? kPow2MinBluesteinLog
                                              : 1;
  const auto launch_if = [&](auto log) {
    constexpr int kLog = decltype(log)::value;
    if (log_n != kLog) return false;
    *status = launch_pow2_kernel<Real, Inverse, kLog, Kind>(pass, stream);
    return true;
  };
  return (launch_if(std::integral_constant<int, Log + kMin>()) || ...);
}

// The kind of compiled kernel that serves `pass`, or -1 when there is none: a length that is
// not a power of two or is outside the compiled range, stages other than pow2_stage_bits', T not
// a power of two, or a thread count the planner did not derive from 16 elements per thread.
template <class Real>
int pow2_kind(const PassLaunch& pass) {
  const PassShape& s = pass.shape;
  const int log_n = s.size_log2;
  if (log_n < 1 || log_n > kPow2MaxLog<Real> || s.per_block_log2 < 0 || pass.stages != pow2_stages(log_n)) return -1;
  for (int st = 0; st < pass.stages; ++st) {
    if (pass.radices[st] != 1 << pow2_stage_bits(log_n, st)) return -1;
  }
  const int elements = log_n < 4 ? 1 << log_n : 16;
  if (pass.threads_per_transform != s.size / elements) return -1;
  if (pass.bluestein != 0) {
    // BluesteinStep: kChirpLoad 1, kSpectrum 3, kChirpStore 5 (two-pass plans); kForward and
    // kInverse (plans of three passes or more) have none.
    if (log_n < kPow2MinBluesteinLog || log_n > kPow2MaxBluesteinLog || pass.real_step != 0 || s.straddles ||
        s.in_group > 0 || s.out_group > 0) {
      return -1;
    }
    const bool column = s.span > 1 && s.sub == s.span && s.twiddled;
    switch (pass.bluestein) {
      case 1: return s.sub > 1 && s.span == 1 ? kChirpFirst : -1;
      case 3: return column ? kSpectrumTurn : -1;
      case 5: return column ? kChirpLast : -1;
      default: return -1;
    }
  }
  if (pass.real_step == 5 || pass.real_step == 6) {
    if (log_n < kPow2MinPairedLog || s.per_block < 2) return -1;
    if (pass.real_step == 5) return s.span > 1 && s.sub == s.span ? kPairedPack : -1;
    return s.span == 1 && s.sub > 1 ? kPairedUnpack : -1;
  }
  if (pass.real_step != 0) {
    if (s.sub != 1 || s.span != 1) return -1;
    return pass.real_step == 1 ? kRealPack : pass.real_step == 2 ? kRealUnpack : -1;  // odd n: the general kernel
  }
  if (s.sub == 1) return s.span != 1 ? -1 : log_n >= kPow2MinSingleLog<Real> ? kSingle : kStaged;
  return s.span == 1 ? kFirst : kColumn;
}

// A multi-pass Bluestein plan's pass (pow2_bluestein kinds) on its kernel; cudaErrorNotSupported,
// with nothing launched, where none is compiled or its tables are missing.
template <class Real, bool Inverse>
cudaError_t launch_pow2_bluestein(const PassLaunch& pass, cudaStream_t stream) {
  using Logs = std::make_integer_sequence<int, kPow2MaxBluesteinLog - kPow2MinBluesteinLog + 1>;
  const int log_n = pass.shape.size_log2;
  const int kind = pow2_kind<Real>(pass);
  const bool tables = pass.stage_twiddles != nullptr &&
                      (kind == kSpectrumTurn ? pass.spectrum != nullptr : pass.chirp != nullptr) &&
                      (sizeof(Real) == 4 || kind == kChirpFirst || pass.lo_twiddles != nullptr);
  cudaError_t status = cudaErrorNotSupported;
  if (!tables) return status;
  bool launched = false;
  switch (kind) {
    case kChirpFirst:
      launched = launch_pow2_log<Real, Inverse, kChirpFirst>(log_n, pass, stream, &status, Logs());
      break;
    case kSpectrumTurn:
      launched = launch_pow2_log<Real, Inverse, kSpectrumTurn>(log_n, pass, stream, &status, Logs());
      break;
    case kChirpLast:
      launched = launch_pow2_log<Real, Inverse, kChirpLast>(log_n, pass, stream, &status, Logs());
      break;
    default: break;
  }
  return launched ? status : cudaErrorNotSupported;
}

// Launches `pass` on the kernel compiled for its shape and returns true, with the launch's
// status; false (nothing launched) when there is none (pow2_kind).
template <class Real, bool Inverse>
bool launch_pow2(const PassLaunch& pass, cudaStream_t stream, cudaError_t* status) {
  const int log_n = pass.shape.size_log2;
  switch (pow2_kind<Real>(pass)) {
    case kSingle:
      return launch_pow2_log<Real, Inverse, kSingle>(
          log_n, pass, stream, status,
          std::make_integer_sequence<int, kPow2MaxLog<Real> - kPow2MinSingleLog<Real> + 1>());
    case kFirst:
      return launch_pow2_log<Real, Inverse, kFirst>(log_n, pass, stream, status,
                                                    std::make_integer_sequence<int, kPow2MaxLog<Real>>());
    case kColumn:
      return launch_pow2_log<Real, Inverse, kColumn>(log_n, pass, stream, status,
                                                     std::make_integer_sequence<int, kPow2MaxLog<Real>>());
    case kStaged:
      return launch_pow2_log<Real, Inverse, kStaged>(log_n, pass, stream, status,
                                                     std::make_integer_sequence<int, kPow2MinSingleLog<Real> - 1>());
    // A real pass runs one direction only: R2C forward, C2R inverse.
    case kRealPack:
      if constexpr (Inverse) return false;
      return launch_pow2_log<Real, false, kRealPack>(log_n, pass, stream, status,
                                                     std::make_integer_sequence<int, kPow2MaxLog<Real>>());
    case kRealUnpack:
      if constexpr (!Inverse) return false;
      return launch_pow2_log<Real, true, kRealUnpack>(log_n, pass, stream, status,
                                                      std::make_integer_sequence<int, kPow2MaxLog<Real>>());
    case kPairedPack:
      if constexpr (Inverse) return false;
      return launch_pow2_log<Real, false, kPairedPack>(
          log_n, pass, stream, status, std::make_integer_sequence<int, kPow2MaxLog<Real> - kPow2MinPairedLog + 1>());
    case kPairedUnpack:
      if constexpr (!Inverse) return false;
      return launch_pow2_log<Real, true, kPairedUnpack>(
          log_n, pass, stream, status, std::make_integer_sequence<int, kPow2MaxLog<Real> - kPow2MinPairedLog + 1>());
    default: return false;
  }
}

}  // namespace idgpu::fft::kernels
