// The index arithmetic of the convolution steps (Rader's and Bluestein's algorithms, see
// fft/convolution.h), shared by the kernels that are to run them and the host executor that
// mirrors them (src/fft/convolution_reference.cpp), as fft/stockham_index.h is for the Stockham
// passes; and the number theory the planner and the tables need (host only, at the end).
#pragma once

#include "fft/stockham_index.h"

namespace idgpu::fft {

// a b mod m, exact for a, b < m < 2^63: one 64-bit product where it cannot overflow (m <= 2^32),
// otherwise double-and-add (plan-time tables only; the kernels' lengths stay below 2^31).
IDGPU_HD unsigned long long mul_mod(unsigned long long a, unsigned long long b, unsigned long long m) {
  if (m <= (1ULL << 32)) return a * b % m;
  unsigned long long result = 0;
  while (b != 0) {
    if (b & 1) {
      result += a;
      if (result >= m) result -= m;
    }
    a += a;  // a < m < 2^63: no overflow
    if (a >= m) a -= m;
    b >>= 1;
  }
  return result;
}

// The exponent of Bluestein's chirp exp(sign pi i k^2 / n) = exp(sign 2 pi i e / (2 n)):
// e = k^2 mod 2n, reduced exactly in integers, so that the angle reaching cos / sin is below a
// quarter turn (fft/twiddle.h). Formed in floating point, the angle pi k^2 / n reaches pi n and
// carries an absolute error of about n eps: 4e-10 radian for n = 2^20 - 3 in double, against
// 1e-16 reduced; and k^2 itself is no longer exact in double beyond k = 2^26.
IDGPU_HD long long chirp_exponent(long long k, long long n) {
  const unsigned long long m = 2ULL * static_cast<unsigned long long>(n);
  const unsigned long long r = static_cast<unsigned long long>(k) % m;
  return static_cast<long long>(mul_mod(r, r, m));
}

// Rader's step on one sub-transform of prime length p in shared memory: slots [0, p - 1) hold the
// cyclic convolution (slot q the input x[g^-q], then the output X[g^q] less x[0]), slot p - 1
// the input x[0] and slot p the output X[0]: p + 1 slots. `log_e` is the discrete logarithm of
// e in base g (the pass's index table; 0 for e = 0, unused).
inline constexpr int kRaderExtraSlots = 2;
IDGPU_HD int rader_input_slot(int e, int log_e, int p) {
  if (e == 0) return p - 1;
  return log_e == 0 ? 0 : p - 1 - log_e;  // g^-q = e  <=>  q = -log e mod p - 1
}
IDGPU_HD int rader_output_slot(int k, int log_k, int p) { return k == 0 ? p : log_k; }

// A multi-pass Bluestein plan (BluesteinStep, fft/planner.h) runs its passes on M-point transforms
// (PassShape::n = M) while its input and output hold n points a transform, n apart. A block's
// sub-transforms share one transform (T divides S); `base` is its frame's in_base (first pass) or
// out_base (last pass). Element `step` (input_step / output_step) of the block then sits at
// padded position first + step of transform `transform`: in the caller's array at
// transform n + first + step where that is below n, else a zero of the padding (read) or a
// discarded value (write).
struct ChirpFrame {
  long long transform = 0;
  long long first = 0;
};
IDGPU_HD ChirpFrame chirp_frame(const PassShape& s, long long base, long long g0) {
  ChirpFrame frame;
  frame.transform = g0 / s.sub;
  frame.first = base - frame.transform * s.n;
  return frame;
}

// The spectrum pass of a multi-pass Bluestein plan reads as the forward M-point plan's last pass
// (shape s: sub = span = S = M / N) and writes as the inverse plan's first pass, whose sizes are
// the forward ones reversed: the same N points of sub-transform j (the forward pass's outputs
// j + p S are the inverse pass's inputs j + t S), written contiguously at j N + p.
IDGPU_HD PassShape spectrum_output_shape(PassShape s) {
  s.span = 1;
  s.twiddled = false;
  return s;
}
// The spectrum bin of element p of sub-transform j in that pass.
IDGPU_HD long long spectrum_position(const PassShape& s, long long j, int p) { return j + p * s.sub; }

// A three-pass plan (M = N1 N2, two passes a side: bluestein_one_buffer in fft/planner.h, every
// plan the kernels run) keeps one M-point intermediate a transform: the spectrum pass writes its
// outputs where it read its inputs (element p of sub-transform j at j + p N1: the forward pass's
// outputs there are the inverse first pass's inputs, so the pass runs in place), and the
// chirp-store pass (N2 sub-transforms c of N1 points, span N2) reads that inverse first pass's
// output (c, e) at e + c N1 rather than c + e N2: element e of sub-transform c at
// turned_input_position, a contiguous run per sub-transform, from the transform's first element.
IDGPU_HD long long turned_input_position(const PassShape& s, long long c, int e) { return c * s.size + e; }

#if !defined(__CUDA_ARCH__)
// Host-only number theory for the planner and the tables (lengths below 2^62).

inline unsigned long long pow_mod(unsigned long long base, unsigned long long exponent, unsigned long long m) {
  unsigned long long result = 1 % m;
  base %= m;
  while (exponent != 0) {
    if (exponent & 1) result = mul_mod(result, base, m);
    base = mul_mod(base, base, m);
    exponent >>= 1;
  }
  return result;
}

// The smallest prime factor of n >= 2, by trial division.
inline long long smallest_prime_factor(long long n) {
  if (n % 2 == 0) return 2;
  for (long long d = 3; d <= n / d; d += 2) {
    if (n % d == 0) return d;
  }
  return n;
}

inline bool is_prime(long long n) { return n >= 2 && smallest_prime_factor(n) == n; }

// The smallest generator g of the multiplicative group (Z/p)^* of a prime p: g^((p-1)/q) != 1
// for every prime q dividing p - 1. The group is cyclic, and its smallest generator is small
// (below 100 for every p < 10^9), so the search ends quickly.
inline int primitive_root(long long p) {
  if (p == 2) return 1;
  long long rest = p - 1;
  long long factors[64];
  int count = 0;
  while (rest > 1) {
    const long long q = smallest_prime_factor(rest);
    factors[count++] = q;
    while (rest % q == 0) rest /= q;
  }
  for (long long g = 2; g < p; ++g) {
    bool generates = true;
    for (int i = 0; i < count && generates; ++i) {
      generates = pow_mod(static_cast<unsigned long long>(g), static_cast<unsigned long long>((p - 1) / factors[i]),
                          static_cast<unsigned long long>(p)) != 1;
    }
    if (generates) return static_cast<int>(g);
  }
  return 0;
}
#endif

}  // namespace idgpu::fft
