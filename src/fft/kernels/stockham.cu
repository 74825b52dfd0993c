// The Stockham pass kernel of the native 1D C2C/Z2Z FFT: one launch is one pass of a plan
// (fft/planner.h), its index arithmetic in fft/stockham_index.h.
//
// A block takes T sub-transforms of length N:
//  1. staging in: the block's elements are read in the linear order that makes consecutive
//     threads read consecutive addresses (16-byte loads in fp32 where the layout allows), the
//     inter-pass twiddle w_{L N}^{e j} = lo[] hi[] applied, and written to a padded shared buffer;
//  2. the pass's Stockham stages: each thread reads the inputs of its butterflies (at most 16
//     elements, kept in registers), multiplies by the stage twiddles w_N^x from a table, runs the
//     radix-r DFT in registers, waits at a barrier, and writes its outputs back in place;
//  3. staging out: the block writes its T N results in the output's linear order.
// The radix of each stage is read at run time; each case of the switch is a fully unrolled
// butterfly over a register array with compile-time indices, so nothing spills to local memory.
//
// Radix 2, 4, 8 and 16 are radix-2 decimation-in-frequency networks in registers with constant
// twiddles (trivial ones folded); 3, 5, 7, 11 and 13 are direct DFTs over symmetric pairs
// (x_t + x_{r-t}, x_t - x_{r-t}) with constant cosines and sines. All table twiddles are the
// forward sign; the inverse kernel conjugates them and flips the constant ones.
#include "fft/kernels/stockham.h"

#include <cuda_runtime.h>

#include <atomic>
#include <type_traits>
#include <utility>

namespace idgpu::fft::kernels {
namespace {

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
__device__ __forceinline__ C cmul(C a, C b) {
  return make<C>(fma(a.x, b.x, -a.y * b.y), fma(a.x, b.y, a.y * b.x));
}
// A table twiddle (forward sign) for the kernel's direction.
template <bool Inverse, class C>
__device__ __forceinline__ C orient(C w) {
  if (Inverse) w.y = -w.y;
  return w;
}

// cos and sin of 2 pi k / 16, k in [0, 8).
__host__ __device__ constexpr double cos16(int k) {
  switch (k) {
    case 0: return 1.0;
    case 1: return 0.92387953251128675613;
    case 2: return 0.70710678118654752440;
    case 3: return 0.38268343236508977173;
    case 4: return 0.0;
    case 5: return -0.38268343236508977173;
    case 6: return -0.70710678118654752440;
    default: return -0.92387953251128675613;
  }
}
__host__ __device__ constexpr double sin16(int k) { return cos16(k < 4 ? 4 - k : k - 4); }

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
__device__ __forceinline__ void permute_bit_reversed(C* x, std::integer_sequence<int, P...>) {
  const C y[R] = {x[std::integral_constant<int, bit_reverse(P, log2_of(R))>::value]...};
#pragma unroll
  for (int p = 0; p < R; ++p) x[p] = y[p];
}

// Radix-R DFT (R = 2, 4, 8, 16) of x[0..R) in place, natural order in and out: the DIF levels
// leave X[p] at position bit_reverse(p), undone by renaming registers.
template <int R, bool Inverse, class C>
__device__ __forceinline__ void dft_pow2(C* x) {
  dif_level<R, R, Inverse>(x);
  permute_bit_reversed<R>(x, std::make_integer_sequence<int, R>());
}

// cos and sin of 2 pi m / r for the odd radices, m in [1, (r - 1) / 2].
__host__ __device__ constexpr double cos_odd(int r, int m) {
  switch (r * 100 + m) {
    case 301: return -0.4999999999999998;
    case 501: return 0.30901699437494745;
    case 502: return -0.8090169943749473;
    case 701: return 0.6234898018587336;
    case 702: return -0.22252093395631434;
    case 703: return -0.900968867902419;
    case 1101: return 0.8412535328311812;
    case 1102: return 0.41541501300188644;
    case 1103: return -0.142314838273285;
    case 1104: return -0.654860733945285;
    case 1105: return -0.9594929736144974;
    case 1301: return 0.8854560256532099;
    case 1302: return 0.5680647467311559;
    case 1303: return 0.120536680255323;
    case 1304: return -0.35460488704253545;
    case 1305: return -0.7485107481711012;
    case 1306: return -0.970941817426052;
    default: return 0.0;
  }
}
__host__ __device__ constexpr double sin_odd(int r, int m) {
  switch (r * 100 + m) {
    case 301: return 0.8660254037844387;
    case 501: return 0.9510565162951535;
    case 502: return 0.5877852522924732;
    case 701: return 0.7818314824680298;
    case 702: return 0.9749279121818236;
    case 703: return 0.43388373911755823;
    case 1101: return 0.5406408174555976;
    case 1102: return 0.9096319953545183;
    case 1103: return 0.9898214418809328;
    case 1104: return 0.7557495743542583;
    case 1105: return 0.28173255684142967;
    case 1301: return 0.4647231720437685;
    case 1302: return 0.8229838658936564;
    case 1303: return 0.992708874098054;
    case 1304: return 0.9350162426854148;
    case 1305: return 0.6631226582407952;
    case 1306: return 0.23931566428755768;
    default: return 0.0;
  }
}

// Radix-R DFT for odd prime R: with u_t = x_t + x_{R-t}, v_t = x_t - x_{R-t} and
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

__device__ __forceinline__ int padded(const PassShape& s, int e) { return e + (e >> s.shift); }

// One Stockham stage of radix R and span `span` (= 2^span_log2 for powers of two) on the thread's
// sub-transform `sm`: read, twiddle and transform the thread's butterflies into registers,
// barrier, write back in place, barrier. Every thread of the block takes part in the barriers;
// `active` is false for the slots of a last block that has fewer sub-transforms.
template <int R, bool Inverse, bool PowersOfTwo, class C>
__device__ __forceinline__ void stage(C* sm, const PassShape& s, int tid, int threads, int span, int span_log2,
                                      const C* __restrict__ table, bool active) {
  constexpr int kButterflies = butterflies_per_thread(R);
  constexpr int kRadixLog2 = log2_of(R);
  C v[kButterflies * R];
  const int butterflies = s.size / R;
  if (active) {
#pragma unroll
    for (int i = 0; i < kButterflies; ++i) {
      const int b = tid + i * threads;
      if (b < butterflies) {
        const int step = PowersOfTwo ? stage_twiddle_step_pow2(b, span_log2, kRadixLog2, s.size_log2)
                                     : stage_twiddle_step(b, span, R, s.size);
#pragma unroll
        for (int t = 0; t < R; ++t) {
          C x = sm[padded(s, b + t * butterflies)];
          if (t > 0 && step > 0) x = cmul(x, orient<Inverse>(__ldg(&table[t * step])));
          v[i * R + t] = x;
        }
        dft<R, Inverse>(&v[i * R]);
      }
    }
  }
  __syncthreads();
  if (active) {
#pragma unroll
    for (int i = 0; i < kButterflies; ++i) {
      const int b = tid + i * threads;
      if (b < butterflies) {
        const int base = PowersOfTwo ? stage_write_base_pow2(b, span_log2, kRadixLog2) : stage_write_base(b, span, R);
#pragma unroll
        for (int p = 0; p < R; ++p) sm[padded(s, base + p * span)] = v[i * R + p];
      }
    }
  }
  __syncthreads();
}

template <class Real>
constexpr int kMaxThreads = sizeof(Real) == 8 ? 512 : 1024;

// PowersOfTwo: the plan's radices are all 16, 8, 4 or 2, and the kernel has only those cases (its
// registers are then not shaped by the odd radices' direct DFTs) and indexes with shifts.
template <class Real, bool Inverse, bool PowersOfTwo>
__global__ void __launch_bounds__(kMaxThreads<Real>) stockham_pass(const PassLaunch p) {
  using C = typename ComplexOf<Real>::type;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  C* sm = reinterpret_cast<C*>(shared_raw);
  const PassShape& s = p.shape;
  const long long g0 = static_cast<long long>(blockIdx.x) * s.per_block;
  const int valid = static_cast<int>(min(static_cast<long long>(s.per_block), p.total - g0));
  const int count = valid * s.size;
  const BlockFrame frame = block_frame(s, g0);
  // Not restrict: the last pass of a plan may run in place (input == output); every element a
  // block writes was read by that block before its first barrier.
  const C* in = static_cast<const C*>(p.input) + frame.in_base;
  C* out = static_cast<C*>(p.output) + frame.out_base;
  const C* __restrict__ lo = static_cast<const C*>(p.lo_twiddles);
  const C* __restrict__ hi = static_cast<const C*>(p.hi_twiddles);
  const bool in_contiguous = s.sub == 1;
  const bool out_contiguous = s.span == 1;
  const bool twiddled = s.span > 1;
  const unsigned lo_mask = (1u << p.lo_bits) - 1u;

  const auto place = [&](int tr, int e, C x) {
    if (twiddled && e > 0) {
      // e (j0 + tr) < L N <= 2^31.
      const unsigned exponent = static_cast<unsigned>(e) * static_cast<unsigned>(frame.j0 + tr);
      x = cmul(x, orient<Inverse>(cmul(__ldg(&lo[exponent & lo_mask]), __ldg(&hi[exponent >> p.lo_bits]))));
    }
    sm[smem_index(s, tr, e)] = x;
  };
  bool staged = false;
  if constexpr (sizeof(Real) == 4) {
    if (p.vector_in) {
      // Pairs of consecutive q are consecutive, 16-byte aligned addresses (checked by the host).
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
  if (!staged) {
    for (int q = threadIdx.x; q < count; q += blockDim.x) {
      int tr = 0, e = 0;
      staging_slot(s, in_contiguous, q, &tr, &e);
      place(tr, e, in[input_step(s, tr, e)]);
    }
  }
  __syncthreads();

  const int threads = p.threads_per_transform;
  const int tr = static_cast<int>(threadIdx.x) / threads;
  const int tid = static_cast<int>(threadIdx.x) - tr * threads;
  const bool active = tr < valid;
  C* mine = sm + tr * s.smem_stride;
  const C* __restrict__ table = static_cast<const C*>(p.stage_twiddles);
  int span = 1;
  int span_log2 = 0;
  for (int st = 0; st < p.stages; ++st) {
    const int radix = p.radices[st];
    if constexpr (PowersOfTwo) {
      switch (radix) {
        case 16: stage<16, Inverse, true>(mine, s, tid, threads, span, span_log2, table, active); break;
        case 8: stage<8, Inverse, true>(mine, s, tid, threads, span, span_log2, table, active); break;
        case 4: stage<4, Inverse, true>(mine, s, tid, threads, span, span_log2, table, active); break;
        default: stage<2, Inverse, true>(mine, s, tid, threads, span, span_log2, table, active); break;
      }
      span_log2 += radix == 16 ? 4 : radix == 8 ? 3 : radix == 4 ? 2 : 1;
    } else {
      switch (radix) {
        case 16: stage<16, Inverse, false>(mine, s, tid, threads, span, 0, table, active); break;
        case 13: stage<13, Inverse, false>(mine, s, tid, threads, span, 0, table, active); break;
        case 11: stage<11, Inverse, false>(mine, s, tid, threads, span, 0, table, active); break;
        case 8: stage<8, Inverse, false>(mine, s, tid, threads, span, 0, table, active); break;
        case 7: stage<7, Inverse, false>(mine, s, tid, threads, span, 0, table, active); break;
        case 5: stage<5, Inverse, false>(mine, s, tid, threads, span, 0, table, active); break;
        case 4: stage<4, Inverse, false>(mine, s, tid, threads, span, 0, table, active); break;
        case 3: stage<3, Inverse, false>(mine, s, tid, threads, span, 0, table, active); break;
        default: stage<2, Inverse, false>(mine, s, tid, threads, span, 0, table, active); break;
      }
    }
    span *= radix;
  }

  if constexpr (sizeof(Real) == 4) {
    if (p.vector_out) {
      for (int q = 2 * threadIdx.x; q < count; q += 2 * blockDim.x) {
        int tr0 = 0, e0 = 0, tr1 = 0, e1 = 0;
        staging_slot(s, out_contiguous, q, &tr0, &e0);
        staging_slot(s, out_contiguous, q + 1, &tr1, &e1);
        const C a = sm[smem_index(s, tr0, e0)];
        const C b = sm[smem_index(s, tr1, e1)];
        *reinterpret_cast<float4*>(&out[output_step(s, tr0, e0)]) = make_float4(a.x, a.y, b.x, b.y);
      }
      return;
    }
  }
  for (int q = threadIdx.x; q < count; q += blockDim.x) {
    int tr0 = 0, e0 = 0;
    staging_slot(s, out_contiguous, q, &tr0, &e0);
    out[output_step(s, tr0, e0)] = sm[smem_index(s, tr0, e0)];
  }
}

// Opts the kernel into the dynamic shared memory a launch needs, once per device and size.
template <class Kernel>
cudaError_t allow_shared(Kernel kernel, unsigned bytes, std::atomic<unsigned>* allowed) {
  if (bytes <= 48 * 1024) return cudaSuccess;
  int device = 0;
  if (const cudaError_t status = cudaGetDevice(&device); status != cudaSuccess) return status;
  if (device < 0 || device >= 64) {
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  }
  if (allowed[device].load(std::memory_order_relaxed) >= bytes) return cudaSuccess;
  const cudaError_t status =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (status == cudaSuccess) allowed[device].store(bytes, std::memory_order_relaxed);
  return status;
}

template <class Real, bool Inverse, bool PowersOfTwo>
cudaError_t launch_kernel(const PassLaunch& pass, cudaStream_t stream) {
  static std::atomic<unsigned> allowed[64] = {};
  const auto kernel = stockham_pass<Real, Inverse, PowersOfTwo>;
  if (const cudaError_t status = allow_shared(kernel, pass.shared_bytes, allowed); status != cudaSuccess) return status;
  const unsigned threads = static_cast<unsigned>(pass.threads_per_transform * pass.shape.per_block);
  kernel<<<static_cast<unsigned>(pass.blocks), threads, pass.shared_bytes, stream>>>(pass);
  return cudaGetLastError();
}

template <class Real, bool Inverse>
cudaError_t launch(const PassLaunch& pass, cudaStream_t stream) {
  bool powers_of_two = true;
  for (int st = 0; st < pass.stages; ++st) powers_of_two = powers_of_two && (pass.radices[st] & (pass.radices[st] - 1)) == 0;
  return powers_of_two ? launch_kernel<Real, Inverse, true>(pass, stream) : launch_kernel<Real, Inverse, false>(pass, stream);
}

}  // namespace

cudaError_t launch_pass_f32(const PassLaunch& pass, bool inverse, cudaStream_t stream) {
  return inverse ? launch<float, true>(pass, stream) : launch<float, false>(pass, stream);
}

cudaError_t launch_pass_f64(const PassLaunch& pass, bool inverse, cudaStream_t stream) {
  return inverse ? launch<double, true>(pass, stream) : launch<double, false>(pass, stream);
}

}  // namespace idgpu::fft::kernels
