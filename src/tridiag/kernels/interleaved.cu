// Thread-per-system pivoting solvers of gtsvInterleavedBatch (element i of system j at i*batch + j),
// algos 1 and 2; algo 0 is the partition solver (partition.cu).
//
// Consecutive threads own consecutive systems, so every load and store of a row is coalesced
// across the warp ("Full-Interleaved" layout of the cuThomasBatch paper). Three kernels run the same
// two sweeps, a forward elimination and a back substitution, and differ in where U goes between
// them: shared memory (short systems, factor_on_chip_kernel), device memory (factor_kernel: du, x,
// and for the pivoting solvers d and the fill-in scratch, read back in reverse), or nowhere
// (factor_recompute_kernel: recomputed a segment at a time from checkpoints,
// checkpoint_schedule.h).
#include "tridiag/kernels/kernels.h"

#include "core/config.h"
#include "core/launch.h"
#include "tridiag/kernels/checkpoint_schedule.h"
#include "tridiag/kernels/scalar.cuh"

namespace idgpu::tridiag::kernels {
namespace {

constexpr int kThreads = 128;

// Back substitution with U's three diagonals (u0 in d, u1 in du, u2 in fill).
template <class T>
__device__ __forceinline__ void upper_solve(int m, size_t stride, size_t index, const T* __restrict__ d,
                                            const T* __restrict__ du, const T* __restrict__ fill,
                                            T* __restrict__ x) {
  // index points at row m-1.
  T after = divide(x[index], d[index]);
  x[index] = after;
  if (m < 2) return;
  index -= stride;
  T current = divide(mul_sub(x[index], du[index], after), d[index]);
  x[index] = current;
#pragma unroll 2
  for (int row = m - 3; row >= 0; --row) {
    index -= stride;
    const T value = divide(mul_sub(mul_sub(x[index], du[index], current), fill[index], after), d[index]);
    x[index] = value;
    after = current;
    current = value;
  }
}

// The back substitution shared by both eliminations (checkpoint_schedule.h's Step interface).
struct UpperSolve {
  template <class T>
  __device__ __forceinline__ static T last(const PivotRow<T>& row) {
    return divide(row.rhs, row.diagonal);
  }
  template <class T>
  __device__ __forceinline__ static T back(const FactorRow<T>& row, T x1, T x2) {
    return divide(mul_sub(mul_sub(row.rhs, row.u1, x1), row.u2, x2), row.u0);
  }
};

// LAPACK xGTSV's step: the larger of the two candidates in column i (CABS1) is the pivot.
struct PartialPivotStep : UpperSolve {
  template <class T>
  __device__ __forceinline__ static FactorRow<T> apply(PivotRow<T>& current, const RawRow<T>& next) {
    if (abs1(current.diagonal) >= abs1(next.lower)) {
      // No interchange: the current row is final.
      const T factor = divide(next.lower, current.diagonal);
      const FactorRow<T> done{current.diagonal, current.upper, zero<T>(), current.rhs};
      current = {mul_sub(next.diagonal, factor, current.upper), next.upper, mul_sub(next.rhs, factor, current.rhs)};
      return done;
    }
    // Interchange: the next row becomes row i of U (three entries), the current row minus a
    // multiple of it the new pivot row.
    const T factor = divide(current.diagonal, next.lower);
    current = {mul_sub(current.upper, factor, next.diagonal), negate(mul(factor, next.upper)),
               mul_sub(current.rhs, factor, next.rhs)};
    return {next.lower, next.diagonal, next.upper, next.rhs};
  }
};

// The pieces of a Givens rotation for a != 0, b != 0, by reciprocal square roots rather than
// divisions (CUDA's rhypot and rnorm4d scale their arguments, so no square overflows):
// a / |a| and |a| (its sign and magnitude for reals), 1 / sqrt(|a|^2 + |b|^2), and |b|^2 times
// that inverse. Where the norm reaches 2^126 (f32) / 2^1022 (f64) the inverse is subnormal and c
// and s lose bits (the divisions did not); entries that large overflow the elimination's products
// anyway. A branch back to the divisions there cost 6-10 registers a thread (c64 QR past 128),
// so it is not taken.
__device__ __forceinline__ float unit_phase(float a, float* modulus) {
  *modulus = fabsf(a);
  return copysignf(1.0f, a);
}
__device__ __forceinline__ double unit_phase(double a, double* modulus) {
  *modulus = fabs(a);
  return copysign(1.0, a);
}
__device__ __forceinline__ cuComplex unit_phase(cuComplex a, float* modulus) {
  const float inverse = rhypotf(a.x, a.y);
  *modulus = a.x * (a.x * inverse) + a.y * (a.y * inverse);
  return scale(a, inverse);
}
__device__ __forceinline__ cuDoubleComplex unit_phase(cuDoubleComplex a, double* modulus) {
  const double inverse = rhypot(a.x, a.y);
  *modulus = a.x * (a.x * inverse) + a.y * (a.y * inverse);
  return scale(a, inverse);
}
__device__ __forceinline__ float inverse_norm(float a, float b) { return rhypotf(a, b); }
__device__ __forceinline__ double inverse_norm(double a, double b) { return rhypot(a, b); }
__device__ __forceinline__ float inverse_norm(cuComplex a, cuComplex b) { return rnorm4df(a.x, a.y, b.x, b.y); }
__device__ __forceinline__ double inverse_norm(cuDoubleComplex a, cuDoubleComplex b) {
  return rnorm4d(a.x, a.y, b.x, b.y);
}
__device__ __forceinline__ float scaled_square(float b, float inverse) { return (b * inverse) * b; }
__device__ __forceinline__ double scaled_square(double b, double inverse) { return (b * inverse) * b; }
__device__ __forceinline__ float scaled_square(cuComplex b, float inverse) {
  return (b.x * inverse) * b.x + (b.y * inverse) * b.y;
}
__device__ __forceinline__ double scaled_square(cuDoubleComplex b, double inverse) {
  return (b.x * inverse) * b.x + (b.y * inverse) * b.y;
}

// Givens rotation G = [c s; -conj(s) c], c real, with G [a; b] = [r; 0] (|r| = hypot(|a|, |b|)).
// One reciprocal square root of the norm serves c, s and r (and, for complex, one of |a| the
// phase): the recomputing kernel runs each rotation twice, and with a division for each of c, s
// and the phase after three hypot, its QR was bound by arithmetic. H200, 2^24 unknowns, before /
// after: f32 m = 32 1.30x / 1.53x the vendor, m = 256 1.67x / 1.86x; c32 m = 32 1.14x / 1.40x;
// batch 1000, m = 256: c32 0.92x / 1.47x, c64 0.87x / 1.05x.
template <class T>
__device__ __forceinline__ void givens(T a, T b, typename ScalarTraits<T>::Real* c, T* s, T* r) {
  using Real = typename ScalarTraits<T>::Real;
  if (abs1(b) == Real(0)) {
    *c = Real(1);
    *s = zero<T>();
    *r = a;
    return;
  }
  if (abs1(a) == Real(0)) {
    *c = Real(0);
    *s = from_real<T>(Real(1));
    *r = b;
    return;
  }
  Real a_modulus;
  const T phase = unit_phase(a, &a_modulus);
  const Real inverse = inverse_norm(a, b);
  *c = a_modulus * inverse;
  *s = scale(mul(phase, conjugate(b)), inverse);
  *r = scale(phase, a_modulus * *c + scaled_square(b, inverse));
}

// QR's step: the rotation that zeroes the next row's entry in column i.
struct GivensStep : UpperSolve {
  template <class T>
  __device__ __forceinline__ static FactorRow<T> apply(PivotRow<T>& current, const RawRow<T>& next) {
    typename ScalarTraits<T>::Real c;
    T s;
    T r;
    givens(current.diagonal, next.lower, &c, &s, &r);
    // Row i of R = c*current + s*next; new current = -conj(s)*current + c*next.
    const FactorRow<T> done{r, add(scale(current.upper, c), mul(s, next.diagonal)), mul(s, next.upper),
                            add(scale(current.rhs, c), mul(s, next.rhs))};
    const T minus_s_conj = negate(conjugate(s));
    current = {add(mul(minus_s_conj, current.upper), scale(next.diagonal, c)), scale(next.upper, c),
               add(mul(minus_s_conj, current.rhs), scale(next.rhs, c))};
    return done;
  }
};

// A stable elimination, streamed: the pivot row lives in registers; each step reads the next raw
// row and emits the finished row i of U (u0 to d, u1 to du, the fill-in u2 to `fill`, the rhs to
// x), then the back substitution reads them in reverse.
template <class T, class Step>
__global__ void __launch_bounds__(kThreads) factor_kernel(int m, int batch, const T* __restrict__ dl,
                                                         T* __restrict__ d, T* __restrict__ du, T* __restrict__ x,
                                                         T* __restrict__ fill, const int* only_if) {
  if (only_if != nullptr && *only_if == 0) return;
  const int system = blockIdx.x * kThreads + threadIdx.x;
  if (system >= batch) return;
  const size_t stride = static_cast<size_t>(batch);
  size_t index = system;
  PivotRow<T> current{d[index], m > 1 ? du[index] : zero<T>(), x[index]};
  for (int row = 0; row + 1 < m; ++row) {
    const size_t next_index = index + stride;
    const RawRow<T> next{dl[next_index], d[next_index], row + 2 < m ? du[next_index] : zero<T>(), x[next_index]};
    const FactorRow<T> done = Step::apply(current, next);
    d[index] = done.u0;
    du[index] = done.u1;
    fill[index] = done.u2;
    x[index] = done.rhs;
    index = next_index;
  }
  d[index] = current.diagonal;
  x[index] = current.rhs;
  upper_solve(m, stride, index, d, du, fill, x);
}

int blocks_for(int batch) { return (batch + kThreads - 1) / kThreads; }

// The same elimination for short systems with the factor kept on chip: row i of U (u0, u1, u2 and
// the rhs) of the block's system t goes to shared memory at ((4 i + k) threads + t) (consecutive
// threads, consecutive words: no bank conflicts), and the back substitution reads it from there.
// Device memory then sees dl, d, du and x read once and x written once (5 arrays, against 13 when
// the factor goes out and back); d and du are not written. The next raw row is loaded before the
// current step runs, so its loads overlap the step's arithmetic.
template <class T, class Step>
__global__ void factor_on_chip_kernel(int m, int batch, const T* __restrict__ dl, const T* __restrict__ d,
                                      const T* __restrict__ du, T* __restrict__ x, const int* only_if) {
  if (only_if != nullptr && *only_if == 0) return;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  T* rows = reinterpret_cast<T*>(shared_raw);
  const int threads = static_cast<int>(blockDim.x);
  const int t = static_cast<int>(threadIdx.x);
  const int system = blockIdx.x * threads + t;
  if (system >= batch) return;
  const size_t stride = static_cast<size_t>(batch);
  const auto slot = [&](int row, int k) { return (4 * row + k) * threads + t; };
  size_t index = system;
  PivotRow<T> current{d[index], m > 1 ? du[index] : zero<T>(), x[index]};
  RawRow<T> next{};
  if (m > 1) next = {dl[index + stride], d[index + stride], m > 2 ? du[index + stride] : zero<T>(), x[index + stride]};
  for (int row = 0; row + 1 < m; ++row) {
    const RawRow<T> raw = next;
    if (row + 2 < m) {
      const size_t ahead = index + 2 * stride;
      next = {dl[ahead], d[ahead], row + 3 < m ? du[ahead] : zero<T>(), x[ahead]};
    }
    const FactorRow<T> done = Step::apply(current, raw);
    rows[slot(row, 0)] = done.u0;
    rows[slot(row, 1)] = done.u1;
    rows[slot(row, 2)] = done.u2;
    rows[slot(row, 3)] = done.rhs;
    index += stride;
  }
  // Back substitution: index is row m-1.
  T after = divide(current.rhs, current.diagonal);
  x[index] = after;
  if (m < 2) return;
  T current_x = divide(mul_sub(rows[slot(m - 2, 3)], rows[slot(m - 2, 1)], after), rows[slot(m - 2, 0)]);
  index -= stride;
  x[index] = current_x;
  for (int row = m - 3; row >= 0; --row) {
    index -= stride;
    const T rhs = mul_sub(mul_sub(rows[slot(row, 3)], rows[slot(row, 1)], current_x), rows[slot(row, 2)], after);
    const T value = divide(rhs, rows[slot(row, 0)]);
    x[index] = value;
    after = current_x;
    current_x = value;
  }
}

// The same eliminations with U recomputed from checkpoints instead of stored
// (checkpoint_schedule.h): dl, d, du and b are read twice (once where m <= K + 1), the pivot row
// before every K-th step goes out and back through `checkpoints` (3 / K of an array each way), x
// is written once; d and du are not written. A segment's K rows of U live in registers, so K is
// 64 bytes of elements: 16 steps (f32), 8 (f64, c32), 4 (c64).
template <class T>
constexpr int kSegmentSteps = sizeof(T) <= 4 ? 16 : sizeof(T) <= 8 ? 8 : 4;

// 103-136 registers a thread (f32 LU 114, c64 LU 136). Capping them at 128 for four blocks a
// multiprocessor (65536 systems in one wave) made c64 LU spill 12 bytes and run slower where few
// systems run (m = 1024, batch 4096: 1.42x -> 0.91x the vendor; m = 256, batch 65536: 1.11x ->
// 1.21x), so the compiler chooses.
template <class T, class Step>
__global__ void __launch_bounds__(kThreads)
    factor_recompute_kernel(int m, int batch, const T* __restrict__ dl, const T* __restrict__ d,
                            const T* __restrict__ du, T* __restrict__ x, T* __restrict__ checkpoints,
                            const int* only_if) {
  if (only_if != nullptr && *only_if == 0) return;
  const int system = blockIdx.x * kThreads + threadIdx.x;
  if (system >= batch) return;
  InterleavedSystem<T> access{m, static_cast<size_t>(batch), static_cast<size_t>(system), dl, d, du, x, checkpoints};
  solve_by_checkpoints<kSegmentSteps<T>, Step>(m, access);
}

// Threads per block of the on-chip kernel for systems of m rows, or 0 when it does not serve them:
// the most (128 down to 32) whose 4 (m - 1) rows fit kOnChipBlockBytes, for m <= kOnChipMaxRows.
// The shared memory bounds the threads an SM holds to 228 KB / (16 (m - 1) element bytes), and
// with them the loads in flight: on an H100 at 2^24 unknowns m = 32 ran 1.09-1.35x the vendor
// (f32 0.55 of copy bandwidth, against 0.35 with the factor in device memory), but f32 m = 64
// (32-thread blocks, ~220 threads per SM) 0.83-0.89x, below the device-memory path. Loading eight
// rows ahead (four for c64) into a ring of registers changed nothing at m = 32 (f32 LU 1.329x
// against 1.335x) and did not rescue longer systems, with up to 160 KB of shared memory a block:
// f32 LU m = 64 / 128 / 256 0.82x / 0.38x / 0.17x against 0.95x / 0.96x / 0.94x in device memory
// (f64 m = 64 / 128 0.65x / 0.23x): with a warp or a few per SM each system's serial chain of
// divisions is the bound, not the loads in flight. The device-memory path moves 13 arrays at
// about 0.96 of copy bandwidth (0.35-0.39 counted as 5).
constexpr std::size_t kOnChipBlockBytes = 48 * 1024;
constexpr int kOnChipMaxRows = 32;
int on_chip_threads(int m, std::size_t element_bytes) {
  if (m > kOnChipMaxRows) return 0;
  const std::size_t per_thread = 4 * static_cast<std::size_t>(m > 1 ? m - 1 : 1) * element_bytes;
  for (int threads = 128; threads >= 32; threads /= 2) {
    if (per_thread * static_cast<std::size_t>(threads) <= kOnChipBlockBytes) return threads;
  }
  return 0;
}

template <class T, class Step>
cudaError_t launch_factor(int m, int batch, const T* dl, T* d, T* du, T* x, T* fill, const int* only_if,
                          cudaStream_t stream) {
  // U stored (on chip or in device memory) only on request: recomputing it measured faster at
  // every m from 32 (H200, 2^24 unknowns, f32 LU: m = 32 1.63x the vendor against 1.09x on chip,
  // m = 64 1.55x against 0.96x in device memory; tuning.cpp).
  const InterleavedPivoting mode = config().interleaved_pivoting;
  const int threads = mode == InterleavedPivoting::kStored ? on_chip_threads(m, sizeof(T)) : 0;
  if (threads > 0) {
    const std::size_t bytes = 4 * static_cast<std::size_t>(m > 1 ? m - 1 : 1) * sizeof(T) * threads;
    const int blocks = (batch + threads - 1) / threads;
    return launch::counted(
        [&] { factor_on_chip_kernel<T, Step><<<blocks, threads, bytes, stream>>>(m, batch, dl, d, du, x, only_if); });
  }
  if (mode == InterleavedPivoting::kStored) {
    return launch::counted([&] {
      factor_kernel<T, Step><<<blocks_for(batch), kThreads, 0, stream>>>(m, batch, dl, d, du, x, fill, only_if);
    });
  }
  return launch::counted([&] {
    factor_recompute_kernel<T, Step><<<blocks_for(batch), kThreads, 0, stream>>>(m, batch, dl, d, du, x, fill, only_if);
  });
}

}  // namespace

template <class T>
cudaError_t interleaved_lu(int m, int batch, const T* dl, T* d, T* du, T* x, T* fill, cudaStream_t stream,
                           const int* only_if) {
  return launch_factor<T, PartialPivotStep>(m, batch, dl, d, du, x, fill, only_if, stream);
}

template <class T>
cudaError_t interleaved_qr(int m, int batch, const T* dl, T* d, T* du, T* x, T* fill, cudaStream_t stream,
                           const int* only_if) {
  return launch_factor<T, GivensStep>(m, batch, dl, d, du, x, fill, only_if, stream);
}

#define IDGPU_INSTANTIATE_(T)                                                                                   \
  template cudaError_t interleaved_lu<T>(int, int, const T*, T*, T*, T*, T*, cudaStream_t, const int*);        \
  template cudaError_t interleaved_qr<T>(int, int, const T*, T*, T*, T*, T*, cudaStream_t, const int*);
IDGPU_INSTANTIATE_(float)
IDGPU_INSTANTIATE_(double)
IDGPU_INSTANTIATE_(cuComplex)
IDGPU_INSTANTIATE_(cuDoubleComplex)
#undef IDGPU_INSTANTIATE_

}  // namespace idgpu::tridiag::kernels
