// Thread-per-system solvers of gtsvInterleavedBatch (element i of system j at i*batch + j).
//
// Consecutive threads own consecutive systems, so every load and store of a row is coalesced
// across the warp ("Full-Interleaved" layout of the cuThomasBatch paper). Each kernel is two
// sweeps: the forward sweep streams the four input arrays once and leaves the factor in place
// (du, x and, for the pivoting solvers, d and the fill-in scratch); the backward sweep reads it
// back in reverse and writes the solution.
#include "tridiag/kernels/kernels.h"

#include "tridiag/kernels/scalar.cuh"

namespace idgpu::tridiag::kernels {
namespace {

constexpr int kThreads = 128;

// `sizes` (device, may be null): system j has sizes[j] equations and rows beyond it are padding
// (cuThomasVBatch's layout, padded to the largest size m). The threads of a warp step through the
// rows together, treating padding rows as identity rows (c' = x' = 0) without reading or writing
// them, so that loads and stores stay coalesced (the paper's "computing padding" variant, without
// its NaN hazard: nothing in the padding is ever read). A size outside [1, m] leaves the system
// untouched.
// kVariable = false compiles the fixed-size kernel, where own == m and the row predicates fold
// away (they cost 5-15% at m = 32..256 when evaluated).
template <class T, bool kVariable>
__global__ void __launch_bounds__(kThreads) thomas_kernel(int m, int batch, const int* __restrict__ sizes,
                                                         const T* __restrict__ dl, const T* __restrict__ d,
                                                         T* __restrict__ du, T* __restrict__ x) {
  const int system = blockIdx.x * kThreads + threadIdx.x;
  if (system >= batch) return;
  const int own = kVariable ? sizes[system] : m;
  if (own < 1 || own > m) return;
  const size_t stride = static_cast<size_t>(batch);
  size_t index = system;
  // Row 0: c'_0 = du_0 / d_0, x'_0 = x_0 / d_0 (dl_0 is never read; du of the last row neither).
  T inverse = reciprocal(d[index]);
  T x_prime = mul(x[index], inverse);
  T c_prime = zero<T>();
  if (own > 1) {
    c_prime = mul(du[index], inverse);
    du[index] = c_prime;
  }
  x[index] = x_prime;
  T last = x_prime;  // x' of the system's last row: where the backward sweep starts
#pragma unroll 4
  for (int row = 1; row < m; ++row) {
    index += stride;
    if (row < own) {
      const T lower = dl[index];
      inverse = reciprocal(mul_sub(d[index], lower, c_prime));
      x_prime = mul(mul_sub(x[index], lower, x_prime), inverse);
      x[index] = x_prime;
      last = x_prime;
      if (row + 1 < own) {
        c_prime = mul(du[index], inverse);
        du[index] = c_prime;
      }
    }
  }
  // Backward: x_i = x'_i - c'_i x_{i+1}, from the system's second-to-last row up.
  T next = last;
#pragma unroll 4
  for (int row = m - 2; row >= 0; --row) {
    index -= stride;
    if (row < own - 1) {
      next = mul_sub(x[index], du[index], next);
      x[index] = next;
    }
  }
}

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

// The pivot row an elimination carries down (columns i and i+1), a raw row of the matrix, and a
// finished row of the upper-triangular factor (three diagonals and the transformed rhs).
template <class T>
struct PivotRow {
  T diagonal, upper, rhs;
};
template <class T>
struct RawRow {
  T lower, diagonal, upper, rhs;
};
template <class T>
struct FactorRow {
  T u0, u1, u2, rhs;
};

// LAPACK xGTSV's step: the larger of the two candidates in column i (CABS1) is the pivot.
struct PartialPivotStep {
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

// Givens rotation G = [c s; -conj(s) c], c real, with G [a; b] = [r; 0] (|r| = hypot(|a|, |b|)).
template <class T>
__device__ __forceinline__ void givens(T a, T b, typename ScalarTraits<T>::Real* c, T* s, T* r) {
  using Real = typename ScalarTraits<T>::Real;
  const Real a_modulus = modulus(a);
  const Real b_modulus = modulus(b);
  if (b_modulus == Real(0)) {
    *c = Real(1);
    *s = zero<T>();
    *r = a;
    return;
  }
  if (a_modulus == Real(0)) {
    *c = Real(0);
    *s = from_real<T>(Real(1));
    *r = b;
    return;
  }
  const Real norm = hypot(a_modulus, b_modulus);
  const T phase = scale(a, Real(1) / a_modulus);  // a / |a|
  *c = a_modulus / norm;
  *s = scale(mul(phase, conjugate(b)), Real(1) / norm);
  *r = scale(phase, norm);
}

// QR's step: the rotation that zeroes the next row's entry in column i.
struct GivensStep {
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
                                                         T* __restrict__ fill) {
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

// gtsv2StridedBatch (system j at j*stride): a block stages kStagedSystems systems through shared
// memory with coalesced loads (consecutive threads read consecutive rows of a system), one warp
// solves them there, one system per thread, and the solution leaves the same way: dl, d, du and x
// are read once and x written once. Rows are stored [row][system] with a pitch of
// kStagedSystems + 1, so both the staging (down a system) and the solve (across systems) are free
// of bank conflicts.
constexpr int kStagedSystems = 32;
constexpr int kStagePitch = kStagedSystems + 1;

template <class T>
__global__ void __launch_bounds__(kThreads) strided_thomas_kernel(int m, int batch, int stride,
                                                                 const T* __restrict__ dl, const T* __restrict__ d,
                                                                 const T* __restrict__ du, T* __restrict__ x) {
  extern __shared__ unsigned char shared_bytes[];
  T* staged_dl = reinterpret_cast<T*>(shared_bytes);
  T* staged_d = staged_dl + static_cast<size_t>(m) * kStagePitch;
  T* staged_du = staged_d + static_cast<size_t>(m) * kStagePitch;
  T* staged_x = staged_du + static_cast<size_t>(m) * kStagePitch;
  const long long first = static_cast<long long>(blockIdx.x) * kStagedSystems;
  const int count = static_cast<int>(min(static_cast<long long>(kStagedSystems), batch - first));
  const int total = count * m;
  for (int element = threadIdx.x; element < total; element += kThreads) {
    const int system = element / m;
    const int row = element - system * m;
    const size_t global = static_cast<size_t>(first + system) * stride + row;
    const int slot = row * kStagePitch + system;
    staged_dl[slot] = dl[global];
    staged_d[slot] = d[global];
    staged_du[slot] = du[global];
    staged_x[slot] = x[global];
  }
  __syncthreads();
  if (threadIdx.x < count) {
    const int lane = threadIdx.x;
    // Thomas in shared memory: c' over the staged du, x' over the staged x.
    T inverse = reciprocal(staged_d[lane]);
    T c_prime = m > 1 ? mul(staged_du[lane], inverse) : zero<T>();
    T x_prime = mul(staged_x[lane], inverse);
    staged_du[lane] = c_prime;
    staged_x[lane] = x_prime;
    for (int row = 1; row < m; ++row) {
      const int slot = row * kStagePitch + lane;
      const T lower = staged_dl[slot];
      inverse = reciprocal(mul_sub(staged_d[slot], lower, c_prime));
      x_prime = mul(mul_sub(staged_x[slot], lower, x_prime), inverse);
      staged_x[slot] = x_prime;
      if (row + 1 < m) {
        c_prime = mul(staged_du[slot], inverse);
        staged_du[slot] = c_prime;
      }
    }
    T next = x_prime;
    for (int row = m - 2; row >= 0; --row) {
      const int slot = row * kStagePitch + lane;
      next = mul_sub(staged_x[slot], staged_du[slot], next);
      staged_x[slot] = next;
    }
  }
  __syncthreads();
  for (int element = threadIdx.x; element < total; element += kThreads) {
    const int system = element / m;
    const int row = element - system * m;
    x[static_cast<size_t>(first + system) * stride + row] = staged_x[row * kStagePitch + system];
  }
}

template <class T>
size_t strided_shared_bytes(int m) {
  return 4 * static_cast<size_t>(m) * kStagePitch * sizeof(T);
}

// The most shared memory a staged block asks for: two blocks still fit a multiprocessor.
constexpr size_t kStagedSharedLimit = 96 * 1024;

int blocks_for(int batch) { return (batch + kThreads - 1) / kThreads; }

}  // namespace

template <class T>
cudaError_t interleaved_thomas(int m, int batch, const T* dl, const T* d, T* du, T* x, cudaStream_t stream) {
  thomas_kernel<T, false><<<blocks_for(batch), kThreads, 0, stream>>>(m, batch, nullptr, dl, d, du, x);
  return cudaGetLastError();
}

template <class T>
cudaError_t interleaved_thomas_var(int max_m, int batch, const int* sizes, const T* dl, const T* d, T* du, T* x,
                                   cudaStream_t stream) {
  thomas_kernel<T, true><<<blocks_for(batch), kThreads, 0, stream>>>(max_m, batch, sizes, dl, d, du, x);
  return cudaGetLastError();
}

bool strided_thomas_fits(int m, int element_bytes) {
  return m >= 1 && 4 * static_cast<size_t>(m) * kStagePitch * static_cast<size_t>(element_bytes) <= kStagedSharedLimit;
}

template <class T>
cudaError_t strided_thomas(int m, int batch, int stride, const T* dl, const T* d, const T* du, T* x,
                           cudaStream_t stream) {
  const size_t bytes = strided_shared_bytes<T>(m);
  if (bytes > 48 * 1024) {
    // Above the default 48 KB a kernel must opt in (once per process and element type).
    static const cudaError_t opted_in = cudaFuncSetAttribute(
        strided_thomas_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kStagedSharedLimit));
    if (opted_in != cudaSuccess) return opted_in;
  }
  const int blocks = static_cast<int>((static_cast<long long>(batch) + kStagedSystems - 1) / kStagedSystems);
  strided_thomas_kernel<T><<<blocks, kThreads, bytes, stream>>>(m, batch, stride, dl, d, du, x);
  return cudaGetLastError();
}

template <class T>
cudaError_t interleaved_lu(int m, int batch, const T* dl, T* d, T* du, T* x, T* fill, cudaStream_t stream) {
  factor_kernel<T, PartialPivotStep><<<blocks_for(batch), kThreads, 0, stream>>>(m, batch, dl, d, du, x, fill);
  return cudaGetLastError();
}

template <class T>
cudaError_t interleaved_qr(int m, int batch, const T* dl, T* d, T* du, T* x, T* fill, cudaStream_t stream) {
  factor_kernel<T, GivensStep><<<blocks_for(batch), kThreads, 0, stream>>>(m, batch, dl, d, du, x, fill);
  return cudaGetLastError();
}

#define IDGPU_INSTANTIATE_(T)                                                                                   \
  template cudaError_t interleaved_thomas<T>(int, int, const T*, const T*, T*, T*, cudaStream_t);              \
  template cudaError_t interleaved_thomas_var<T>(int, int, const int*, const T*, const T*, T*, T*, cudaStream_t); \
  template cudaError_t strided_thomas<T>(int, int, int, const T*, const T*, const T*, T*, cudaStream_t);       \
  template cudaError_t interleaved_lu<T>(int, int, const T*, T*, T*, T*, T*, cudaStream_t);                    \
  template cudaError_t interleaved_qr<T>(int, int, const T*, T*, T*, T*, T*, cudaStream_t);
IDGPU_INSTANTIATE_(float)
IDGPU_INSTANTIATE_(double)
IDGPU_INSTANTIATE_(cuComplex)
IDGPU_INSTANTIATE_(cuDoubleComplex)
#undef IDGPU_INSTANTIATE_

}  // namespace idgpu::tridiag::kernels
