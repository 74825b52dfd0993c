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
// Bytes moved, n = 1: dl, d, du and the rhs read twice (reduce and finish) and x written once, plus
// 6 / P of an array per level for the reduced system.
//
// Accuracy: like SPIKE, this needs every interior block well conditioned, which a nonsingular
// matrix does not promise. Diagonally dominant matrices are solved as accurately as the vendor's
// gtsv2 does; on random non-dominant ones some 7-row interiors are singular or nearly so (a
// zero-diagonal pattern makes one exactly singular), and the error there is far above the
// vendor's, which is why the dispatch does not send gtsv2 here (measurements: tuning.cpp). The way
// out measured on the CPU: two separators a chunk, the better of two windows of P - 2 rows, and one
// step of iterative refinement (reference::ChunkSeparators::kTwoChosen; not built here yet).
//
// The host reference of the same algorithm: reference::chunk_pivoting (src/tridiag/reference.h).
#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "tridiag/kernels/kernels.h"
#include "tridiag/kernels/scalar.cuh"
#include "tridiag/kernels/vector16.cuh"

namespace idgpu::tridiag::kernels {
namespace {

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

template <class T, int P>
__device__ __forceinline__ void store_x(T* x, long long rows, bool vectors, long long first, const T (&values)[P]) {
  if (vectors && first >= 0 && first + P <= rows) {
    store_vectors(x + first, values);
    return;
  }
#pragma unroll
  for (int r = 0; r < P; ++r) {
    if (first + r >= 0) x[first + r] = values[r];
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
        inv[r] = reciprocal(b[r]);
        continue;
      }
      Real sigma = fmax(fmax(abs1(b[r]), abs1(c[r])), fmax(abs1(a[r + 1]), abs1(b[r + 1])));
      if (r + 2 < N) sigma = fmax(sigma, fmax(abs1(c[r + 1]), abs1(a[r + 2])));
      if (abs1(b[r]) * sigma >= kappa * abs1(a[r + 1]) * abs1(c[r])) {
        inv[r] = reciprocal(b[r]);
        mult[r] = mul(a[r + 1], inv[r]);
        b[r + 1] = mul_sub(b[r + 1], mult[r], c[r]);
      } else {
        two |= 1u << r;
        second = true;
        inv[r] = reciprocal(mul_sub(mul(b[r], b[r + 1]), c[r], a[r + 1]));
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
template <class T, int P>
__device__ __forceinline__ void finish_chunk(const LevelIn<T>& in, const T* sep, long long chunks, T* x,
                                             long long ldx, bool vectors_out, int n, long long chunk) {
  const long long first = chunk_first<T, P>(chunk, in.rows, chunks);
  ChunkRows<T, P> rows;
  load_matrix(in, first, rows);
  Factor<T, P - 1> f;
  T a_first, c_last;
  interior(rows, f, a_first, c_last);
  for (int column = 0; column < n; ++column) {
    T y[P];
    load_rhs(in, first, column, y);
    const T right = sep[column * chunks + chunk];
    const T left = chunk > 0 ? sep[column * chunks + chunk - 1] : zero<T>();
    T yi[P - 1];
#pragma unroll
    for (int r = 0; r < P - 1; ++r) yi[r] = y[r];
    yi[0] = mul_sub(yi[0], a_first, left);
    yi[P - 2] = mul_sub(yi[P - 2], c_last, right);
    f.solve(yi);
#pragma unroll
    for (int r = 0; r < P - 1; ++r) y[r] = yi[r];
    y[P - 1] = right;
    store_x(x + column * ldx, in.rows, vectors_out, first, y);
  }
}

// A level of at most P rows, solved whole (by one thread).
template <class T, int P>
__device__ __forceinline__ void top_solve(const LevelIn<T>& in, T* x, long long ldx, bool vectors_out, int n) {
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
  for (int column = 0; column < n; ++column) {
    T y[P];
    load_rhs(in, first, column, y);
    f.solve(y);
    store_x(x + column * ldx, in.rows, vectors_out, first, y);
  }
}

template <class T, int P>
__global__ void __launch_bounds__(kThreads) reduce_kernel(LevelIn<T> in, LevelOut<T> out, int n) {
  const long long chunk = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (chunk < out.rows) reduce_chunk<T, P>(in, out, n, chunk);
}

template <class T, int P>
__global__ void __launch_bounds__(kThreads)
    finish_kernel(LevelIn<T> in, const T* sep, long long chunks, T* x, long long ldx, bool vectors_out, int n) {
  const long long chunk = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (chunk < chunks) finish_chunk<T, P>(in, sep, chunks, x, ldx, vectors_out, n, chunk);
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
  bool vectors_out;  // level 0's x (B) takes vector stores
};

template <class T, int P>
__global__ void __launch_bounds__(kBlockThreads) block_kernel(BlockLevels<T> levels, int n) {
  for (int level = levels.from; level < levels.top; ++level) {
    for (long long chunk = threadIdx.x; chunk < levels.outs[level + 1].rows; chunk += kBlockThreads) {
      reduce_chunk<T, P>(levels.ins[level], levels.outs[level + 1], n, chunk);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    top_solve<T, P>(levels.ins[levels.top], levels.xs[levels.top], levels.lds[levels.top],
                    levels.top == 0 && levels.vectors_out, n);
  }
  __syncthreads();
  for (int level = levels.top - 1; level >= levels.from; --level) {
    const LevelOut<T>& above = levels.outs[level + 1];
    for (long long chunk = threadIdx.x; chunk < above.rows; chunk += kBlockThreads) {
      finish_chunk<T, P>(levels.ins[level], above.x, above.rows, levels.xs[level], levels.lds[level],
                         level == 0 && levels.vectors_out, n, chunk);
    }
    __syncthreads();
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

int forced_rows() {
  const char* text = std::getenv("IDGPU_PIVOT_ROWS");
  if (text == nullptr) return 0;
  const int rows = std::atoi(text);
  return rows == 4 || rows == 8 ? rows : 0;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

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

  constexpr int kPer = Vector16<T>::kCount;
  // Vectors where every full chunk starts on a 16-byte boundary: the padding in front is a whole
  // number of vectors, and so is ldb.
  const long long padding = plan.count > 1 ? plan.rows[1] * P - m : 0;
  const bool vectors = padding % kPer == 0 && aligned16(dl) && aligned16(d) && aligned16(du) && aligned16(B) &&
                       ldb % kPer == 0;
  levels.ins[0] = LevelIn<T>{dl, d, nullptr, du, B, nullptr, ldb, m, vectors};
  levels.xs[0] = B;
  levels.lds[0] = ldb;
  levels.vectors_out = vectors;
  for (int level = 0; level < levels.from; ++level) {
    reduce_kernel<T, P><<<blocks_for(plan.rows[level + 1]), kThreads, 0, stream>>>(levels.ins[level],
                                                                                   levels.outs[level + 1], n);
  }
  block_kernel<T, P><<<1, kBlockThreads, 0, stream>>>(levels, n);
  for (int level = levels.from - 1; level >= 0; --level) {
    const LevelOut<T>& above = levels.outs[level + 1];
    finish_kernel<T, P><<<blocks_for(above.rows), kThreads, 0, stream>>>(
        levels.ins[level], above.x, above.rows, levels.xs[level], levels.lds[level], level == 0 && vectors, n);
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
