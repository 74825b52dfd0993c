// Bluestein's algorithm in one pass (ConvolutionStep::kBluestein, fft/planner.h; the algebra and
// tables in fft/convolution.h): a block takes T transforms of any length n and does each one's
// cyclic convolution of M = 2^LogM >= 2n - 1 points in shared memory, so that device memory sees
// one read and one write of the n points, as an ordinary single pass:
//  1. the block's T n-point inputs, read in linear order (consecutive threads, consecutive
//     addresses), times the chirp, into slots 0 .. n - 1 of each padded M-slot buffer;
//  2. each thread takes its elements (zeros from n on) and the forward M-point FFT runs as the
//     power-of-two kernels run a single pass (Pow2Pass, stockham_pow2.cuh): its last stage leaves
//     bin tid + k M / E in v[k];
//  3. v[k] times the kernel's spectrum (the 1 / M of the unnormalised inverse folded in, read
//     from the L2: one table shared by the batch), in registers;
//  4. the M-point FFT of the opposite sign, its last stage into shared memory;
//  5. outputs 0 .. n - 1 times the chirp, written in linear order.
// Every table holds the forward sign's values; the inverse transform conjugates them and swaps
// both FFTs' signs (the conjugate of the forward computation). The host executor runs the same
// steps (fft/convolution_reference.cpp).
// A real plan's real pass (PassLaunch::real_step, RealStep in fft/planner.h) runs its real step
// in steps 1 and 5, so that the data still move once: C2R of even length combines each input
// with its partner X[N - e] into Z on its load (the partner read from the L1/L2), R2C of even
// length pairs the outputs Z[k] and Z[N - k] from shared memory on its store; odd lengths load
// reals as (x, 0) or the half spectrum with its Hermitian extension, and store the first
// n / 2 + 1 outputs or real parts, the real side's distances in reals, two rows a transform
// (PassLaunch::real_rows: z = a + i b, split on the store).
#pragma once

#include "fft/kernels/stockham_pow2.cuh"

namespace idgpu::fft::kernels {

// PassLaunch::real_step's values the kernel serves (RealStep, fft/planner.h).
inline constexpr int kBluesteinPackR2C = 1;
inline constexpr int kBluesteinUnpackC2R = 2;
inline constexpr int kBluesteinOddR2C = 3;
inline constexpr int kBluesteinOddC2R = 4;

// The convolution lengths compiled: n >= 17 (the least prime above 13) takes M >= 64, and the
// largest M is the largest power-of-two pass a block holds.
inline constexpr int kBluesteinMinLog = 6;

// A block's rows of a one-pass Bluestein convolution: steps 1 and 5 (and the real steps on
// them), shared by the power-of-two kernel below and the mixed-length kernels
// (stockham_bluestein_mixed.cuh), whose middles differ. Row r's M slots are sm + r smem_stride,
// slot e at e + (e >> shift).
template <class Real, bool Inverse>
struct BluesteinRows {
  using C = typename ComplexOf<Real>::type;
  const PassLaunch& p;
  C* sm;
  int n;
  int valid;
  int thread;
  int stride;
  long long g0;
  long long in_dist;
  long long out_dist;

  __device__ BluesteinRows(const PassLaunch& launch, C* shared)
      : p(launch),
        sm(shared),
        n(launch.shape.size),
        valid(static_cast<int>(min(static_cast<long long>(launch.shape.per_block),
                                   launch.total - static_cast<long long>(blockIdx.x) * launch.shape.per_block))),
        thread(static_cast<int>(threadIdx.x)),
        stride(static_cast<int>(blockDim.x)),
        g0(static_cast<long long>(blockIdx.x) * launch.shape.per_block),
        in_dist(input_distance(launch.shape)),
        out_dist(output_distance(launch.shape)) {}

  __device__ __forceinline__ int slot(int row, int e) const {
    return row * p.shape.smem_stride + e + (e >> p.shape.shift);
  }
  __device__ __forceinline__ bool odd() const {
    return p.real_step == kBluesteinOddR2C || p.real_step == kBluesteinOddC2R;
  }
  // Odd real rows, one a transform or two (PassLaunch::real_rows: z = a + i b, rows from 2 g0
  // on), counted from the array's start.
  __device__ __forceinline__ bool paired() const { return p.real_rows > 0; }
  __device__ __forceinline__ long long first_row() const { return paired() ? 2 * g0 : g0; }
  __device__ __forceinline__ long long end_row() const { return paired() ? p.real_rows : g0 + valid; }
  __device__ __forceinline__ C chirp(int e) const {
    return orient<Inverse>(__ldg(&static_cast<const C*>(p.chirp)[e]));
  }

  // Step 1: the block's rows times the chirp into slots 0 .. n - 1 (the real step on the way).
  // Not restrict: the pass may run in place; every element a block writes it read before its
  // first barrier. (The odd real passes, whose real side counts reals, index from the arrays'
  // starts instead.)
  __device__ __forceinline__ void load() const {
    const int count = valid * n;
    const C* in = odd() ? nullptr : static_cast<const C*>(p.input) + g0 * in_dist;
    const C* __restrict__ real = static_cast<const C*>(p.real_twiddles);
    const long long first = first_row();
    const long long end = end_row();
    const bool pairs = paired();
    const C zero = make<C>(static_cast<Real>(0), static_cast<Real>(0));
    // Row `row`'s point e: the reals as (x, 0) or the half spectrum's Hermitian extension (X[e]
    // for e <= n / 2, conj X[n - e] above, X[0] real); zeros past the last row.
    const auto odd_r2c = [&](long long row, int e) {
      return row < end ? make<C>(static_cast<const Real*>(p.input)[row * in_dist + e], static_cast<Real>(0)) : zero;
    };
    // X[0]'s imaginary part drops out, as in the vendor's C2R (and paired, it would otherwise
    // reach the other row through z's imaginary part).
    const auto odd_c2r = [&](long long row, int e) {
      if (row >= end) return zero;
      const bool lower = 2 * e <= n;
      const C x = static_cast<const C*>(p.input)[row * in_dist + (lower ? e : n - e)];
      return e == 0 ? make<C>(x.x, static_cast<Real>(0)) : lower ? x : cconj(x);
    };
    // One loop per step, the step's point function inlined into it.
    const auto load_odd = [&](auto point) {
      for (int q = thread; q < count; q += stride) {
        const int t = q / n;
        const int e = q - t * n;
        C z;
        if (pairs) {
          const long long a = first + 2 * t;
          const C x = point(a, e);
          const C y = point(a + 1, e);
          z = make<C>(x.x - y.y, x.y + y.x);
        } else {
          z = point(first + t, e);
        }
        sm[slot(t, e)] = cmul(z, chirp(e));
      }
    };
    if (p.real_step == kBluesteinOddR2C) {
      load_odd(odd_r2c);
    } else if (p.real_step == kBluesteinOddC2R) {
      load_odd(odd_c2r);
    } else if (p.real_step == kBluesteinUnpackC2R) {
      // Z[e] = (X[e] + conj X[N-e]) + i w^-e (X[e] - conj X[N-e]); X[N] pairs with X[0].
      for (int q = thread; q < count; q += stride) {
        const int row = q / n;
        const int e = q - row * n;
        const C a = in[row * in_dist + e];
        const C b = cconj(in[row * in_dist + n - e]);
        const C sum = cadd(a, b);
        const C t = cmul(cconj(__ldg(&real[e])), csub(a, b));
        sm[slot(row, e)] = cmul(make<C>(sum.x - t.y, sum.y + t.x), chirp(e));
      }
    } else {
      for (int q = thread; q < count; q += stride) {
        const int row = q / n;
        const int e = q - row * n;
        sm[slot(row, e)] = cmul(in[row * in_dist + e], chirp(e));
      }
    }
  }

  // Step 5: outputs 0 .. n - 1 of the rows' slots times the chirp, written in linear order
  // (the real step on the way).
  __device__ __forceinline__ void store() const {
    const int count = valid * n;
    C* out = odd() ? nullptr : static_cast<C*>(p.output) + g0 * out_dist;
    const C* __restrict__ real = static_cast<const C*>(p.real_twiddles);
    const long long first = first_row();
    const long long end = end_row();
    const bool pairs = paired();
    const auto result = [&](int row, int k) { return cmul(sm[slot(row, k)], chirp(k)); };
    if (p.real_step == kBluesteinPackR2C) {
      // X[k] = (Z[k] + conj Z[N-k]) / 2 - i w^k (Z[k] - conj Z[N-k]) / 2 for k < N; the thread
      // of k = 0 also writes X[N] = Re Z[0] - Im Z[0].
      for (int q = thread; q < count; q += stride) {
        const int row = q / n;
        const int k = q - row * n;
        const C a = result(row, k);
        const C b = cconj(k == 0 ? a : result(row, n - k));
        const C sum = cadd(a, b);
        const C t = cmul(__ldg(&real[k]), csub(a, b));
        out[row * out_dist + k] =
            make<C>(static_cast<Real>(0.5) * (sum.x + t.y), static_cast<Real>(0.5) * (sum.y - t.x));
        if (k == 0) out[row * out_dist + n] = make<C>(a.x - a.y, static_cast<Real>(0));
      }
    } else if (p.real_step == kBluesteinOddR2C) {
      // The first n / 2 + 1 outputs; paired, X_a[k] = (Z[k] + conj Z[n-k]) / 2 to the first row
      // and X_b[k] = (Z[k] - conj Z[n-k]) / 2i to the second.
      const int slots = n / 2 + 1;
      C* const halves = static_cast<C*>(p.output);
      for (int q = thread; q < valid * slots; q += stride) {
        const int t = q / slots;
        const int k = q - t * slots;
        const C z = result(t, k);
        if (!pairs) {
          halves[(first + t) * out_dist + k] = z;
          continue;
        }
        const long long a = first + 2 * t;
        const C w = cconj(k == 0 ? z : result(t, n - k));
        const Real h = static_cast<Real>(0.5);
        halves[a * out_dist + k] = make<C>(h * (z.x + w.x), h * (z.y + w.y));
        if (a + 1 < end) halves[(a + 1) * out_dist + k] = make<C>(h * (z.y - w.y), h * (w.x - z.x));
      }
    } else if (p.real_step == kBluesteinOddC2R) {
      // The real parts to the first row; paired, the imaginary parts to the second.
      Real* const x = static_cast<Real*>(p.output);
      for (int q = thread; q < count; q += stride) {
        const int t = q / n;
        const int e = q - t * n;
        const C z = result(t, e);
        const long long a = pairs ? first + 2 * t : first + t;
        x[a * out_dist + e] = z.x;
        if (pairs && a + 1 < end) x[(a + 1) * out_dist + e] = z.y;
      }
    } else {
      for (int q = thread; q < count; q += stride) {
        const int row = q / n;
        const int e = q - row * n;
        out[row * out_dist + e] = result(row, e);
      }
    }
  }
};

template <class Real, bool Inverse, int LogM>
__global__ void __maxnreg__(kPow2Registers<Real>) stockham_bluestein(const __grid_constant__ PassLaunch p) {
  using Ahead = Pow2Pass<Real, Inverse, LogM, kSingle>;  // the last stage's outputs stay in v[]
  using Back = Pow2Pass<Real, !Inverse, LogM, kStaged>;  // the last stage's outputs to shared memory
  using C = typename Ahead::C;
  constexpr int kE = Ahead::kE;
  constexpr int kThreads = Ahead::kThreads;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  C* sm = reinterpret_cast<C*>(shared_raw);
  const BluesteinRows<Real, Inverse> rows(p, sm);
  const int n = rows.n;
  const C* __restrict__ spectrum = static_cast<const C*>(p.spectrum);
  const int tr = rows.thread >> Ahead::kLogThreads;
  const int tid = rows.thread & (kThreads - 1);
  const bool active = tr < rows.valid;
  C* mine = sm + tr * p.shape.smem_stride;

  rows.load();
  __syncthreads();
  C v[kE];
  if (active) {
#pragma unroll
    for (int k = 0; k < kE; ++k) {
      const int e = tid + k * kThreads;
      v[k] = e < n ? mine[e + (e >> p.shape.shift)] : make<C>(static_cast<Real>(0), static_cast<Real>(0));
    }
  }
  __syncthreads();  // the first stage writes where others read

  const Ahead ahead{p.stage_twiddles, mine, p.shape.shift, tid, active};
  ahead.stages(v, std::make_integer_sequence<int, Ahead::kStages>());
  if (active) {
#pragma unroll
    for (int k = 0; k < kE; ++k) v[k] = cmul(v[k], orient<Inverse>(__ldg(&spectrum[tid + k * kThreads])));
  }
  __syncthreads();  // every thread read its last-stage inputs before the inverse's first stage writes
  const Back back{p.stage_twiddles, mine, p.shape.shift, tid, active};
  back.stages(v, std::make_integer_sequence<int, Back::kStages>());
  __syncthreads();
  rows.store();
}

template <class Real, bool Inverse, int LogM>
cudaError_t launch_bluestein_kernel(const PassLaunch& pass, cudaStream_t stream) {
  static std::atomic<unsigned> allowed[64] = {};
  const auto kernel = stockham_bluestein<Real, Inverse, LogM>;
  if (const cudaError_t status = allow_shared(kernel, pass.shared_bytes, allowed); status != cudaSuccess) return status;
  const unsigned threads = static_cast<unsigned>(pass.threads_per_transform * pass.shape.per_block);
  kernel<<<static_cast<unsigned>(pass.blocks), threads, pass.shared_bytes, stream>>>(pass);
  return cudaGetLastError();
}

// Whether a compiled kernel serves `pass`: a single pass (contiguous in and out; a real pass's
// step 1..4 included) of Bluestein's convolution over M = 2^LogM in the compiled range, staged as Pow2Pass stages M (16 elements a
// thread, pow2_stage_bits' radices).
template <class Real>
bool bluestein_served(const PassLaunch& pass) {
  const PassShape& s = pass.shape;
  const int log_m = pass.convolution_log2;
  if (pass.convolution != 2 || s.sub != 1 || s.span != 1 || pass.real_step < 0 || pass.real_step > kBluesteinOddC2R ||
      log_m < kBluesteinMinLog || pass.convolution_size != 1 << log_m ||
      log_m > kPow2MaxLog<Real> || pass.stages != pow2_stages(log_m) ||
      pass.threads_per_transform != (1 << log_m) / kMaxElementsPerThread) {
    return false;
  }
  for (int st = 0; st < pass.stages; ++st) {
    if (pass.radices[st] != 1 << pow2_stage_bits(log_m, st)) return false;
  }
  return true;
}

template <class Real, bool Inverse, int... Log>
cudaError_t launch_bluestein_log(const PassLaunch& pass, cudaStream_t stream, std::integer_sequence<int, Log...>) {
  cudaError_t status = cudaErrorNotSupported;
  const auto launch_if = [&](auto log) {
    constexpr int kLog = decltype(log)::value;
    if (pass.convolution_log2 != kLog) return false;
    status = launch_bluestein_kernel<Real, Inverse, kLog>(pass, stream);
    return true;
  };
  (launch_if(std::integral_constant<int, Log + kBluesteinMinLog>()) || ...);
  return status;
}

// Launches `pass` (bluestein_served) and returns the launch's status; cudaErrorNotSupported,
// with nothing launched, for a pass no kernel serves.
template <class Real>
cudaError_t launch_bluestein(const PassLaunch& pass, bool inverse, cudaStream_t stream) {
  const bool even_real = pass.real_step == kBluesteinPackR2C || pass.real_step == kBluesteinUnpackC2R;
  if (!bluestein_served<Real>(pass) || pass.chirp == nullptr || pass.spectrum == nullptr ||
      (even_real && pass.real_twiddles == nullptr)) {
    return cudaErrorNotSupported;
  }
  using Logs = std::make_integer_sequence<int, kPow2MaxLog<Real> - kBluesteinMinLog + 1>;
  return inverse ? launch_bluestein_log<Real, true>(pass, stream, Logs())
                 : launch_bluestein_log<Real, false>(pass, stream, Logs());
}

// The one-pass entry points (stockham_bluestein_f32.cu / _f64.cu): the power-of-two kernel where
// it serves the pass, else the mixed-length kernels (`mixed`: launch_bluestein_mixed_f32 / _f64,
// stockham_bluestein_mixed.cuh); cudaErrorNotSupported, with nothing launched, where none does or
// a table the pass needs is missing.
template <class Real, class Mixed>
cudaError_t launch_one_pass(const PassLaunch& pass, bool inverse, cudaStream_t stream, Mixed mixed) {
  if (bluestein_served<Real>(pass)) return launch_bluestein<Real>(pass, inverse, stream);
  const bool even_real = pass.real_step == kBluesteinPackR2C || pass.real_step == kBluesteinUnpackC2R;
  if (pass.chirp == nullptr || pass.spectrum == nullptr || (even_real && pass.real_twiddles == nullptr)) {
    return cudaErrorNotSupported;
  }
  cudaError_t status = cudaErrorNotSupported;
  mixed(pass, inverse, stream, &status);
  return status;
}

template <class Real, class Mixed>
bool one_pass_served(const PassLaunch& pass, Mixed mixed) {
  return bluestein_served<Real>(pass) || mixed(pass, false, nullptr, nullptr);
}

}  // namespace idgpu::fft::kernels
