// gtsv2 (one matrix, n right-hand sides, no diagonal dominance asked): the separators of the
// partition solver with each chunk's interior solved by diagonal pivoting.
//
// A level of M rows is cut into K = ceil(M / P) chunks of P rows, counted from the system's end so
// that only the first chunk is short; it is padded in front with identity rows, which couple to
// nothing (row 0's dl is not read), so that every chunk is P rows in registers. A chunk's last row is
// its separator s_k, the P - 1 rows before it its interior. The interior block (its first row's
// coupling a to s_{k-1} and its last row's coupling c to s_k taken out) is factored by diagonal
// pivoting (1 x 1 or 2 x 2 pivot blocks chosen by the rule of Erway and Marcia that Chang et al.
// use in their SPIKE solver, SC'12; no row interchanges, so the elimination stays in the chunk), and
// solved for three kinds of right-hand side: y (the chunk's own rhs), w (a e_first) and v
// (c e_last), so that x_i = y_i - w_i x_{s_{k-1}} - v_i x_{s_k}. Substituting the last interior row
// of chunk k and the first of chunk k+1 into the separator row of chunk k leaves the reduced system,
// tridiagonal in the K separators:
//     lower_k = -a_s w^L_k,  diag_k = b_s - a_s v^L_k - c_s w^F_{k+1},  upper_k = -c_s v^F_{k+1},
//     rhs_k = d_s - a_s y^L_k - c_s y^F_{k+1}.
// Chunk k writes its own terms; chunk k+1 (which reads c_s, the row before its first) writes the
// c_s terms into separate arrays, which the next level adds on load. The reduced system is solved
// the same way, level after level, until a level of at most P rows is solved whole by one thread;
// then every level's finish pass re-reads its chunks, solves each interior again with both
// separators known, and writes the solution.
//
// The matrix's part (pivot choice, the reciprocal pivots, the multipliers) is done once per chunk
// and applied to every column. Levels of at most kBlockRows rows are reduced, solved and finished
// by one block in one launch.
//
// Like SPIKE, this needs every interior block well conditioned, which a nonsingular matrix does not
// promise: on random non-dominant matrices some blocks are singular or nearly so. So a pivot below
// sqrt(eps) of its neighbourhood is raised to it (static pivoting), and up to kRefinementSteps
// steps of iterative refinement follow, each only where the normwise backward error of the
// solution exceeds kRefineEta eps (decided on the device: the call stays asynchronous).
//
// Bytes moved, n = 1: dl, d, du and the rhs read twice (reduce and finish) and x written once, plus
// 6 / P of an array per level for the reduced system; with refinement on, a copy of B (one read,
// one write) and a residual pass (four reads, one write) per step taken or not, and a solve when
// taken.
//
// The host reference of the algorithm without static pivoting and refinement:
// reference::chunk_pivoting (src/tridiag/reference.h).
#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "tridiag/kernels/kernels.h"
#include "tridiag/kernels/scalar.cuh"
#include "tridiag/kernels/vector16.cuh"

namespace idgpu::tridiag::kernels {
namespace {

// Unit roundoff of a part type (std::numeric_limits is host-only without relaxed constexpr).
template <class Real>
constexpr Real kEpsilon = Real(0);
template <>
constexpr float kEpsilon<float> = 1.1920928955078125e-7f;  // 2^-23
template <>
constexpr double kEpsilon<double> = 2.220446049250313e-16;  // 2^-52

constexpr int kThreads = 128;
constexpr int kBlockThreads = 256;
constexpr int kMaxLevels = 16;
// Levels of at most this many rows go to the one-block kernel (IDGPU_PIVOT_BLOCK_ROWS).
constexpr long long kBlockRows = 4096;

// A level's system as the kernels read it. Level 0 is the caller's (dl, d, du, B with column j at
// rhs + j*ld); a reduced level is pBuffer's, where the diagonal and the rhs are each the sum of two
// arrays (the chunk's own terms and its right neighbour's).
template <class T>
struct LevelIn {
  const T* lower;
  const T* diag;
  const T* diag_next;  // null at level 0
  const T* upper;
  const T* rhs;
  const T* rhs_next;  // null at level 0
  long long ld;       // of the rhs columns
  long long rows;
  bool vectors;  // 16-byte loads of whole chunks (level 0, aligned)
};

// A reduced level in pBuffer: rows values per array, the rhs and x arrays with n columns each.
template <class T>
struct LevelOut {
  T* lower;
  T* diag;
  T* diag_next;
  T* upper;
  T* rhs;
  T* rhs_next;
  T* x;  // the level's solution, written by its finish pass (or the top solve)
  long long rows;
};

// A chunk of P rows, first row `first` (negative in the first chunk: identity padding).
template <class T, int P>
struct ChunkRows {
  T a[P], b[P], c[P];
};

template <class T, int P>
__device__ __forceinline__ void load_matrix(const LevelIn<T>& in, long long first, ChunkRows<T, P>& rows) {
  if (in.vectors && first > 0 && first + P < in.rows) {
    load_vectors(in.lower + first, rows.a);
    load_vectors(in.diag + first, rows.b);
    load_vectors(in.upper + first, rows.c);
    return;
  }
#pragma unroll
  for (int r = 0; r < P; ++r) {
    const long long g = first + r;
    const bool real = g >= 0;
    rows.a[r] = real && g > 0 ? in.lower[g] : zero<T>();
    rows.b[r] = real ? in.diag[g] : from_real<T>(typename ScalarTraits<T>::Real(1));
    if (real && in.diag_next != nullptr) rows.b[r] = add(rows.b[r], in.diag_next[g]);
    rows.c[r] = real && g + 1 < in.rows ? in.upper[g] : zero<T>();
  }
}

template <class T, int P>
__device__ __forceinline__ void load_rhs(const LevelIn<T>& in, long long first, int column, T (&d)[P]) {
  const T* rhs = in.rhs + column * in.ld;
  if (in.vectors && first >= 0 && first + P <= in.rows) {
    load_vectors(rhs + first, d);
    return;
  }
  const T* next = in.rhs_next != nullptr ? in.rhs_next + column * in.ld : nullptr;
#pragma unroll
  for (int r = 0; r < P; ++r) {
    const long long g = first + r;
    d[r] = g >= 0 ? rhs[g] : zero<T>();
    if (g >= 0 && next != nullptr) d[r] = add(d[r], next[g]);
  }
}

// How a finish pass writes its level's solution: level 0 of a refinement step adds its correction
// to the caller's x; level 0 of the first solve keeps a copy of the right-hand sides for the
// refinement's residuals. `flag` (every level): set where a chunk's solution may be inaccurate.
template <class T>
struct Store {
  bool vectors = false;
  bool accumulate = false;
  T* save = nullptr;
  long long ld_save = 0;
  int* flag = nullptr;
};

template <class T, int P>
__device__ __forceinline__ void store_x(T* x, long long rows, const Store<T>& store, long long first,
                                        T (&values)[P]) {
  if (store.vectors && first >= 0 && first + P <= rows) {
    if (store.accumulate) {
      T old[P];
      load_vectors(x + first, old);
#pragma unroll
      for (int r = 0; r < P; ++r) values[r] = add(old[r], values[r]);
    }
    store_vectors(x + first, values);
    return;
  }
#pragma unroll
  for (int r = 0; r < P; ++r) {
    if (first + r >= 0) x[first + r] = store.accumulate ? add(x[first + r], values[r]) : values[r];
  }
}

// Diagonal pivoting of an N-row tridiagonal block in registers (a[0] and c[N-1] are zero): the
// factor once, then forward and back substitution per right-hand side.
template <class T, int N>
struct Factor {
  using Real = typename ScalarTraits<T>::Real;
  T a[N], b[N], c[N];  // b becomes the eliminated diagonal
  T inv[N];            // 1 x 1 block at r: 1 / b_r; 2 x 2 block at r: 1 / det
  T mult[N];           // the block's multiplier into the row after it
  unsigned two = 0;    // bit r: a 2 x 2 block starts at row r

  // A pivot (1 x 1) or determinant (2 x 2) below sqrt(eps) of its neighbourhood's scale is
  // raised to it (static pivoting, as in SuperLU's GESP): an interior block can be singular where
  // the matrix is not, and the refinement steps that follow correct the perturbation.
  bool perturbed = false;  // a pivot was raised
  __device__ __forceinline__ T floored(T pivot, Real scale) {
    const Real tiny = kEpsilon<Real> * scale;
    if (abs1(pivot) >= tiny) return pivot;
    perturbed = true;
    return from_real<T>(tiny);
  }

  __device__ __forceinline__ void factor() {
    const Real kappa = Real(0.6180339887498949);  // (sqrt 5 - 1) / 2
    bool second = false;
#pragma unroll
    for (int r = 0; r < N; ++r) {
      if (second) {
        second = false;
        continue;
      }
      if (r + 1 == N) {
        const Real scale = fmax(abs1(b[r]), r > 0 ? fmax(abs1(a[r]), abs1(c[r - 1])) : Real(0));
        inv[r] = reciprocal(floored(b[r], scale));
        continue;
      }
      Real sigma = fmax(fmax(abs1(b[r]), abs1(c[r])), fmax(abs1(a[r + 1]), abs1(b[r + 1])));
      if (r + 2 < N) sigma = fmax(sigma, fmax(abs1(c[r + 1]), abs1(a[r + 2])));
      if (abs1(b[r]) * sigma >= kappa * abs1(a[r + 1]) * abs1(c[r])) {
        inv[r] = reciprocal(floored(b[r], sigma));
        mult[r] = mul(a[r + 1], inv[r]);
        b[r + 1] = mul_sub(b[r + 1], mult[r], c[r]);
      } else {
        two |= 1u << r;
        second = true;
        inv[r] = reciprocal(floored(mul_sub(mul(b[r], b[r + 1]), c[r], a[r + 1]), sigma * sigma));
        if (r + 2 < N) {
          mult[r] = mul(a[r + 2], inv[r]);
          b[r + 2] = mul_sub(b[r + 2], mul(mult[r], b[r]), c[r + 1]);
        }
      }
    }
  }

  // y <- A^-1 y.
  __device__ __forceinline__ void solve(T (&y)[N]) const {
    bool second = false;
#pragma unroll
    for (int r = 0; r + 1 < N; ++r) {
      if (second) {
        second = false;
        continue;
      }
      if ((two >> r) & 1u) {
        second = true;
        if (r + 2 < N) y[r + 2] = mul_sub(y[r + 2], mult[r], mul_sub(mul(b[r], y[r + 1]), a[r + 1], y[r]));
      } else {
        y[r + 1] = mul_sub(y[r + 1], mult[r], y[r]);
      }
    }
#pragma unroll
    for (int r = N - 1; r >= 0; --r) {
      if (r > 0 && ((two >> (r - 1)) & 1u)) {
        const T r0 = y[r - 1];
        const T r1 = r + 1 < N ? mul_sub(y[r], c[r], y[r + 1]) : y[r];
        y[r - 1] = mul(mul_sub(mul(b[r], r0), c[r - 1], r1), inv[r - 1]);
        y[r] = mul(mul_sub(mul(b[r - 1], r1), a[r], r0), inv[r - 1]);
      } else if (!((two >> r) & 1u)) {
        y[r] = mul(r + 1 < N ? mul_sub(y[r], c[r], y[r + 1]) : y[r], inv[r]);
      }
    }
  }
};

// The interior of a chunk (its first P - 1 rows) as a block, with its couplings to the separators
// around it taken out: a_first to s_{k-1}, c_last to s_k.
template <class T, int P>
__device__ __forceinline__ void interior(const ChunkRows<T, P>& rows, Factor<T, P - 1>& f, T& a_first, T& c_last) {
#pragma unroll
  for (int r = 0; r < P - 1; ++r) {
    f.a[r] = rows.a[r];
    f.b[r] = rows.b[r];
    f.c[r] = rows.c[r];
  }
  a_first = f.a[0];
  c_last = f.c[P - 2];
  f.a[0] = zero<T>();
  f.c[P - 2] = zero<T>();
  f.factor();
}

template <class T, int P>
__device__ __forceinline__ long long chunk_first(long long chunk, long long rows, long long chunks) {
  return chunk * P - (chunks * P - rows);
}

// The chunk's terms of the reduced rows k (its own) and k - 1 (its left neighbour's c_s terms).
template <class T, int P>
__device__ __forceinline__ void reduce_chunk(const LevelIn<T>& in, const LevelOut<T>& out, int n, long long chunk) {
  const long long chunks = out.rows;
  const long long first = chunk_first<T, P>(chunk, in.rows, chunks);
  ChunkRows<T, P> rows;
  load_matrix(in, first, rows);
  Factor<T, P - 1> f;
  T a_first, c_last;
  interior(rows, f, a_first, c_last);
  const T a_s = rows.a[P - 1];
  // The previous separator's c couples it to this chunk's first row.
  const T c_before = chunk > 0 ? in.upper[first - 1] : zero<T>();

  T w[P - 1], v[P - 1];
#pragma unroll
  for (int r = 0; r < P - 1; ++r) w[r] = v[r] = zero<T>();
  w[0] = a_first;
  v[P - 2] = c_last;
  f.solve(w);
  f.solve(v);
  out.lower[chunk] = negate(mul(a_s, w[P - 2]));
  out.diag[chunk] = mul_sub(rows.b[P - 1], a_s, v[P - 2]);
  if (chunk > 0) {
    out.upper[chunk - 1] = negate(mul(c_before, v[0]));
    out.diag_next[chunk - 1] = negate(mul(c_before, w[0]));
  }
  if (chunk + 1 == chunks) {
    out.upper[chunk] = zero<T>();
    out.diag_next[chunk] = zero<T>();
  }
  for (int column = 0; column < n; ++column) {
    T y[P];
    load_rhs(in, first, column, y);
    const T d_s = y[P - 1];
    T yi[P - 1];
#pragma unroll
    for (int r = 0; r < P - 1; ++r) yi[r] = y[r];
    f.solve(yi);
    const long long at = column * chunks;
    out.rhs[at + chunk] = mul_sub(d_s, a_s, yi[P - 2]);
    if (chunk > 0) out.rhs_next[at + chunk - 1] = negate(mul(c_before, yi[0]));
    if (chunk + 1 == chunks) out.rhs_next[at + chunk] = zero<T>();
  }
}

// The chunk's interior solved again with both separators known (sep, column j at sep + j*chunks),
// and its rows written to x (column j at x + j*ldx).
//
// The check, with store.flag: the separator rows' residuals are not this thread's to compute (the
// next chunk's first row is another thread's), but they follow from what it has. The reduced row k
// is the separator row s_k with x_{s-1} and x_{s+1} replaced by the spike forms
// S_i = y_i - w_i x_{s_{k-1}} - v_i x_{s_k} of the reduce pass, so
//     residual(s_k) = reduced residual_k + a_s (x_{s-1} - S_{s-1}) + c_s (x_{s+1} - S_{s+1}),
// where x are this pass's values. The spike forms and the direct solve agree to rounding where the
// interior block is well conditioned and part where it is not; each thread bounds its two terms
// (its first and last interior rows) against kCheckEta eps of its rows' scale, and the reduced
// residual is the next level's business. A raised pivot sets the flag as well.
constexpr int kCheckEta = 16;

template <class T, int P>
__device__ __forceinline__ void finish_chunk(const LevelIn<T>& in, const T* sep, long long chunks, T* x,
                                             long long ldx, const Store<T>& store, int n, long long chunk) {
  using Real = typename ScalarTraits<T>::Real;
  const long long first = chunk_first<T, P>(chunk, in.rows, chunks);
  ChunkRows<T, P> rows;
  load_matrix(in, first, rows);
  Factor<T, P - 1> f;
  T a_first, c_last;
  interior(rows, f, a_first, c_last);
  const bool check = store.flag != nullptr;
  T w[P - 1], v[P - 1];
  Real row_norm = 0;
  if (check) {
    if (f.perturbed) *store.flag = 1;
#pragma unroll
    for (int r = 0; r < P - 1; ++r) w[r] = v[r] = zero<T>();
    w[0] = a_first;
    v[P - 2] = c_last;
    f.solve(w);
    f.solve(v);
#pragma unroll
    for (int r = 0; r < P; ++r) row_norm = fmax(row_norm, abs1(rows.a[r]) + abs1(rows.b[r]) + abs1(rows.c[r]));
  }
  for (int column = 0; column < n; ++column) {
    T y[P];
    load_rhs(in, first, column, y);
    if (store.save != nullptr) store_x(store.save + column * store.ld_save, in.rows, Store<T>{store.vectors}, first, y);
    const T right = sep[column * chunks + chunk];
    const T left = chunk > 0 ? sep[column * chunks + chunk - 1] : zero<T>();
    T yi[P - 1];
#pragma unroll
    for (int r = 0; r < P - 1; ++r) yi[r] = y[r];
    yi[0] = mul_sub(yi[0], a_first, left);
    yi[P - 2] = mul_sub(yi[P - 2], c_last, right);
    f.solve(yi);
    if (check) {
      T plain[P - 1];
      Real x_max = fmax(abs1(left), abs1(right)), d_max = 0;
#pragma unroll
      for (int r = 0; r < P - 1; ++r) {
        plain[r] = y[r];
        x_max = fmax(x_max, abs1(yi[r]));
        d_max = fmax(d_max, abs1(y[r]));
      }
      d_max = fmax(d_max, abs1(y[P - 1]));
      f.solve(plain);
      const T spike_first = mul_sub(mul_sub(plain[0], w[0], left), v[0], right);
      const T spike_last = mul_sub(mul_sub(plain[P - 2], w[P - 2], left), v[P - 2], right);
      const Real gap = fmax(abs1(sub(yi[0], spike_first)), abs1(sub(yi[P - 2], spike_last)));
      // Written as a negated comparison so that NaN sets the flag too.
      if (!(row_norm * gap <= Real(kCheckEta) * kEpsilon<Real> * (row_norm * x_max + d_max))) *store.flag = 1;
    }
#pragma unroll
    for (int r = 0; r < P - 1; ++r) y[r] = yi[r];
    y[P - 1] = right;
    store_x(x + column * ldx, in.rows, store, first, y);
  }
}

// A level of at most P rows, solved whole (by one thread).
template <class T, int P>
__device__ __forceinline__ void top_solve(const LevelIn<T>& in, T* x, long long ldx, const Store<T>& store, int n) {
  const long long first = in.rows - P;
  ChunkRows<T, P> rows;
  load_matrix(in, first, rows);
  Factor<T, P> f;
#pragma unroll
  for (int r = 0; r < P; ++r) {
    f.a[r] = rows.a[r];
    f.b[r] = rows.b[r];
    f.c[r] = rows.c[r];
  }
  f.factor();
  if (store.flag != nullptr && f.perturbed) *store.flag = 1;
  for (int column = 0; column < n; ++column) {
    T y[P];
    load_rhs(in, first, column, y);
    if (store.save != nullptr) store_x(store.save + column * store.ld_save, in.rows, Store<T>{store.vectors}, first, y);
    f.solve(y);
    store_x(x + column * ldx, in.rows, store, first, y);
  }
}

// A refinement step's launches run only where the residual before it asked for one (*gate != 0);
// a null gate always runs.
__device__ __forceinline__ bool gated_off(const int* gate) { return gate != nullptr && *gate == 0; }

template <class T, int P>
__global__ void __launch_bounds__(kThreads) reduce_kernel(LevelIn<T> in, LevelOut<T> out, int n, const int* gate) {
  if (gated_off(gate)) return;
  const long long chunk = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (chunk < out.rows) reduce_chunk<T, P>(in, out, n, chunk);
}

template <class T, int P>
__global__ void __launch_bounds__(kThreads) finish_kernel(LevelIn<T> in, const T* sep, long long chunks, T* x,
                                                          long long ldx, Store<T> store, int n, const int* gate) {
  if (gated_off(gate)) return;
  const long long chunk = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (chunk < chunks) finish_chunk<T, P>(in, sep, chunks, x, ldx, store, n, chunk);
}

// Every level from `from` up, reduced, solved and finished by one block: the small levels cost a
// launch each otherwise. Level l reads ins[l]; its reduced system is outs[l + 1]; its solution
// goes to xs[l] (leading dimension lds[l]). The block's barriers order its global writes and
// reads.
template <class T>
struct BlockLevels {
  LevelIn<T> ins[kMaxLevels];
  LevelOut<T> outs[kMaxLevels];
  T* xs[kMaxLevels];
  long long lds[kMaxLevels];
  int from;
  int top;
  Store<T> store;        // of level 0's x
  Store<T> upper_store;  // of the levels above (plain stores, the same flag)
};

template <class T, int P>
__global__ void __launch_bounds__(kBlockThreads) block_kernel(BlockLevels<T> levels, int n, const int* gate) {
  if (gated_off(gate)) return;
  for (int level = levels.from; level < levels.top; ++level) {
    for (long long chunk = threadIdx.x; chunk < levels.outs[level + 1].rows; chunk += kBlockThreads) {
      reduce_chunk<T, P>(levels.ins[level], levels.outs[level + 1], n, chunk);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    top_solve<T, P>(levels.ins[levels.top], levels.xs[levels.top], levels.lds[levels.top],
                    levels.top == 0 ? levels.store : levels.upper_store, n);
  }
  __syncthreads();
  for (int level = levels.top - 1; level >= levels.from; --level) {
    const LevelOut<T>& above = levels.outs[level + 1];
    for (long long chunk = threadIdx.x; chunk < above.rows; chunk += kBlockThreads) {
      finish_chunk<T, P>(levels.ins[level], above.x, above.rows, levels.xs[level], levels.lds[level],
                         level == 0 ? levels.store : levels.upper_store, n, chunk);
    }
    __syncthreads();
  }
}

// Iterative refinement. A step computes r = b - A x for every column with the normwise backward
// error eta = max|r| / (||A|| max|x| + max|b|) (moduli as abs1, LAPACK's CABS1), and, where some
// column's eta exceeds kRefineEta eps, solves A dx = r by the same levels and adds dx to x; where
// none does, the step's launches return at once (a gate in device memory, so the call stays
// asynchronous), and so do the later steps'.
constexpr int kRefineEta = 2;

// One step's control block in pBuffer: maxima as the bits of non-negative doubles (ordered as
// unsigned integers, so atomicMax keeps the largest), the blocks done, the decision.
struct Control {
  unsigned long long a_norm;
  unsigned int blocks_done;
  int refine;
  // then per column: max|r|, max|x|, max|b| (3 n values)
};

__device__ __forceinline__ void max_into(unsigned long long* at, double value) {
  atomicMax(at, static_cast<unsigned long long>(__double_as_longlong(value)));
}
__device__ __forceinline__ double read_max(const unsigned long long* at) {
  return __longlong_as_double(static_cast<long long>(*reinterpret_cast<const volatile unsigned long long*>(at)));
}

__device__ __forceinline__ double block_max(double value, double* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) value = fmax(value, __shfl_down_sync(0xffffffffu, value, offset));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  __syncthreads();
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  value = threadIdx.x < blockDim.x / 32 ? scratch[threadIdx.x] : 0.0;
  if (warp == 0) {
    for (int offset = 16; offset > 0; offset /= 2) value = fmax(value, __shfl_down_sync(0xffffffffu, value, offset));
  }
  return value;
}

constexpr int kResidualThreads = 256;

template <class T>
__global__ void __launch_bounds__(kResidualThreads)
    residual_kernel(const T* dl, const T* d, const T* du, const T* x, long long ldx, const T* b, T* r, long long ldr,
                    long long m, int n, Control* control, const int* gate) {
  using Real = typename ScalarTraits<T>::Real;
  if (gated_off(gate)) return;  // the step before did not refine: nor does this one (control stays 0)
  __shared__ double scratch[kResidualThreads / 32];
  unsigned long long* columns = reinterpret_cast<unsigned long long*>(control + 1);
  const long long stride = static_cast<long long>(gridDim.x) * kResidualThreads;
  for (int column = 0; column < n; ++column) {
    const T* xc = x + column * ldx;
    const T* bc = b + column * ldr;
    T* rc = r + column * ldr;
    double r_max = 0.0, x_max = 0.0, b_max = 0.0, a_max = 0.0;
    for (long long i = static_cast<long long>(blockIdx.x) * kResidualThreads + threadIdx.x; i < m; i += stride) {
      const T xi = xc[i];
      T ax = mul(d[i], xi);
      Real row = abs1(d[i]);
      if (i > 0) {
        ax = add(ax, mul(dl[i], xc[i - 1]));
        row += abs1(dl[i]);
      }
      if (i + 1 < m) {
        ax = add(ax, mul(du[i], xc[i + 1]));
        row += abs1(du[i]);
      }
      const T ri = sub(bc[i], ax);
      rc[i] = ri;
      r_max = fmax(r_max, static_cast<double>(abs1(ri)));
      x_max = fmax(x_max, static_cast<double>(abs1(xi)));
      b_max = fmax(b_max, static_cast<double>(abs1(bc[i])));
      a_max = fmax(a_max, static_cast<double>(row));
    }
    r_max = block_max(r_max, scratch);
    x_max = block_max(x_max, scratch);
    b_max = block_max(b_max, scratch);
    if (column == 0) a_max = block_max(a_max, scratch);
    if (threadIdx.x == 0) {
      max_into(columns + 3 * column, r_max);
      max_into(columns + 3 * column + 1, x_max);
      max_into(columns + 3 * column + 2, b_max);
      if (column == 0) max_into(&control->a_norm, a_max);
    }
  }
  // The last block to finish decides.
  if (threadIdx.x == 0) {
    __threadfence();
    if (atomicAdd(&control->blocks_done, 1u) + 1 == gridDim.x) {
      __threadfence();
      const double eps = kEpsilon<Real>;
      const double a_norm = read_max(&control->a_norm);
      int refine = 0;
      for (int column = 0; column < n && refine == 0; ++column) {
        const double scale = a_norm * read_max(columns + 3 * column + 1) + read_max(columns + 3 * column + 2);
        const double r_max = read_max(columns + 3 * column);
        // NaN (a singular matrix) is not refined: refinement cannot help it.
        refine = r_max > kRefineEta * eps * scale ? 1 : 0;
      }
      control->refine = refine;
    }
  }
}

// The levels' rows: levels[0] = m, each next ceil(previous / P), until one of at most P rows.
struct PivotPlan {
  int count = 0;  // levels, the caller's included
  long long rows[kMaxLevels] = {};
};

PivotPlan plan_pivot(long long m, int P) {
  PivotPlan plan;
  plan.rows[plan.count++] = m;
  while (plan.rows[plan.count - 1] > P && plan.count < kMaxLevels) {
    plan.rows[plan.count] = (plan.rows[plan.count - 1] + P - 1) / P;
    ++plan.count;
  }
  return plan;
}

constexpr std::size_t kAlign = 256;
std::size_t aligned(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// Per reduced level: four matrix arrays and three arrays of n columns (rhs, rhs_next, x).
std::size_t level_bytes(long long rows, int n, std::size_t element) {
  const std::size_t one = aligned(static_cast<std::size_t>(rows) * element);
  const std::size_t columns = aligned(static_cast<std::size_t>(rows) * static_cast<std::size_t>(n) * element);
  return 4 * one + 3 * columns;
}

template <class T>
LevelOut<T> carve(unsigned char*& cursor, long long rows, int n) {
  const std::size_t one = aligned(static_cast<std::size_t>(rows) * sizeof(T));
  const std::size_t columns = aligned(static_cast<std::size_t>(rows) * static_cast<std::size_t>(n) * sizeof(T));
  LevelOut<T> out{};
  out.rows = rows;
  T** matrix[] = {&out.lower, &out.diag, &out.diag_next, &out.upper};
  for (T** p : matrix) {
    *p = reinterpret_cast<T*>(cursor);
    cursor += one;
  }
  T** per_column[] = {&out.rhs, &out.rhs_next, &out.x};
  for (T** p : per_column) {
    *p = reinterpret_cast<T*>(cursor);
    cursor += columns;
  }
  return out;
}

unsigned blocks_for(long long threads) { return static_cast<unsigned>((threads + kThreads - 1) / kThreads); }

long long block_rows_limit() {
  const char* text = std::getenv("IDGPU_PIVOT_BLOCK_ROWS");
  const long long rows = text != nullptr ? std::atoll(text) : 0;
  return rows > 0 ? rows : kBlockRows;
}

// Refinement steps after the solve (IDGPU_PIVOT_REFINE, 0 to 4); each runs only where needed.
constexpr int kRefinementSteps = 2;
int refinement_steps() {
  const char* text = std::getenv("IDGPU_PIVOT_REFINE");
  if (text == nullptr) return kRefinementSteps;
  return std::clamp(std::atoi(text), 0, 4);
}

int forced_rows() {
  const char* text = std::getenv("IDGPU_PIVOT_ROWS");
  if (text == nullptr) return 0;
  const int rows = std::atoi(text);
  return rows == 4 || rows == 8 ? rows : 0;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// The caller's rows, or a refinement step's residuals: a level-0 system and where its solution goes.
template <class T>
struct Level0 {
  const T* rhs;
  long long ld;
  T* x;
  long long ldx;
  bool accumulate;
  T* save;        // a copy of rhs (leading dimension ld_save), or null
  long long ld_save;
  int* flag;      // the accuracy check's flag, or null
};

template <class T, int P>
void run_levels(BlockLevels<T> levels, const PivotPlan& plan, const T* dl, const T* d, const T* du,
                const Level0<T>& level0, int n, const int* gate, cudaStream_t stream) {
  constexpr int kPer = Vector16<T>::kCount;
  // Vectors where every full chunk starts on a 16-byte boundary: the padding in front is a whole
  // number of vectors, and so are the leading dimensions.
  const long long padding = plan.count > 1 ? plan.rows[1] * P - plan.rows[0] : 0;
  const bool rows_aligned = padding % kPer == 0 && aligned16(dl) && aligned16(d) && aligned16(du);
  const bool vectors_in = rows_aligned && aligned16(level0.rhs) && level0.ld % kPer == 0;
  const bool vectors_out = rows_aligned && aligned16(level0.x) && level0.ldx % kPer == 0;
  levels.ins[0] = LevelIn<T>{dl, d, nullptr, du, level0.rhs, nullptr, level0.ld, plan.rows[0], vectors_in};
  levels.xs[0] = level0.x;
  levels.lds[0] = level0.ldx;
  const bool vectors_save = level0.save == nullptr || (aligned16(level0.save) && level0.ld_save % kPer == 0);
  levels.store = Store<T>{vectors_out && vectors_save, level0.accumulate, level0.save, level0.ld_save, level0.flag};
  levels.upper_store = Store<T>{false, false, nullptr, 0, level0.flag};
  for (int level = 0; level < levels.from; ++level) {
    reduce_kernel<T, P><<<blocks_for(plan.rows[level + 1]), kThreads, 0, stream>>>(levels.ins[level],
                                                                                   levels.outs[level + 1], n, gate);
  }
  block_kernel<T, P><<<1, kBlockThreads, 0, stream>>>(levels, n, gate);
  for (int level = levels.from - 1; level >= 0; --level) {
    const LevelOut<T>& above = levels.outs[level + 1];
    finish_kernel<T, P><<<blocks_for(above.rows), kThreads, 0, stream>>>(
        levels.ins[level], above.x, above.rows, levels.xs[level], levels.lds[level],
        level == 0 ? levels.store : levels.upper_store, n, gate);
  }
}

// pBuffer: the reduced levels, then (with refinement) each step's control block, a copy of B and
// the residuals (leading dimension `residual_ld`).
long long residual_ld(long long m) { return (m + 3) / 4 * 4; }
std::size_t control_bytes(int n) { return aligned(sizeof(Control) + 3 * sizeof(unsigned long long) * n); }

template <class T, int P>
cudaError_t solve_with(int m, int n, int ldb, const T* dl, const T* d, const T* du, T* B, void* buffer,
                       cudaStream_t stream) {
  const PivotPlan plan = plan_pivot(m, P);
  if (plan.rows[plan.count - 1] > P) return cudaErrorNotSupported;
  BlockLevels<T> levels{};
  unsigned char* cursor = static_cast<unsigned char*>(buffer);
  for (int level = 1; level < plan.count; ++level) {
    const LevelOut<T> o = carve<T>(cursor, plan.rows[level], n);
    levels.outs[level] = o;
    levels.ins[level] = LevelIn<T>{o.lower, o.diag, o.diag_next, o.upper, o.rhs, o.rhs_next, o.rows, o.rows, false};
    levels.xs[level] = o.x;
    levels.lds[level] = o.rows;
  }
  levels.top = plan.count - 1;
  // The first level small enough for one block, and every level above it, go to block_kernel.
  const long long block_rows = block_rows_limit();
  levels.from = levels.top;
  while (levels.from > 0 && plan.rows[levels.from - 1] <= block_rows) --levels.from;

  // With refinement: the check's flag, each step's control block, a copy of B, the residuals.
  const int steps = refinement_steps();
  int* flag = reinterpret_cast<int*>(cursor);
  auto control = [&](int step) {
    return reinterpret_cast<Control*>(cursor + kAlign + static_cast<std::size_t>(step) * control_bytes(n));
  };
  const long long ldr = residual_ld(m);
  unsigned char* arrays = cursor + kAlign + static_cast<std::size_t>(steps) * control_bytes(n);
  T* saved = reinterpret_cast<T*>(arrays);
  T* residual = reinterpret_cast<T*>(arrays + aligned(static_cast<std::size_t>(ldr) * n * sizeof(T)));
  if (steps > 0) cudaMemsetAsync(flag, 0, kAlign + static_cast<std::size_t>(steps) * control_bytes(n), stream);
  run_levels<T, P>(levels, plan, dl, d, du,
                   Level0<T>{B, ldb, B, ldb, false, steps > 0 ? saved : nullptr, ldr, steps > 0 ? flag : nullptr}, n,
                   nullptr, stream);
  const unsigned residual_blocks =
      static_cast<unsigned>(std::min<long long>((m + kResidualThreads - 1) / kResidualThreads, 1024));
  for (int step = 0; step < steps; ++step) {
    // Step 0 runs where the check flagged the solve, a later step where the one before refined.
    const int* gate = step == 0 ? flag : &control(step - 1)->refine;
    residual_kernel<T><<<residual_blocks, kResidualThreads, 0, stream>>>(dl, d, du, B, ldb, saved, residual, ldr, m,
                                                                         n, control(step), gate);
    run_levels<T, P>(levels, plan, dl, d, du, Level0<T>{residual, ldr, B, ldb, true, nullptr, 0, nullptr}, n,
                     &control(step)->refine, stream);
  }
  return cudaGetLastError();
}

}  // namespace

int pivoting_rows(int element_bytes) {
  if (const int forced = forced_rows(); forced != 0) return forced;
  return 8;
}

std::size_t pivoting_buffer_bytes(int m, int n, int element_bytes) {
  const int P = pivoting_rows(element_bytes);
  const PivotPlan plan = plan_pivot(m, P);
  std::size_t bytes = 0;
  for (int level = 1; level < plan.count; ++level) {
    bytes += level_bytes(plan.rows[level], std::max(n, 1), static_cast<std::size_t>(element_bytes));
  }
  if (const int steps = refinement_steps(); steps > 0) {
    bytes += kAlign + steps * control_bytes(std::max(n, 1));
    bytes += 2 * aligned(static_cast<std::size_t>(residual_ld(m)) * std::max(n, 1) * element_bytes);
  }
  return bytes;
}

template <class T>
cudaError_t pivoting_solve(int m, int n, int ldb, const T* dl, const T* d, const T* du, T* B, void* buffer,
                           cudaStream_t stream) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  switch (pivoting_rows(sizeof(T))) {
    case 4:
      return solve_with<T, 4>(m, n, ldb, dl, d, du, B, buffer, stream);
    case 8:
      return solve_with<T, 8>(m, n, ldb, dl, d, du, B, buffer, stream);
    default:
      break;
  }
  return cudaErrorInvalidValue;
}

#define IDGPU_INSTANTIATE_(T) \
  template cudaError_t pivoting_solve<T>(int, int, int, const T*, const T*, const T*, T*, void*, cudaStream_t);
IDGPU_INSTANTIATE_(float)
IDGPU_INSTANTIATE_(double)
IDGPU_INSTANTIATE_(cuComplex)
IDGPU_INSTANTIATE_(cuDoubleComplex)
#undef IDGPU_INSTANTIATE_

}  // namespace idgpu::tridiag::kernels
