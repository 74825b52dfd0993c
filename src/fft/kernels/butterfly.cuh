// The register-level pieces of the native FFT kernels (stockham_pass.cuh, stockham_pow2.cuh):
// complex arithmetic on float2/double2 and the radix-R DFTs a thread runs on its registers.
//
// Radix 2, 4, 8 and 16 are radix-2 decimation-in-frequency networks in registers with constant
// twiddles (trivial ones folded); 3, 5, 7, 9, 11 and 13 are direct DFTs over symmetric pairs
// (x_t + x_{r-t}, x_t - x_{r-t}) with constant cosines and sines. Table twiddles are stored with
// the forward sign; orient() conjugates them for the inverse, and the constant ones flip with
// the Inverse parameter.
#pragma once

#ifndef __CUDACC_RTC__  // run-time compilation (fft/runtime_kernels.h) has these built in
#include <cuda_runtime.h>
#endif

#include "fft/butterfly_constants.h"

namespace idgpu::fft::kernels {

// Compile-time index sequences, as std::integer_sequence but with no standard header: the kernels
// are also compiled at run time (fft/runtime_kernels.h), where there is no standard library.
template <int... I>
struct IntSequence {};
namespace sequence_detail {
template <class A, class B>
struct Join;
template <int... A, int... B>
struct Join<IntSequence<A...>, IntSequence<B...>> {
  using type = IntSequence<A..., (static_cast<int>(sizeof...(A)) + B)...>;
};
template <int N>
struct Make {
  using type = typename Join<typename Make<N / 2>::type, typename Make<N - N / 2>::type>::type;
};
template <>
struct Make<0> {
  using type = IntSequence<>;
};
template <>
struct Make<1> {
  using type = IntSequence<0>;
};
}  // namespace sequence_detail
// IntSequence<0, 1, ..., N - 1>.
template <int N>
using MakeIntSequence = typename sequence_detail::Make<N>::type;
template <int V>
struct IntConstant {
  static constexpr int value = V;
};

template <class Real>
struct ComplexOf;
template <>
struct ComplexOf<float> {
  using type = float2;
};
template <>
struct ComplexOf<double> {
  using type = double2;
};

template <class C>
__device__ __forceinline__ C make(decltype(C::x) x, decltype(C::x) y) {
  C c;
  c.x = x;
  c.y = y;
  return c;
}
template <class C>
__device__ __forceinline__ C cadd(C a, C b) {
  return make<C>(a.x + b.x, a.y + b.y);
}
template <class C>
__device__ __forceinline__ C csub(C a, C b) {
  return make<C>(a.x - b.x, a.y - b.y);
}

template <class C>
__device__ __forceinline__ C cconj(C a) {
  return make<C>(a.x, -a.y);
}
template <class C>
__device__ __forceinline__ C cmul(C a, C b) {
  return make<C>(fma(a.x, b.x, -a.y * b.y), fma(a.x, b.y, a.y * b.x));
}
// A table twiddle (forward sign) for the kernel's direction.
template <bool Inverse, class C>
__device__ __forceinline__ C orient(C w) {
  if (Inverse) w.y = -w.y;
  return w;
}


// v w_16^k for the direction (forward: exp(-2 pi i k / 16)), k in [0, 8): the trivial k = 0 and
// k = 4 (a quarter turn) without multiplications, k = 2 and 6 with one scale.
template <bool Inverse, class C>
__device__ __forceinline__ C rotate16(C v, int k) {
  using Real = decltype(C::x);
  constexpr Real h = static_cast<Real>(0.70710678118654752440);
  if (k == 0) return v;
  if (k == 4) return Inverse ? make<C>(-v.y, v.x) : make<C>(v.y, -v.x);
  if (k == 2) return Inverse ? make<C>(h * (v.x - v.y), h * (v.x + v.y)) : make<C>(h * (v.x + v.y), h * (v.y - v.x));
  if (k == 6) return Inverse ? make<C>(-h * (v.x + v.y), h * (v.x - v.y)) : make<C>(h * (v.y - v.x), -h * (v.x + v.y));
  const Real c = static_cast<Real>(cos16(k));
  const Real s = static_cast<Real>(sin16(k));
  return cmul(v, make<C>(c, Inverse ? s : -s));
}

__host__ __device__ constexpr int bit_reverse(int p, int bits) {
  int r = 0;
  for (int b = 0; b < bits; ++b) r |= ((p >> b) & 1) << (bits - 1 - b);
  return r;
}
__host__ __device__ constexpr int log2_of(int r) { return r <= 1 ? 0 : 1 + log2_of(r / 2); }

// One radix-2 DIF level of a radix-R DFT: every group of M elements becomes its even part
// (a + b) and its twiddled odd part (a - b) w_M^i.
template <int R, int M, bool Inverse, class C>
__device__ __forceinline__ void dif_level(C* x) {
  if constexpr (M > 1) {
    constexpr int h = M / 2;
#pragma unroll
    for (int g = 0; g < R; g += M) {
#pragma unroll
      for (int i = 0; i < h; ++i) {
        const C a = x[g + i];
        const C b = x[g + i + h];
        x[g + i] = cadd(a, b);
        x[g + i + h] = rotate16<Inverse>(csub(a, b), i * (16 / M));
      }
    }
    dif_level<R, M / 2, Inverse>(x);
  }
}

// x[p] = x[bit_reverse(p)], every index a compile-time constant.
template <int R, class C, int... P>
__device__ __forceinline__ void permute_bit_reversed(C* x, IntSequence<P...>) {
  const C y[R] = {x[IntConstant<bit_reverse(P, log2_of(R))>::value]...};
#pragma unroll
  for (int p = 0; p < R; ++p) x[p] = y[p];
}

// Radix-R DFT (R = 2, 4, 8, 16) of x[0..R) in place, natural order in and out: the DIF levels
// leave X[p] at position bit_reverse(p), undone by renaming registers.
template <int R, bool Inverse, class C>
__device__ __forceinline__ void dft_pow2(C* x) {
  dif_level<R, R, Inverse>(x);
  permute_bit_reversed<R>(x, MakeIntSequence<R>());
}

// Radix-R DFT for odd R (3, 5, 7, 9, 11, 13): with u_t = x_t + x_{R-t}, v_t = x_t - x_{R-t} and
// theta = 2 pi p t / R, X_p = A_p - i B_p and X_{R-p} = A_p + i B_p (forward), where
// A_p = x_0 + sum_t u_t cos(theta) and B_p = sum_t v_t sin(theta); the inverse swaps the signs.
template <int R, bool Inverse, class C>
__device__ __forceinline__ void dft_odd(C* x) {
  using Real = decltype(C::x);
  constexpr int H = (R - 1) / 2;
  C u[H], v[H];
#pragma unroll
  for (int t = 1; t <= H; ++t) {
    u[t - 1] = cadd(x[t], x[R - t]);
    v[t - 1] = csub(x[t], x[R - t]);
  }
  C y[R];
  C sum = x[0];
#pragma unroll
  for (int t = 0; t < H; ++t) sum = cadd(sum, u[t]);
  y[0] = sum;
#pragma unroll
  for (int p = 1; p <= H; ++p) {
    C a = x[0];
    C b = make<C>(0, 0);
#pragma unroll
    for (int t = 1; t <= H; ++t) {
      const int m = (p * t) % R;
      const int folded = m <= H ? m : R - m;
      const Real c = static_cast<Real>(cos_odd(R, folded));
      const Real s = static_cast<Real>(m <= H ? sin_odd(R, folded) : -sin_odd(R, folded));
      a = make<C>(fma(u[t - 1].x, c, a.x), fma(u[t - 1].y, c, a.y));
      b = make<C>(fma(v[t - 1].x, s, b.x), fma(v[t - 1].y, s, b.y));
    }
    // -i B = (B.y, -B.x), +i B = (-B.y, B.x).
    const C minus = make<C>(a.x + b.y, a.y - b.x);
    const C plus = make<C>(a.x - b.y, a.y + b.x);
    y[p] = Inverse ? plus : minus;
    y[R - p] = Inverse ? minus : plus;
  }
#pragma unroll
  for (int p = 0; p < R; ++p) x[p] = y[p];
}

template <int R, bool Inverse, class C>
__device__ __forceinline__ void dft(C* x) {
  if constexpr ((R & (R - 1)) == 0) {
    dft_pow2<R, Inverse>(x);
  } else {
    dft_odd<R, Inverse>(x);
  }
}

}  // namespace idgpu::fft::kernels
