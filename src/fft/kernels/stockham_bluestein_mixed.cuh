// Bluestein's algorithm in one pass over a mixed convolution length M (the lengths of
// IDGPU_FFT_BLUESTEIN_MIXED_F32 / _F64 in fft/kernels/fixed_radices.h): the steps of
// stockham_bluestein.cuh (its BluesteinRows load and store the rows, with the real steps), the
// M-point FFTs run as the fixed-sequence pass kernels run their stages (stockham_pass.cuh's
// run_fixed_stages over the padded layout, each stage from and to shared memory):
//  1. the rows' n points times the chirp into slots 0 .. n - 1 (n .. M - 1 are zeros, which the
//     FFT's first stage does not read);
//  2. the forward M-point FFT, its outputs in natural order in the same slots, on their way
//  3. times the kernel's spectrum (the 1 / M folded in; read from the L2, one table shared by
//     the batch; SpectrumEdge);
//  4. the M-point FFT of the opposite sign;
//  5. outputs 0 .. n - 1 times the chirp, written in linear order.
// The power-of-two kernel keeps each thread's elements in registers from step 2 to 4; here a
// stage's butterflies differ in number from stage to stage (a radix-3 or radix-5 stage next to
// radix-16 ones), so every stage meets shared memory.
// Included by stockham_bluestein_mixed_f32.cu and _f64.cu, each of which instantiates its
// precision's lengths.
#pragma once

#include "fft/kernels/fixed_radices.h"
#include "fft/kernels/stockham_bluestein.cuh"
#include "fft/kernels/stockham_pass.cuh"

namespace idgpu::fft::kernels::bluestein_mixed {
namespace {  // as stockham_pass.cuh's kernels: each including translation unit its own

// The forward FFT's edges (pass_kernel::NoEdge): slots n .. M - 1 read as zeros (never written:
// step 1's zero padding), and each output times the kernel's spectrum on its way to shared memory
// (step 3), in the FFT's first and last stages.
template <class Real, bool Inverse>
struct SpectrumEdge {
  using C = typename ComplexOf<Real>::type;
  static constexpr bool kActive = true;
  int n;
  const C* __restrict__ spectrum;
  __device__ __forceinline__ bool reads(int e) const { return e < n; }
  __device__ __forceinline__ C leaves(int k, C x) const {
    return cmul(x, orient<Inverse>(__ldg(&spectrum[k])));
  }
};

// One M-point FFT of a row in shared memory (`mine`), its outputs in natural order in the same
// slots; each stage ends at a barrier after its writes. Not inlined: with both FFTs inlined into
// the kernel, ptxas kept values of the first alive through the second and spilled 460-800 B a
// thread (fp32, sm_90, 64 registers); each FFT a function of its own, none (54-60 registers).
template <class Real, bool Inverse, class Edge, int... R>
__device__ __noinline__ void mixed_fft(typename ComplexOf<Real>::type* mine, const PassShape& s, int tid,
                                       const typename ComplexOf<Real>::type* table, bool active, Edge edge) {
  using K = pass_kernel::FixedConstants<R...>;
  using C = typename ComplexOf<Real>::type;
  const pass_kernel::DirectIo<C> io;  // every stage from and to shared memory
  pass_kernel::run_fixed_stages<Inverse, false, C, R...>(mine, s, tid, K::threads(pass_kernel::kMaxThreads<Real>),
                                                          table, active, io,
                                                          MakeIntSequence<K::kStages>(), edge);
}

template <class Real, bool Inverse, int... R>
__global__ void __launch_bounds__(pass_kernel::kMaxThreads<Real>)
    stockham_bluestein_mixed(const __grid_constant__ PassLaunch p) {
  using K = pass_kernel::FixedConstants<R...>;
  using C = typename ComplexOf<Real>::type;
  using Rows = BluesteinRows<Real, Inverse>;
  constexpr int kThreads = K::threads(pass_kernel::kMaxThreads<Real>);
  extern __shared__ __align__(16) unsigned char shared_raw[];
  C* sm = reinterpret_cast<C*>(shared_raw);
  const int tr = static_cast<int>(threadIdx.x) / kThreads;
  const int tid = static_cast<int>(threadIdx.x) - tr * kThreads;
  // The rows' values (the launch's fields and the block's index) are formed again where needed
  // rather than kept live across the FFTs.
  Rows(p, sm).load();
  __syncthreads();
  const bool active = tr < Rows(p, sm).valid;
  C* mine = sm + tr * p.shape.smem_stride;
  const C* const table = static_cast<const C*>(p.stage_twiddles);
  const SpectrumEdge<Real, Inverse> edge{p.shape.size, static_cast<const C*>(p.spectrum)};
  mixed_fft<Real, Inverse, SpectrumEdge<Real, Inverse>, R...>(mine, p.shape, tid, table, active, edge);
  mixed_fft<Real, !Inverse, pass_kernel::NoEdge, R...>(mine, p.shape, tid, table, active, pass_kernel::NoEdge{});
  Rows(p, sm).store();
}

// Whether this kernel serves `pass`: a single pass (contiguous in and out, a real pass's step
// 1..4 included) of Bluestein's convolution over M = R x ..., its radices exactly R..., the
// padded layout compiled in (run_fixed_stages' shift) and the sequence's threads a transform
// (FixedConstants::threads, compiled in).
template <class Real, int... R>
bool serves(const PassLaunch& pass) {
  using K = pass_kernel::FixedConstants<R...>;
  constexpr int kRadices[] = {R...};
  const PassShape& s = pass.shape;
  const int shift = smem_padding_shift(static_cast<int>(2 * sizeof(Real)));
  if (pass.convolution != 2 || pass.convolution_size != K::kSize || s.sub != 1 || s.span != 1 ||
      pass.real_step < 0 || pass.real_step > kBluesteinOddC2R || s.size < 1 || 2 * s.size - 1 > K::kSize ||
      s.shift != shift || s.smem_stride < K::kSize + ((K::kSize - 1) >> shift) + 1 || pass.stages != K::kStages ||
      pass.threads_per_transform != K::threads(pass_kernel::kMaxThreads<Real>)) {
    return false;
  }
  for (int st = 0; st < pass.stages; ++st) {
    if (pass.radices[st] != kRadices[st]) return false;
  }
  return true;
}

template <class Real, bool Inverse, int... R>
cudaError_t launch_kernel(const PassLaunch& pass, cudaStream_t stream) {
  static std::atomic<unsigned> allowed[64] = {};
  const auto kernel = stockham_bluestein_mixed<Real, Inverse, R...>;
  if (const cudaError_t status = allow_shared(kernel, pass.shared_bytes, allowed); status != cudaSuccess) return status;
  const unsigned threads = static_cast<unsigned>(pass.threads_per_transform * pass.shape.per_block);
  kernel<<<static_cast<unsigned>(pass.blocks), threads, pass.shared_bytes, stream>>>(pass);
  return cudaGetLastError();
}

// The kernel of the compiled length that serves `pass`: true with the launch's status in
// *status (launch) or nothing launched (status null: the check alone); false where none does.
template <class Real, int... R>
bool try_length(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status) {
  if (!serves<Real, R...>(pass)) return false;
  if (status != nullptr) {
    *status = inverse ? launch_kernel<Real, true, R...>(pass, stream) : launch_kernel<Real, false, R...>(pass, stream);
  }
  return true;
}

}  // namespace
}  // namespace idgpu::fft::kernels::bluestein_mixed
