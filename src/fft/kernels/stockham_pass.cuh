// The Stockham pass kernel of the native 1D C2C/Z2Z FFT: one launch is one pass of a plan
// (fft/planner.h), its index arithmetic in fft/stockham_index.h.
//
// A block takes T sub-transforms of length N:
//  1. staging in: the block's elements are read in the linear order that makes consecutive
//     threads read consecutive addresses (16-byte loads in fp32 where the layout allows), the
//     inter-pass twiddle w_{L N}^{e j} = lo[] hi[] applied, and written to a padded shared buffer;
//  2. the pass's Stockham stages: each thread reads the inputs of its butterflies (at most 16
//     elements, kept in registers), multiplies by the stage twiddles (stage-major table), runs the
//     radix-r DFT in registers, waits at a barrier, and writes its outputs back in place;
//  3. staging out: the block writes its T N results in the output's linear order.
// A fixed-sequence kernel skips step 1 on a contiguous input and step 3 on a contiguous output
// (PassLaunch::direct_in, direct_out): its first stage reads its butterflies' inputs from device
// memory and its last stage writes its outputs there, consecutive threads at consecutive
// addresses, so that the block's elements cross shared memory once per stage fewer on each such
// side. On an H100 that took the one-pass batches of its lengths (2^26 points, fp32) from 0.35-0.65
// of copy bandwidth to 0.60-0.98.
// The stages are run by a policy (run_stages): the radix of each read at run time, each case of
// the switch a fully unrolled butterfly over a register array with compile-time indices, or a
// fixed radix sequence. The powers-of-two instantiation does not spill; the mixed-radix one
// (AnyStages) does (the odd radices' direct DFTs: 692 B in fp32, 1224 B in fp64 on sm_90); the
// fixed sequences (stockham_fixed.cuh) serve the common mixed-radix passes without it. The
// butterflies are in butterfly.cuh. Included by stockham.cu and stockham_fixed.cuh, each of which
// instantiates its kernels; powers-of-two passes that stockham_pow2.cuh has a kernel for go there
// instead.
#pragma once

#include "fft/kernels/stockham.h"

#include "fft/kernels/butterfly.cuh"

#ifndef __CUDACC_RTC__  // the host side; fft/runtime_kernels.cpp compiles the kernels alone
#include "fft/kernels/launch.cuh"

#include <cuda_runtime.h>

#include <atomic>
#endif

// Each including translation unit instantiates its own kernels (internal linkage); compiled at
// run time (fft/runtime_kernels.h), the module exports them by name instead.
#ifdef __CUDACC_RTC__
#define IDGPU_PASS_KERNELS_BEGIN
#define IDGPU_PASS_KERNELS_END
#else
#define IDGPU_PASS_KERNELS_BEGIN namespace {
#define IDGPU_PASS_KERNELS_END }
#endif

namespace idgpu::fft::kernels {
namespace pass_kernel {
IDGPU_PASS_KERNELS_BEGIN


__device__ __forceinline__ int padded(const PassShape& s, int e) { return e + (e >> s.shift); }

// PassLaunch::real_step's values (RealStep, fft/planner.h).
constexpr int kRealPackStep = 1;
constexpr int kRealUnpackStep = 2;
constexpr int kOddR2CStep = 3;
constexpr int kOddC2RStep = 4;

// A pass's global sides as its first and last stages meet them directly (PassLaunch::direct_in,
// direct_out): this thread's transform's input and output, contiguous; null on a side that the
// block stages through shared memory instead.
template <class C>
struct DirectIo {
  const C* in = nullptr;
  C* out = nullptr;
};

// One Stockham stage of radix R and span `span` (= 2^span_log2 for powers of two) on the thread's
// sub-transform `sm`: read, twiddle and transform the thread's butterflies into registers,
// barrier, write back in place, barrier. Every thread of the block takes part in the barriers;
// `active` is false for the slots of a last block that has fewer sub-transforms. With direct
// sides, the first stage reads its inputs b + t N / r from the input itself and the last writes
// its outputs b + p N / r (its span is N / r and b < span) to the output itself: consecutive
// threads meet consecutive addresses on both, and the block's staging copies disappear. In place,
// every input is read before the first barrier and every output written after it.
//
// KSize and KShift, where positive / non-negative, are the sub-transform's length and the shared
// buffers' padding shift known to the compiler (a fixed sequence's; they equal s.size and
// s.shift, which the launch checks), so that butterfly counts, strides and padding fold into
// immediates; a fixed sequence's later stages also multiply by the stage twiddle of j = 0
// (exactly 1) rather than branching around it (its first stage, span 1, has no twiddles). A
// fixed sequence's KShift is kUnpaddedShift: its exchanges are rows with KPadIn / KPadOut
// padding elements after each (fixed_sequence_extent), its staged sides unpadded. KButterflies,
// where positive, is the butterflies a thread takes (a fixed sequence's widened stage,
// sequence_threads), else butterflies_per_thread(R).
// The edges of a transform run from and to shared memory, as a caller may shape them
// (stage's `edge`): which of the first stage's inputs it reads (the others are zeros) and what
// the last stage's outputs become on their way to shared memory (padded layout only), by their
// natural indices. NoEdge: all of them, unchanged.
struct NoEdge {
  static constexpr bool kActive = false;
  __device__ __forceinline__ bool reads(int) const { return true; }
  template <class C>
  __device__ __forceinline__ C leaves(int, C x) const {
    return x;
  }
};

template <int R, bool Inverse, bool PowersOfTwo, int KSize = 0, int KShift = -1, int KPadIn = 0, int KPadOut = 0,
          int KButterflies = 0, class C, class Edge = NoEdge>
__device__ __forceinline__ void stage(C* sm, const PassShape& s, int tid, int threads, int span, int span_log2,
                                      const C* __restrict__ table, bool active, const DirectIo<C>& io, bool first,
                                      bool last, const Edge& edge = Edge{}) {
  // `table` is this stage's block of the stage-major twiddles (fft/stockham_index.h).
  constexpr int kButterflies = KButterflies > 0 ? KButterflies : butterflies_per_thread(R);
  constexpr int kRadixLog2 = log2_of(R);
  constexpr bool kFixed = KSize > 0;
  // A fixed sequence's exchanges (fixed_sequence_extent in fft/stockham_index.h): rows of `span`
  // elements and KPadIn padding elements read, rows of span R and KPadOut written.
  constexpr bool kRows = kFixed && KShift >= kUnpaddedShift;
  C v[kButterflies * R];
  const int butterflies = kFixed ? KSize / R : s.size / R;
  const auto pad = [&](int e) {
    if constexpr (KShift >= kUnpaddedShift) {
      return e;
    } else if constexpr (KShift >= 0) {
      return e + (e >> KShift);
    } else {
      return padded(s, e);
    }
  };
  const bool from_global = first && io.in != nullptr;
  const bool to_global = last && io.out != nullptr;
  if (active) {
#pragma unroll
    for (int i = 0; i < kButterflies; ++i) {
      const int b = tid + i * threads;
      if (b < butterflies) {
        const int j = PowersOfTwo ? b & ((1 << span_log2) - 1) : b % span;
        const C* __restrict__ row = table + stage_twiddle_index(0, span, 1, j);  // t = 1; then + (t - 1) span
#pragma unroll
        for (int t = 0; t < R; ++t) {
          C x;
          if (from_global) {
            x = io.in[b + t * butterflies];
          } else if constexpr (kRows) {
            x = sm[exchange_read_slot(b, t, span, butterflies, KPadIn)];
          } else if constexpr (Edge::kActive) {
            x = first && !edge.reads(b + t * butterflies)
                    ? make<C>(static_cast<decltype(x.x)>(0), static_cast<decltype(x.x)>(0))
                    : sm[pad(b + t * butterflies)];
          } else {
            x = sm[pad(b + t * butterflies)];
          }
          if (t > 0 && (kFixed ? span > 1 : j > 0)) x = cmul(x, orient<Inverse>(__ldg(&row[(t - 1) * span])));
          v[i * R + t] = x;
        }
        dft<R, Inverse>(&v[i * R]);
      }
    }
  }
  if (to_global) {
    // The last stage's span is N / R: butterfly b writes b + p N / R, outside shared memory.
    if (from_global) __syncthreads();  // a single stage in place: all reads before any write
    if (active) {
#pragma unroll
      for (int i = 0; i < kButterflies; ++i) {
        const int b = tid + i * threads;
        if (b < butterflies) {
#pragma unroll
          for (int p = 0; p < R; ++p) io.out[b + p * butterflies] = v[i * R + p];
        }
      }
    }
    return;
  }
  if (!from_global) __syncthreads();
  if (active) {
#pragma unroll
    for (int i = 0; i < kButterflies; ++i) {
      const int b = tid + i * threads;
      if (b < butterflies) {
        if constexpr (kRows) {
#pragma unroll
          for (int p = 0; p < R; ++p) sm[exchange_write_slot(b, p, span, R, KPadOut)] = v[i * R + p];
        } else {
          const int base = PowersOfTwo ? stage_write_base_pow2(b, span_log2, kRadixLog2) : stage_write_base(b, span, R);
#pragma unroll
          for (int p = 0; p < R; ++p) {
            if constexpr (Edge::kActive) {
              sm[pad(base + p * span)] = last ? edge.leaves(base + p * span, v[i * R + p]) : v[i * R + p];
            } else {
              sm[pad(base + p * span)] = v[i * R + p];
            }
          }
        }
      }
    }
  }
  __syncthreads();
}

template <class Real>
constexpr int kMaxThreads = sizeof(Real) == 8 ? 512 : 1024;
// The same for a complex element type (float2, double2).
template <class C>
constexpr int kMaxThreadsOf = sizeof(C) >= 16 ? kMaxThreads<double> : kMaxThreads<float>;

// How a kernel runs a pass's Stockham stages (the radix of each read from the launch, or fixed):
//  - PowersOfTwoStages: the radices are all 16, 8, 4 or 2; the kernel has only those cases (its
//    registers are then not shaped by the odd radices' direct DFTs) and indexes with shifts;
//  - AnyStages: every radix of kFftRadices, switched on at run time;
//  - FixedStages<R...>: exactly the radices R..., in order (the launch's must be the same): no
//    switch, and every stage's span a constant after inlining, so that its index arithmetic
//    divides by constants; its exchanges row-padded (fixed_sequence_extent);
//  - PaddedFixedStages<R...>: the same over the padded layout e + (e >> shift), for the
//    sequences whose complex passes measured faster so (kernels/fixed_radices.h).
struct PowersOfTwoStages {};
struct AnyStages {};
template <int... R>
struct FixedStages {};
template <int... R>
struct PaddedFixedStages {};

template <bool Inverse, class C>
__device__ __forceinline__ void run_stages(PowersOfTwoStages, const PassLaunch& p, C* mine, const PassShape& s,
                                           int tid, int threads, const C* __restrict__ table, bool active,
                                           const DirectIo<C>&) {
  const DirectIo<C> io;  // never direct (see the kernel)
  int span = 1;
  int span_log2 = 0;
  for (int st = 0; st < p.stages; ++st) {
    const int radix = p.radices[st];
    const bool first = st == 0;
    const bool last = st == p.stages - 1;
    switch (radix) {
      case 16: stage<16, Inverse, true>(mine, s, tid, threads, span, span_log2, table, active, io, first, last); break;
      case 8: stage<8, Inverse, true>(mine, s, tid, threads, span, span_log2, table, active, io, first, last); break;
      case 4: stage<4, Inverse, true>(mine, s, tid, threads, span, span_log2, table, active, io, first, last); break;
      default: stage<2, Inverse, true>(mine, s, tid, threads, span, span_log2, table, active, io, first, last); break;
    }
    span_log2 += radix == 16 ? 4 : radix == 8 ? 3 : radix == 4 ? 2 : 1;
    table += next_stage_twiddle_offset(0, span, radix);
    span *= radix;
  }
}

template <bool Inverse, class C>
__device__ __forceinline__ void run_stages(AnyStages, const PassLaunch& p, C* mine, const PassShape& s, int tid,
                                           int threads, const C* __restrict__ table, bool active,
                                           const DirectIo<C>&) {
  const DirectIo<C> io;  // never direct (see the kernel)
  int span = 1;
  for (int st = 0; st < p.stages; ++st) {
    const int radix = p.radices[st];
    const bool first = st == 0;
    const bool last = st == p.stages - 1;
    switch (radix) {
      case 16: stage<16, Inverse, false>(mine, s, tid, threads, span, 0, table, active, io, first, last); break;
      case 13: stage<13, Inverse, false>(mine, s, tid, threads, span, 0, table, active, io, first, last); break;
      case 11: stage<11, Inverse, false>(mine, s, tid, threads, span, 0, table, active, io, first, last); break;
      case 9: stage<9, Inverse, false>(mine, s, tid, threads, span, 0, table, active, io, first, last); break;
      case 8: stage<8, Inverse, false>(mine, s, tid, threads, span, 0, table, active, io, first, last); break;
      case 7: stage<7, Inverse, false>(mine, s, tid, threads, span, 0, table, active, io, first, last); break;
      case 5: stage<5, Inverse, false>(mine, s, tid, threads, span, 0, table, active, io, first, last); break;
      case 4: stage<4, Inverse, false>(mine, s, tid, threads, span, 0, table, active, io, first, last); break;
      case 3: stage<3, Inverse, false>(mine, s, tid, threads, span, 0, table, active, io, first, last); break;
      default: stage<2, Inverse, false>(mine, s, tid, threads, span, 0, table, active, io, first, last); break;
    }
    table += next_stage_twiddle_offset(0, span, radix);
    span *= radix;
  }
}

// A fixed sequence's constants: its length, each stage's radix, span and twiddle block.
template <int... R>
struct FixedConstants {
  static constexpr int kStages = static_cast<int>(sizeof...(R));
  static constexpr int kRadices[kStages] = {R...};
  static constexpr int kSize = (R * ...);
  __host__ __device__ static constexpr int span(int stage) {
    int product = 1;
    for (int st = 0; st < stage; ++st) product *= kRadices[st];
    return product;
  }
  // As next_stage_twiddle_offset, stage after stage.
  __host__ __device__ static constexpr int twiddle_offset(int stage) {
    int offset = 0;
    for (int st = 0; st < stage; ++st) offset += (kRadices[st] - 1) * span(st);
    return offset;
  }
  // The row padding of the exchange after `stage` (exchange_padding), 0 outside the exchanges.
  __host__ __device__ static constexpr int padding(int stage, int element_bytes) {
    return stage < 0 || stage + 1 >= kStages
               ? 0
               : exchange_padding(span(stage), kRadices[stage], kRadices[stage + 1], kSize, element_bytes);
  }
  __host__ __device__ static constexpr int extent(int element_bytes) {
    return fixed_sequence_extent(kRadices, kStages, element_bytes);
  }
  // The threads a transform takes under a block's max_threads (sequence_threads, as the planner's),
  // and the butterflies a thread of them takes in `stage`.
  // (Local copies of the radices: device code may not use kRadices outside constant expressions.)
  __host__ __device__ static constexpr int threads(int max_threads) {
    const int radices[kStages] = {R...};
    return sequence_threads(radices, kStages, max_threads);
  }
  __host__ __device__ static constexpr int butterflies(int stage, int max_threads) {
    const int radices[kStages] = {R...};
    return stage_butterflies_per_thread(radices[stage], kSize / radices[stage], threads(max_threads));
  }
  // Whether `threads` threads a transform cover every stage's butterflies at butterflies(stage)
  // a thread (the launch's check, on the host).
  static constexpr bool covered_by(int threads, int max_threads) {
    const int radices[kStages] = {R...};
    for (int st = 0; st < kStages; ++st) {
      if (static_cast<long long>(butterflies(st, max_threads)) * threads < kSize / radices[st]) return false;
    }
    return true;
  }
};

// The fixed-sequence stages take their length, spans and layout as constants (stage's KSize,
// KShift, KPadIn, KPadOut). H200, one-pass batches of 2^26 points (fp32) / 2^25 (fp64), medians
// of 12, with the padded layout: fp32 n = 1000 / 2000 / 1080 / 1920 / 400 0.424 / 0.408 / 0.442 /
// 0.357 / 0.346 -> 0.394 / 0.356 / 0.408 / 0.318 / 0.327 ms (Nsight Compute, n = 1000:
// issue-bound, 70% of the scheduler cycles issuing, DRAM 52 -> 55%); fp64 n = 1000 / 1920 / 400 /
// 2000 / 1080 / 384 / 3575 / 2002 0.434 / 0.330 / 0.352 / 0.361 / 0.399 / 0.318 / 0.563 / 0.670 ->
// 0.403 / 0.318 / 0.325 / 0.352 / 0.386 / 0.312 / 0.547 / 0.659 ms. (An fp64 form that also
// multiplied the first stage by its twiddles, w^0 = 1, lost: 1000 / 1920 0.485 / 0.465 ms.)
// `edge` (padded layout only, Rows false) shapes the first stage's reads and the last stage's
// writes (NoEdge above).
// MaxThreads is the cap the sequence's threads were sized under (sequence_threads): the block
// limit of the kernel (kMaxThreadsOf<C>), or a wide pass's cap (WideStages).
template <bool Inverse, bool Rows, class C, int... R, int... St, class Edge = NoEdge, int MaxThreads = kMaxThreadsOf<C>>
__device__ __forceinline__ void run_fixed_stages(C* mine, const PassShape& s, int tid, int threads,
                                                 const C* __restrict__ table, bool active, const DirectIo<C>& io,
                                                 IntSequence<St...>, const Edge& edge = Edge{},
                                                 IntConstant<MaxThreads> = {}) {
  using K = FixedConstants<R...>;
  constexpr int kBytes = static_cast<int>(sizeof(C));
  constexpr int kShift = Rows ? kUnpaddedShift : smem_padding_shift(kBytes);
  static_assert(!Rows || !Edge::kActive, "an edge needs the padded layout");
  (stage<K::kRadices[St], Inverse, false, K::kSize, kShift, Rows ? K::padding(St - 1, kBytes) : 0,
         Rows ? K::padding(St, kBytes) : 0, K::butterflies(St, MaxThreads)>(
       mine, s, tid, threads, K::span(St), 0, table + K::twiddle_offset(St), active, io, St == 0,
       St == K::kStages - 1, edge),
   ...);
}

template <bool Inverse, class C, int... R>
__device__ __forceinline__ void run_stages(FixedStages<R...>, const PassLaunch&, C* mine, const PassShape& s, int tid,
                                           int threads, const C* __restrict__ table, bool active,
                                           const DirectIo<C>& io) {
  run_fixed_stages<Inverse, true, C, R...>(mine, s, tid, threads, table, active, io,
                                           MakeIntSequence<static_cast<int>(sizeof...(R))>());
}

template <bool Inverse, class C, int... R>
__device__ __forceinline__ void run_stages(PaddedFixedStages<R...>, const PassLaunch&, C* mine, const PassShape& s,
                                           int tid, int threads, const C* __restrict__ table, bool active,
                                           const DirectIo<C>& io) {
  run_fixed_stages<Inverse, false, C, R...>(mine, s, tid, threads, table, active, io,
                                            MakeIntSequence<static_cast<int>(sizeof...(R))>());
}

// WideStages<Cap, R...>: the wide layout (FftPass::wide, fft/stockham_index.h): FixedStages' row
// exchanges with the transform's threads sized under Cap = wide_thread_cap(N, E) rather than the
// block limit, each stage's butterflies spread over them, in blocks of at most kWideThreads.
template <int Cap, int... R>
struct WideStages {};

template <bool Inverse, class C, int Cap, int... R>
__device__ __forceinline__ void run_stages(WideStages<Cap, R...>, const PassLaunch&, C* mine, const PassShape& s,
                                           int tid, int threads, const C* __restrict__ table, bool active,
                                           const DirectIo<C>& io) {
  run_fixed_stages<Inverse, true, C, R...>(mine, s, tid, threads, table, active, io,
                                           MakeIntSequence<static_cast<int>(sizeof...(R))>(), NoEdge{},
                                           IntConstant<Cap>{});
}

// ThreadStages<R...>: the thread layout (thread_layout in fft/stockham_index.h), each thread one
// whole transform of the sequence R... in registers. A stage's butterflies and their inputs'
// and outputs' places are compile-time constants once unrolled, so that the exchange between
// stages is a renaming of registers; the stage twiddles are the stage-major table's (as
// FixedStages'), each load the same address across the warp.
template <int... R>
struct ThreadStages {};

template <class Stages>
constexpr bool kThreadStages = false;
template <int... R>
constexpr bool kThreadStages<ThreadStages<R...>> = true;

// One stage of radix R and span `Span` over a thread's N elements v (natural order in, the
// Stockham order of the next stage out, as `stage` writes its shared buffer).
template <bool Inverse, int N, int Span, int R, class C>
__device__ __forceinline__ void register_stage(C (&v)[N], const C* __restrict__ table) {
  constexpr int kButterflies = N / R;
  C next[N];
#pragma unroll
  for (int b = 0; b < kButterflies; ++b) {
    const int j = b % Span;
    C x[R];
#pragma unroll
    for (int t = 0; t < R; ++t) {
      x[t] = v[b + t * kButterflies];
      if (t > 0 && j > 0) x[t] = cmul(x[t], orient<Inverse>(__ldg(&table[(t - 1) * Span + j])));
    }
    dft<R, Inverse>(x);
    const int base = j + Span * R * (b / Span);
#pragma unroll
    for (int p = 0; p < R; ++p) next[base + p * Span] = x[p];
  }
#pragma unroll
  for (int e = 0; e < N; ++e) v[e] = next[e];
}

template <bool Inverse, class C, int... R, int... St>
__device__ __forceinline__ void run_register_stages(C (&v)[FixedConstants<R...>::kSize], const C* __restrict__ table,
                                                    IntSequence<St...>) {
  using K = FixedConstants<R...>;
  (register_stage<Inverse, K::kSize, K::span(St), K::kRadices[St]>(v, table + K::twiddle_offset(St)), ...);
}

// The body of a ThreadStages block: T = per_block transforms (one a thread, blockDim.x = T) of a
// single pass, contiguous on both sides (in_dist, out_dist apart), staged through shared memory
// with every load in flight before the first store (the full blocks), as the power-of-two staged
// kernel (stockham_pow2.cuh's kStaged). In place, the block reads all of its elements before its
// first barrier and writes after its second.
template <bool Inverse, class C, int... R>
__device__ __forceinline__ void thread_transforms(ThreadStages<R...>, const PassLaunch& p, C* sm) {
  using K = FixedConstants<R...>;
  constexpr int kN = K::kSize;
  constexpr int kStride = thread_transform_stride(kN);
  const PassShape& s = p.shape;
  const int threads = s.per_block;
  const int thread = static_cast<int>(threadIdx.x);
  const long long g0 = static_cast<long long>(blockIdx.x) * threads;
  const int valid = static_cast<int>(min(static_cast<long long>(threads), p.total - g0));
  const int in_dist = static_cast<int>(input_distance(s));
  const int out_dist = static_cast<int>(output_distance(s));
  const C* in = static_cast<const C*>(p.input) + g0 * input_distance(s);
  C* out = static_cast<C*>(p.output) + g0 * output_distance(s);
  const auto slot = [](int q) { return (q / kN) * kStride + q % kN; };
  C v[kN];
  if (valid == threads) {
#pragma unroll
    for (int k = 0; k < kN; ++k) {
      const int q = thread + k * threads;
      v[k] = in[(q / kN) * in_dist + q % kN];
    }
#pragma unroll
    for (int k = 0; k < kN; ++k) sm[slot(thread + k * threads)] = v[k];
  } else {
    for (int q = thread; q < valid * kN; q += threads) sm[slot(q)] = in[(q / kN) * in_dist + q % kN];
  }
  __syncthreads();
  if (thread < valid) {
    C* mine = sm + thread * kStride;
#pragma unroll
    for (int e = 0; e < kN; ++e) v[e] = mine[e];
    run_register_stages<Inverse, C, R...>(v, static_cast<const C*>(p.stage_twiddles),
                                          MakeIntSequence<K::kStages>());
#pragma unroll
    for (int e = 0; e < kN; ++e) mine[e] = v[e];
  }
  __syncthreads();
  if (valid == threads) {
#pragma unroll
    for (int k = 0; k < kN; ++k) v[k] = sm[slot(thread + k * threads)];
#pragma unroll
    for (int k = 0; k < kN; ++k) {
      const int q = thread + k * threads;
      out[(q / kN) * out_dist + q % kN] = v[k];
    }
  } else {
    for (int q = thread; q < valid * kN; q += threads) out[(q / kN) * out_dist + q % kN] = sm[slot(q)];
  }
}

template <class Stages>
constexpr bool kWideStages = false;
template <int Cap, int... R>
constexpr bool kWideStages<WideStages<Cap, R...>> = true;

// The block's thread limit, the kernel's launch bound: a ThreadStages block takes at most
// kThreadTransformThreads threads, so that a thread may hold its transform in up to 255 registers;
// a WideStages block at most kWideThreads; the others the kernels' limit for the precision.
template <class Real, class Stages>
constexpr int kPassThreads = kThreadStages<Stages> ? kThreadTransformThreads
                             : kWideStages<Stages> ? kWideThreads
                                                   : kMaxThreads<Real>;
// Blocks an SM the launch bound asks for: a wide block's threads keep up to 128 registers (two
// blocks of kWideThreads), the others' as their thread limit allows.
template <class Stages>
constexpr int kPassMinBlocks = kWideStages<Stages> ? 2 : 1;

template <class Stages>
constexpr bool kDirectCapable = false;
template <int... R>
constexpr bool kDirectCapable<FixedStages<R...>> = true;
template <int... R>
constexpr bool kDirectCapable<PaddedFixedStages<R...>> = true;
template <int Cap, int... R>
constexpr bool kDirectCapable<WideStages<Cap, R...>> = true;

// The pass kernel; `Stages` (PowersOfTwoStages, AnyStages, FixedStages, PaddedFixedStages,
// WideStages, ThreadStages) runs its Stockham stages.
// A block of the staged passes (every Stages but ThreadStages): stage in, the stages, stage out.
template <class Real, bool Inverse, class Stages, class C>
__device__ __forceinline__ void staged_pass(const PassLaunch& p, C* sm) {
  const PassShape& s = p.shape;
  const long long g0 = static_cast<long long>(blockIdx.x) * s.per_block;
  const int valid = static_cast<int>(min(static_cast<long long>(s.per_block), p.total - g0));
  const int count = valid * s.size;
  const BlockFrame frame = block_frame(s, g0);
  // Not restrict: the last pass of a plan may run in place (input == output); every element a
  // block writes was read by that block before its first barrier.
  // (An odd real pass's real side counts reals: its pointer is formed in its own branch.)
  const C* in = p.real_step == kOddR2CStep ? nullptr : static_cast<const C*>(p.input) + frame.in_base;
  C* out = p.real_step == kOddC2RStep ? nullptr : static_cast<C*>(p.output) + frame.out_base;
  const C* __restrict__ lo = static_cast<const C*>(p.lo_twiddles);
  const C* __restrict__ hi = static_cast<const C*>(p.hi_twiddles);
  const bool in_contiguous = s.sub == 1;
  const bool out_contiguous = s.span == 1;
  const bool twiddled = inter_pass_twiddled(s);
  const unsigned lo_mask = (1u << p.lo_bits) - 1u;

  const auto place = [&](int tr, int e, C x) {
    if (twiddled && e > 0) {
      // e (j0 + tr) < L N <= 2^31.
      const unsigned exponent = static_cast<unsigned>(e) * static_cast<unsigned>(frame.j0 + tr);
      x = cmul(x, orient<Inverse>(cmul(__ldg(&lo[exponent & lo_mask]), __ldg(&hi[exponent >> p.lo_bits]))));
    }
    sm[smem_index(s, tr, e)] = x;
  };
  const int threads = p.threads_per_transform;
  const int slot = static_cast<int>(threadIdx.x) / threads;  // this thread's sub-transform in the block
  const int tid = static_cast<int>(threadIdx.x) - slot * threads;
  const bool active = slot < valid;
  // Only the fixed sequences meet global memory from their stages. The run-time radix switch
  // (AnyStages) with the direct branches spills 940 B instead of 692 (fp32, sm_90) and measured
  // slower than staging on an H100 (n = 1001: 0.16 of copy bandwidth against 0.24; 1331, 2197,
  // 3888, 36 alike); the powers of two (served by stockham_pow2.cuh where it matters) stage.
  const bool direct_in = kDirectCapable<Stages> && p.direct_in;
  const bool direct_out = kDirectCapable<Stages> && p.direct_out;
  DirectIo<C> io;
  if (direct_in) io.in = in + static_cast<long long>(slot) * input_distance(s);
  if (direct_out) io.out = out + static_cast<long long>(slot) * output_distance(s);
  bool staged = direct_in;
  if (p.real_step == kOddR2CStep) {
    // Odd n: the n reals of each row (the real side's distances count reals) as (x, 0).
    const Real* x = static_cast<const Real*>(p.input) + frame.in_base;
    const int dist = static_cast<int>(input_distance(s));
    for (int q = threadIdx.x; q < count; q += blockDim.x) {
      const int tr = q / s.size;
      const int e = q - tr * s.size;
      sm[smem_index(s, tr, e)] = make<C>(x[tr * dist + e], static_cast<Real>(0));
    }
    staged = true;
  } else if (p.real_step == kOddC2RStep) {
    // Odd n: the n / 2 + 1 inputs X of each row and their Hermitian extension X[n-k] = conj X[k].
    const int slots = s.size / 2 + 1;
    const int dist = static_cast<int>(input_distance(s));
    for (int q = threadIdx.x; q < valid * slots; q += blockDim.x) {
      const int tr = q / slots;
      const int k = q - tr * slots;
      const C x = in[tr * dist + k];
      sm[smem_index(s, tr, k)] = x;
      if (k > 0) sm[smem_index(s, tr, s.size - k)] = cconj(x);
    }
    staged = true;
  }
  if constexpr (sizeof(Real) == 4) {
    if (!staged && p.vector_in) {
      // Pairs of consecutive q are consecutive, 16-byte aligned addresses (checked by the host).
      // Over `count` slots: on a column side the host allows pairs only where T divides S (no
      // straddling pass), so every block is full there.
      for (int q = 2 * threadIdx.x; q < count; q += 2 * blockDim.x) {
        int tr = 0, e = 0;
        staging_slot(s, in_contiguous, q, &tr, &e);
        const float4 pair = *reinterpret_cast<const float4*>(&in[input_step(s, tr, e)]);
        place(tr, e, make<C>(pair.x, pair.y));
        int tr1 = 0, e1 = 0;
        staging_slot(s, in_contiguous, q + 1, &tr1, &e1);
        place(tr1, e1, make<C>(pair.z, pair.w));
      }
      staged = true;
    }
  }
  // A column side's linear order runs across all T lines: a straddling pass's last block may
  // have fewer valid (a contiguous side's first `count` slots are its valid ones).
  const int in_slots = in_contiguous ? count : s.per_block * s.size;
  const int out_slots = out_contiguous ? count : s.per_block * s.size;
  if (!staged) {
    for (int q = threadIdx.x; q < in_slots; q += blockDim.x) {
      int tr = 0, e = 0;
      staging_slot(s, in_contiguous, q, &tr, &e);
      if (tr < valid) place(tr, e, in[input_step(s, tr, e) + input_jump(frame, tr)]);
    }
  }
  if (!direct_in) __syncthreads();
  if (p.real_step == kRealUnpackStep) {
    // The staged n / 2 + 1 inputs X of each transform (the last read here from device memory)
    // combined into the M = n / 2 points Z of its complex transform (RealStep, fft/planner.h):
    // Z[e] = (X[e] + conj X[M-e]) + i w^-e (X[e] - conj X[M-e]), each pair {e, M - e} by one
    // thread, in place.
    const C* __restrict__ real = static_cast<const C*>(p.real_twiddles);
    const int size = s.size;
    const int pairs = size / 2 + 1;
    const auto unpack = [&](C a, C b, int e) {
      const C sum = cadd(a, cconj(b));
      const C t = cmul(cconj(__ldg(&real[e])), csub(a, cconj(b)));
      return make<C>(sum.x - t.y, sum.y + t.x);
    };
    for (int q = threadIdx.x; q < valid * pairs; q += blockDim.x) {
      const int tr = q / pairs;
      const int e = q - tr * pairs;
      const C a = sm[smem_index(s, tr, e)];
      if (e == 0) {
        sm[smem_index(s, tr, 0)] = unpack(a, in[input_step(s, tr, size)], 0);
      } else if (2 * e == size) {
        sm[smem_index(s, tr, e)] = unpack(a, a, e);
      } else {
        const C b = sm[smem_index(s, tr, size - e)];
        sm[smem_index(s, tr, e)] = unpack(a, b, e);
        sm[smem_index(s, tr, size - e)] = unpack(b, a, size - e);
      }
    }
    __syncthreads();
  }

  C* mine = sm + slot * s.smem_stride;
  const C* __restrict__ table = static_cast<const C*>(p.stage_twiddles);  // advanced stage by stage
  run_stages<Inverse>(Stages{}, p, mine, s, tid, threads, table, active, io);
  if (direct_out) return;  // the last stage wrote the output

  if (p.real_step == kOddR2CStep) {
    // Odd n: the first n / 2 + 1 outputs of each row.
    const int slots = s.size / 2 + 1;
    const int dist = static_cast<int>(output_distance(s));
    for (int q = threadIdx.x; q < valid * slots; q += blockDim.x) {
      const int row = q / slots;
      const int k = q - row * slots;
      out[row * dist + k] = sm[smem_index(s, row, k)];
    }
    return;
  }
  if (p.real_step == kOddC2RStep) {
    // Odd n: the real parts of the n outputs of each row (distances in reals).
    Real* x = static_cast<Real*>(p.output) + frame.out_base;
    const int dist = static_cast<int>(output_distance(s));
    for (int q = threadIdx.x; q < count; q += blockDim.x) {
      const int row = q / s.size;
      const int e = q - row * s.size;
      x[row * dist + e] = sm[smem_index(s, row, e)].x;
    }
    return;
  }
  if (p.real_step == kRealPackStep) {
    // The n / 2 + 1 outputs of each transform from its M = n / 2 points Z: X[k] = (Z[k] +
    // conj Z[M-k]) / 2 - i w^k (Z[k] - conj Z[M-k]) / 2 for k < M; the thread of k = 0 also
    // writes X[M] = Re Z[0] - Im Z[0].
    const C* __restrict__ real = static_cast<const C*>(p.real_twiddles);
    const int size = s.size;
    for (int q = threadIdx.x; q < count; q += blockDim.x) {
      const int row = q / size;
      const int k = q - row * size;
      const int partner = k == 0 ? 0 : size - k;
      const C a = sm[smem_index(s, row, k)];
      const C b = cconj(sm[smem_index(s, row, partner)]);
      const C sum = cadd(a, b);
      const C t = cmul(__ldg(&real[k]), csub(a, b));
      out[output_step(s, row, k)] =
          make<C>(static_cast<Real>(0.5) * (sum.x + t.y), static_cast<Real>(0.5) * (sum.y - t.x));
      if (k == 0) out[output_step(s, row, size)] = make<C>(a.x - a.y, static_cast<Real>(0));
    }
    return;
  }
  if constexpr (sizeof(Real) == 4) {
    if (p.vector_out) {
      for (int q = 2 * threadIdx.x; q < count; q += 2 * blockDim.x) {
        int tr0 = 0, e0 = 0, tr1 = 0, e1 = 0;
        staging_slot(s, out_contiguous, q, &tr0, &e0);
        staging_slot(s, out_contiguous, q + 1, &tr1, &e1);
        const C a = sm[smem_index(s, tr0, e0)];
        const C b = sm[smem_index(s, tr1, e1)];
        *reinterpret_cast<float4*>(&out[output_step(s, tr0, e0) + output_jump(frame, tr0)]) =
            make_float4(a.x, a.y, b.x, b.y);
      }
      return;
    }
  }
  for (int q = threadIdx.x; q < out_slots; q += blockDim.x) {
    int tr0 = 0, e0 = 0;
    staging_slot(s, out_contiguous, q, &tr0, &e0);
    if (tr0 < valid) out[output_step(s, tr0, e0) + output_jump(frame, tr0)] = sm[smem_index(s, tr0, e0)];
  }
}

template <class Real, bool Inverse, class Stages>
__global__ void __launch_bounds__(kPassThreads<Real, Stages>, kPassMinBlocks<Stages>)
    stockham_pass(const PassLaunch p) {
  using C = typename ComplexOf<Real>::type;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  C* sm = reinterpret_cast<C*>(shared_raw);
  if constexpr (kThreadStages<Stages>) {
    thread_transforms<Inverse>(Stages{}, p, sm);
  } else {
    staged_pass<Real, Inverse, Stages>(p, sm);
  }
}

#ifndef __CUDACC_RTC__
// Launches `pass` on stockham_pass<Real, Inverse, Stages>.
template <class Real, bool Inverse, class Stages>
cudaError_t launch_kernel(const PassLaunch& pass, cudaStream_t stream) {
  static std::atomic<unsigned> allowed[64] = {};
  const auto kernel = stockham_pass<Real, Inverse, Stages>;
  if (const cudaError_t status = allow_shared(kernel, pass.shared_bytes, allowed); status != cudaSuccess) return status;
  const unsigned threads = static_cast<unsigned>(pass.threads_per_transform * pass.shape.per_block);
  kernel<<<static_cast<unsigned>(pass.blocks), threads, pass.shared_bytes, stream>>>(pass);
  return cudaGetLastError();
}
#endif

IDGPU_PASS_KERNELS_END
}  // namespace pass_kernel
}  // namespace idgpu::fft::kernels
