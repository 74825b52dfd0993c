// The partition solver for diagonally dominant batches (gtsv2StridedBatch and gtsvInterleavedBatch
// algo 0), at any m: each thread owns a chunk of L consecutive rows of one system and keeps its
// elimination in registers, so the four input arrays are read once and x written once.
//
// A chunk's last row is its separator; the other L-1 rows are its interior. A forward sweep over
// the interior, carrying the left neighbour's separator E_{k-1} as a parameter, gives
//     x_i = d'_i - c'_i x_{i+1} + g'_i E_{k-1}                              (registers)
// so every interior row is affine in the two separators around it, x_i = α_i + β_i E_{k-1} + γ_i E_k.
// Substituting the last interior row of chunk k and the first interior row of chunk k+1 into the
// separator row of chunk k leaves one equation per chunk, a tridiagonal system in the separators
// (the Schur complement of the interiors: diagonally dominant when the matrix is):
//     a α^last_k E_{k-1} ... lower = a β^last_k,  diag = b + a γ^last_k + c β^first_{k+1},
//     upper = c γ^first_{k+1},  rhs = d - a α^last_k - c α^first_{k+1}.
// When a system's chunks fit one block, the block solves this reduced system by parallel cyclic
// reduction in shared memory and every thread back-substitutes its chunk from registers: one pass.
// Longer systems take three steps: a reduce kernel writes the reduced rows to pBuffer, the reduced
// system (m/L rows per system) is solved the same way, recursively, and a finish kernel re-reads the
// chunk, repeats the sweep and back-substitutes with its two separators.
//
// Rows of a system beyond m are identity rows (never read nor written); dl of row 0 and du of row
// m-1 are never read, as in cuSPARSE.
#include <algorithm>
#include <cstdint>
#include <cstdlib>

#include "tridiag/kernels/kernels.h"
#include "tridiag/kernels/scalar.cuh"

namespace idgpu::tridiag::kernels {
namespace {

template <class T>
struct Row {
  T a, b, c, d;
};

template <class T>
__device__ __forceinline__ Row<T> identity_row() {
  return {zero<T>(), from_real<T>(typename ScalarTraits<T>::Real(1)), zero<T>(), zero<T>()};
}

// Element (system, row) of a batch lives at system*system_step + row*row_step:
// strided (stride, 1), interleaved (1, batch).
struct Indexing {
  long long system_step;
  long long row_step;
  __device__ __forceinline__ long long at(long long system, long long row) const {
    return system * system_step + row * row_step;
  }
};

// The caller's four arrays. With `sizes` (device, variable-size batches), system j has sizes[j]
// rows of the m and rows beyond are padding: identity rows, never read nor written; a size outside
// [1, m] leaves the system untouched.
template <class T>
struct ArraySource {
  const T* __restrict__ dl;
  const T* __restrict__ d;
  const T* __restrict__ du;
  const T* x;  // the right-hand side, overwritten by the solution (each thread its own rows)
  Indexing index;      // of dl, d, du
  Indexing rhs_index;  // of x: the same, or (ldb, 1) for gtsv2_nopivot's columns sharing one matrix
  long long m;
  const int* __restrict__ sizes;
  __device__ __forceinline__ long long rows(long long system) const {
    if (sizes == nullptr) return m;
    const int own = sizes[system];
    return own >= 1 && own <= m ? own : 0;
  }
  __device__ __forceinline__ Row<T> load(long long system, long long row, long long rows) const {
    const long long at = index.at(system, row);
    return {row > 0 ? dl[at] : zero<T>(), d[at], row + 1 < rows ? du[at] : zero<T>(), x[rhs_index.at(system, row)]};
  }
};

// A reduced level as the reduce kernel leaves it, seven values per chunk: the separator row's part
// that the chunk knows (lower, diag and rhs without the next chunk's terms, and the separator's
// upper coefficient c) and the chunk's first interior row (α, β, γ), which the previous chunk's
// row needs.
template <class T>
struct Reduced {
  T* lower;
  T* diag;
  T* rhs;
  T* upper;  // the separator's c
  T* alpha;
  T* beta;
  T* gamma;
};

template <class T>
struct ReducedSource {
  Reduced<T> level;
  Indexing index;
  long long m;
  __device__ __forceinline__ long long rows(long long) const { return m; }
  __device__ __forceinline__ Row<T> load(long long system, long long row, long long) const {
    const long long at = index.at(system, row);
    Row<T> r{level.lower[at], level.diag[at], zero<T>(), level.rhs[at]};
    if (row + 1 < m) {
      const long long next = index.at(system, row + 1);
      const T c = level.upper[at];
      r.b = mul_sub(r.b, negate(c), level.beta[next]);
      r.c = mul(c, level.gamma[next]);
      r.d = mul_sub(r.d, c, level.alpha[next]);
    }
    return r;
  }
};

template <class T>
struct Sink {
  T* out;
  Indexing index;
  __device__ __forceinline__ void store(long long system, long long row, T value) const {
    out[index.at(system, row)] = value;
  }
};

// One thread's chunk: rows first..first+L-1 of a system.
template <class T, int L>
struct Chunk {
  static_assert(L >= 2, "a chunk needs an interior row and a separator");
  T cp[L - 1], dp[L - 1], gp[L - 1];
  Row<T> separator;
  long long rows;  // of this chunk's system (0: the system is left untouched)

  template <class Source>
  __device__ __forceinline__ void sweep(const Source& source, long long system, long long first, bool active) {
    rows = active ? source.rows(system) : 0;
    Row<T> loaded[L];
#pragma unroll
    for (int k = 0; k < L; ++k) {
      loaded[k] = first + k < rows ? source.load(system, first + k, rows) : identity_row<T>();
    }
    T c_prev = zero<T>();
    T d_prev = zero<T>();
    T g_prev = from_real<T>(typename ScalarTraits<T>::Real(1));
#pragma unroll
    for (int k = 0; k < L - 1; ++k) {
      const Row<T>& r = loaded[k];
      const T inverse = reciprocal(mul_sub(r.b, r.a, c_prev));
      cp[k] = mul(r.c, inverse);
      dp[k] = mul(mul_sub(r.d, r.a, d_prev), inverse);
      gp[k] = negate(mul(mul(r.a, g_prev), inverse));
      c_prev = cp[k];
      d_prev = dp[k];
      g_prev = gp[k];
    }
    separator = loaded[L - 1];
  }

  // The first interior row as α + β E_{k-1} + γ E_k.
  __device__ __forceinline__ void first_row(T* alpha, T* beta, T* gamma) const {
    T a = dp[L - 2];
    T b = gp[L - 2];
    T g = negate(cp[L - 2]);
#pragma unroll
    for (int k = L - 3; k >= 0; --k) {
      a = mul_sub(dp[k], cp[k], a);
      b = mul_sub(gp[k], cp[k], b);
      g = negate(mul(cp[k], g));
    }
    *alpha = a;
    *beta = b;
    *gamma = g;
  }

  // The separator row's equation without the next chunk's terms: lower E_{k-1} + diag E_k + c x_{e+1} = rhs.
  __device__ __forceinline__ void partial_row(T* lower, T* diag, T* rhs) const {
    const T a = separator.a;
    *lower = mul(a, gp[L - 2]);
    *diag = mul_sub(separator.b, a, cp[L - 2]);  // b + a γ^last, γ^last = -c'
    *rhs = mul_sub(separator.d, a, dp[L - 2]);
  }

  template <class Out>
  __device__ __forceinline__ void finish(const Out& out, long long system, long long first, T left, T right) const {
    if (first + L - 1 < rows) out.store(system, first + L - 1, right);
    T next = right;
#pragma unroll
    for (int k = L - 2; k >= 0; --k) {
      next = mul_sub(dp[k], cp[k], next);
      next = mul_sub(next, negate(gp[k]), left);
      if (first + k < rows) out.store(system, first + k, next);
    }
  }
};

// Block-local solve. The block owns `systems` systems (kLanes: consecutive threads own consecutive
// systems, the interleaved layout's coalescing; otherwise consecutive threads own consecutive
// chunks of one system, the strided layout's), each in `chunks` (a power of two) chunks.
// Tuning knobs (compile-time): the largest block of the block-local solve, and the blocks per
// multiprocessor the register budget aims at.
#ifndef IDGPU_PARTITION_BLOCK_THREADS
#define IDGPU_PARTITION_BLOCK_THREADS 512
#endif
#ifndef IDGPU_PARTITION_BLOCK_MIN
#define IDGPU_PARTITION_BLOCK_MIN 1
#endif
#ifndef IDGPU_PARTITION_LEVEL_MIN
#define IDGPU_PARTITION_LEVEL_MIN 1
#endif
constexpr int kMaxBlockThreads = IDGPU_PARTITION_BLOCK_THREADS;
constexpr int kLevelThreads = 256;

template <class T, int L, bool kLanes, class Source, class Out>
__global__ void __launch_bounds__(kMaxBlockThreads, IDGPU_PARTITION_BLOCK_MIN) block_kernel(Source source, Out out, long long batch, int systems, int chunks_log2) {
  extern __shared__ unsigned char shared_bytes[];
  const int threads = blockDim.x;
  T* sa = reinterpret_cast<T*>(shared_bytes);
  T* sb = sa + threads;
  T* sc = sb + threads;
  T* sd = sc + threads;
  T* s_alpha = sd + threads;
  T* s_beta = s_alpha + threads;
  T* s_gamma = s_beta + threads;
  const int chunks = 1 << chunks_log2;
  const int t = threadIdx.x;
  const int slot = kLanes ? t % systems : t >> chunks_log2;
  const int chunk = kLanes ? t / systems : t & (chunks - 1);
  // Shared-memory row, laid out like the threads so that a warp's accesses are conflict-free:
  // [chunk][system] in the interleaved mapping, [system][chunk] in the strided one.
  const int pitch = kLanes ? systems : 1;  // distance between a system's consecutive chunks
  const int me = kLanes ? chunk * systems + slot : slot * chunks + chunk;
  const long long system = static_cast<long long>(blockIdx.x) * systems + slot;
  const bool active = system < batch;
  const long long first = static_cast<long long>(chunk) * L;

  Chunk<T, L> work;
  work.sweep(source, system, first, active);
  work.first_row(&s_alpha[me], &s_beta[me], &s_gamma[me]);
  __syncthreads();
  T lower, diag, rhs;
  work.partial_row(&lower, &diag, &rhs);
  T upper = zero<T>();
  if (chunk + 1 < chunks) {
    const T c = work.separator.c;
    diag = mul_sub(diag, negate(c), s_beta[me + pitch]);
    upper = mul(c, s_gamma[me + pitch]);
    rhs = mul_sub(rhs, c, s_alpha[me + pitch]);
  }
  // Parallel cyclic reduction over the separators.
  for (int step = 1; step < chunks; step <<= 1) {
    sa[me] = lower;
    sb[me] = diag;
    sc[me] = upper;
    sd[me] = rhs;
    __syncthreads();
    T new_lower = zero<T>();
    T new_upper = zero<T>();
    if (chunk >= step) {
      const int o = me - step * pitch;
      const T f = divide(lower, sb[o]);
      diag = mul_sub(diag, f, sc[o]);
      rhs = mul_sub(rhs, f, sd[o]);
      new_lower = negate(mul(f, sa[o]));
    }
    if (chunk + step < chunks) {
      const int o = me + step * pitch;
      const T f = divide(upper, sb[o]);
      diag = mul_sub(diag, f, sa[o]);
      rhs = mul_sub(rhs, f, sd[o]);
      new_upper = negate(mul(f, sc[o]));
    }
    lower = new_lower;
    upper = new_upper;
    __syncthreads();
  }
  const T mine = divide(rhs, diag);
  sd[me] = mine;
  __syncthreads();
  const T left = chunk > 0 ? sd[me - pitch] : zero<T>();
  if (active) work.finish(out, system, first, left, mine);
}

// Multi-block levels: one thread per chunk, threads ordered for coalescing (kLanes: system fastest).
template <bool kLanes>
__device__ __forceinline__ void chunk_of(long long thread, long long batch, long long chunks, long long* system,
                                         long long* chunk) {
  if (kLanes) {
    *system = thread % batch;
    *chunk = thread / batch;
  } else {
    *system = thread / chunks;
    *chunk = thread % chunks;
  }
}

template <class T, int L, bool kLanes, class Source>
__global__ void __launch_bounds__(kLevelThreads, IDGPU_PARTITION_LEVEL_MIN) reduce_kernel(Source source, Reduced<T> level, Indexing level_index, long long batch,
                              long long chunks) {
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (thread >= batch * chunks) return;
  long long system, chunk;
  chunk_of<kLanes>(thread, batch, chunks, &system, &chunk);
  Chunk<T, L> work;
  work.sweep(source, system, chunk * L, true);
  const long long at = level_index.at(system, chunk);
  T lower, diag, rhs;
  work.partial_row(&lower, &diag, &rhs);
  level.lower[at] = lower;
  level.diag[at] = diag;
  level.rhs[at] = rhs;
  level.upper[at] = work.separator.c;
  T alpha, beta, gamma;
  work.first_row(&alpha, &beta, &gamma);
  level.alpha[at] = alpha;
  level.beta[at] = beta;
  level.gamma[at] = gamma;
}

template <class T, int L, bool kLanes, class Source, class Out>
__global__ void __launch_bounds__(kLevelThreads, IDGPU_PARTITION_LEVEL_MIN) finish_kernel(Source source, Out out, const T* __restrict__ separators, Indexing level_index,
                              long long batch, long long chunks) {
  // Blocks in the reverse order of the reduce kernel's, so that the first rows re-read are the ones
  // it read last, which the L2 may still hold.
  const long long block = static_cast<long long>(gridDim.x) - 1 - blockIdx.x;
  const long long thread = block * blockDim.x + threadIdx.x;
  if (thread >= batch * chunks) return;
  long long system, chunk;
  chunk_of<kLanes>(thread, batch, chunks, &system, &chunk);
  Chunk<T, L> work;
  work.sweep(source, system, chunk * L, true);
  const T right = separators[level_index.at(system, chunk)];
  const T left = chunk > 0 ? separators[level_index.at(system, chunk - 1)] : zero<T>();
  work.finish(out, system, chunk * L, left, right);
}

constexpr int kLaneSystems = 32;
constexpr int kMinBlockThreads = 128;

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

int log2_ceil(long long v) {
  int log = 0;
  while ((1LL << log) < v) ++log;
  return log;
}

// How a block covers systems of m rows: `chunks` (log2) per system and `systems` per block; false
// when a system does not fit one block.
// How a block covers systems of m rows: `chunks` (log2) per system and `systems` per block; false
// when a system does not fit one block. In the interleaved mapping a warp's lanes are 32 systems
// (one 128-byte line per row) where that fits, else as few as fill one 32-byte sector per row.
bool block_shape(long long m, int rows_per_chunk, bool lanes, int element_bytes, int* chunks_log2, int* systems) {
  const int log = log2_ceil(std::max<long long>(1, ceil_div(m, rows_per_chunk)));
  const int chunks = 1 << log;
  if (chunks > kMaxBlockThreads) return false;
  *chunks_log2 = log;
  if (!lanes) {
    *systems = std::max(1, kMinBlockThreads / chunks);  // short systems: several per block
    return true;
  }
  if (chunks * kLaneSystems <= kMaxBlockThreads) {
    *systems = std::max(kLaneSystems, kMinBlockThreads / chunks / kLaneSystems * kLaneSystems);
    return true;
  }
  const int sector_systems = std::max(1, 32 / element_bytes);
  *systems = kMaxBlockThreads / chunks;
  return *systems >= sector_systems;
}

// The levels of a solve: level 0 is the caller's m; each level that does not fit a block is
// reduced to ceil(m/L) rows for the next.
struct LevelPlan {
  int levels = 0;  // reduced levels (0: one block-local pass)
  long long rows[8] = {};
};

LevelPlan plan_levels(long long m, int rows_per_chunk, bool lanes, int element_bytes) {
  LevelPlan plan;
  long long rows = m;
  int chunks_log2 = 0;
  int systems = 0;
  while (!block_shape(rows, rows_per_chunk, lanes, element_bytes, &chunks_log2, &systems) && plan.levels < 7) {
    rows = ceil_div(rows, rows_per_chunk);
    plan.rows[plan.levels++] = rows;
  }
  return plan;
}

// Eight arrays per reduced level: seven for the reduce kernel's rows and the separators solved.
constexpr int kLevelArrays = 8;

std::size_t level_bytes(const LevelPlan& plan, long long batch, std::size_t element) {
  std::size_t bytes = 0;
  for (int level = 0; level < plan.levels; ++level) {
    bytes += kLevelArrays * static_cast<std::size_t>(plan.rows[level]) * static_cast<std::size_t>(batch) * element;
  }
  return bytes;
}

template <class Kernel>
cudaError_t allow_shared(Kernel kernel, std::size_t bytes) {
  if (bytes <= 48 * 1024) return cudaSuccess;
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
}

template <class T, int L, bool kLanes, class Source, class Out>
cudaError_t launch_block(const Source& source, const Out& out, long long batch, cudaStream_t stream) {
  int chunks_log2 = 0;
  int systems = 0;
  block_shape(source.m, L, kLanes, sizeof(T), &chunks_log2, &systems);
  const int threads = systems << chunks_log2;
  const std::size_t shared = 7 * static_cast<std::size_t>(threads) * sizeof(T);
  auto kernel = block_kernel<T, L, kLanes, Source, Out>;
  if (const cudaError_t status = allow_shared(kernel, shared); status != cudaSuccess) return status;
  const long long blocks = ceil_div(batch, systems);
  kernel<<<static_cast<unsigned>(blocks), threads, shared, stream>>>(source, out, batch, systems, chunks_log2);
  return cudaGetLastError();
}

Indexing level_indexing(bool lanes, long long rows, long long batch) {
  return lanes ? Indexing{1, batch} : Indexing{rows, 1};
}

// Solves `source` (level `level` of `plan`) into `out`, recursing through the reduced levels.
template <class T, int L, bool kLanes, class Source, class Out>
cudaError_t solve_level(const Source& source, const Out& out, long long batch, const LevelPlan& plan, int level,
                        unsigned char* scratch, cudaStream_t stream) {
  if (level == plan.levels) return launch_block<T, L, kLanes>(source, out, batch, stream);
  const long long rows = plan.rows[level];
  const std::size_t count = static_cast<std::size_t>(rows) * static_cast<std::size_t>(batch);
  T* arrays = reinterpret_cast<T*>(scratch);
  const Reduced<T> reduced{arrays, arrays + count, arrays + 2 * count, arrays + 3 * count,
                           arrays + 4 * count, arrays + 5 * count, arrays + 6 * count};
  T* separators = arrays + 7 * count;
  unsigned char* rest = scratch + kLevelArrays * count * sizeof(T);
  const Indexing index = level_indexing(kLanes, rows, batch);
  const long long threads = batch * rows;
  const unsigned blocks = static_cast<unsigned>(ceil_div(threads, kLevelThreads));
  reduce_kernel<T, L, kLanes><<<blocks, kLevelThreads, 0, stream>>>(source, reduced, index, batch, rows);
  if (const cudaError_t status = cudaGetLastError(); status != cudaSuccess) return status;
  const ReducedSource<T> next{reduced, index, rows};
  const Sink<T> separator_out{separators, index};
  if (const cudaError_t status =
          solve_level<T, L, kLanes>(next, separator_out, batch, plan, level + 1, rest, stream);
      status != cudaSuccess) {
    return status;
  }
  finish_kernel<T, L, kLanes><<<blocks, kLevelThreads, 0, stream>>>(source, out, separators, index, batch, rows);
  return cudaGetLastError();
}

// Where the matrix and the right-hand sides live: per system in both batched layouts; one matrix
// for all columns (matrix_step 0) in gtsv2_nopivot.
struct Layouts {
  bool interleaved;
  Indexing matrix;
  Indexing rhs;
};

template <class T, int L>
cudaError_t solve_with(int m, int batch, const Layouts& layouts, const int* sizes, const T* dl, const T* d,
                       const T* du, T* x, void* buffer, cudaStream_t stream) {
  const LevelPlan plan = plan_levels(m, L, layouts.interleaved, sizeof(T));
  auto* scratch = static_cast<unsigned char*>(buffer);
  const ArraySource<T> source{dl, d, du, x, layouts.matrix, layouts.rhs, m, sizes};
  const Sink<T> out{x, layouts.rhs};
  if (layouts.interleaved) return solve_level<T, L, true>(source, out, batch, plan, 0, scratch, stream);
  return solve_level<T, L, false>(source, out, batch, plan, 0, scratch, stream);
}

template <class T>
cudaError_t solve_rows(int m, int batch, const Layouts& layouts, const int* sizes, const T* dl, const T* d,
                       const T* du, T* x, void* buffer, cudaStream_t stream);

// IDGPU_PARTITION_ROWS (a tuning aid): forces the rows per chunk, 2, 4, 8 or 16 (16-byte elements
// stop at 8).
int forced_rows() {
  static const int forced = [] {
    const char* value = std::getenv("IDGPU_PARTITION_ROWS");
    const int rows = value != nullptr ? std::atoi(value) : 0;
    return rows == 2 || rows == 4 || rows == 8 || rows == 16 ? rows : 0;
  }();
  return forced;
}

}  // namespace

// The chunk lengths compiled per element size (longer chunks would spill at 512 threads a block).
int clamp_rows(int rows, int element_bytes) {
  const int longest = element_bytes >= 16 ? 4 : element_bytes >= 8 ? 8 : 16;
  return std::min(rows, longest);
}

int partition_rows(int m, bool interleaved, int element_bytes) {
  if (const int forced = forced_rows(); forced != 0) return clamp_rows(forced, element_bytes);
  // Measured on an H100 (idgpu-bench, 2^24 unknowns): short chunks keep the registers low enough
  // for two blocks per multiprocessor where a block holds the whole system; longer chunks let one
  // block hold longer systems and shrink the reduced levels.
  if (interleaved) return clamp_rows(element_bytes <= 4 && m > 256 ? 16 : 8, element_bytes);
  return clamp_rows(m <= 512 ? 4 : 8, element_bytes);
}

std::size_t partition_buffer_bytes(int m, int batch, bool interleaved, int element_bytes) {
  const LevelPlan plan = plan_levels(m, partition_rows(m, interleaved, element_bytes), interleaved, element_bytes);
  return level_bytes(plan, batch, static_cast<std::size_t>(element_bytes));
}

template <class T>
cudaError_t partition_solve(int m, int batch, int stride, bool interleaved, const T* dl, const T* d, const T* du,
                            T* x, void* buffer, cudaStream_t stream) {
  const Indexing index = interleaved ? Indexing{1, batch} : Indexing{stride, 1};
  return solve_rows<T>(m, batch, Layouts{interleaved, index, index}, nullptr, dl, d, du, x, buffer, stream);
}

template <class T>
cudaError_t partition_solve_columns(int m, int n, int ldb, const T* dl, const T* d, const T* du, T* B, void* buffer,
                                    cudaStream_t stream) {
  const Layouts layouts{false, Indexing{0, 1}, Indexing{ldb, 1}};
  return solve_rows<T>(m, n, layouts, nullptr, dl, d, du, B, buffer, stream);
}

template <class T>
cudaError_t partition_solve_var(int max_m, int batch, const int* sizes, const T* dl, const T* d, const T* du, T* x,
                                cudaStream_t stream) {
  const std::size_t bytes = partition_buffer_bytes(max_m, batch, true, sizeof(T));
  void* scratch = nullptr;
  if (bytes > 0) {
    // Stream-ordered, so that the call stays asynchronous and capturable.
    if (const cudaError_t status = cudaMallocAsync(&scratch, bytes, stream); status != cudaSuccess) return status;
  }
  const Indexing index{1, batch};
  const cudaError_t solved =
      solve_rows<T>(max_m, batch, Layouts{true, index, index}, sizes, dl, d, du, x, scratch, stream);
  if (scratch != nullptr) {
    const cudaError_t freed = cudaFreeAsync(scratch, stream);
    if (solved == cudaSuccess) return freed;
  }
  return solved;
}

namespace {

template <class T>
cudaError_t solve_rows(int m, int batch, const Layouts& layouts, const int* sizes, const T* dl, const T* d,
                       const T* du, T* x, void* buffer, cudaStream_t stream) {
  switch (partition_rows(m, layouts.interleaved, sizeof(T))) {
    case 2:
      return solve_with<T, 2>(m, batch, layouts, sizes, dl, d, du, x, buffer, stream);
    case 4:
      return solve_with<T, 4>(m, batch, layouts, sizes, dl, d, du, x, buffer, stream);
    case 8:
      if constexpr (sizeof(T) <= 8) {
        return solve_with<T, 8>(m, batch, layouts, sizes, dl, d, du, x, buffer, stream);
      }
      break;
    case 16:
      if constexpr (sizeof(T) <= 4) {
        return solve_with<T, 16>(m, batch, layouts, sizes, dl, d, du, x, buffer, stream);
      }
      break;
    default:
      break;
  }
  return cudaErrorInvalidValue;
}

}  // namespace

#define IDGPU_INSTANTIATE_(T)                                                                                  \
  template cudaError_t partition_solve<T>(int, int, int, bool, const T*, const T*, const T*, T*, void*, \
                                          cudaStream_t);                                                  \
  template cudaError_t partition_solve_var<T>(int, int, const int*, const T*, const T*, const T*, T*, cudaStream_t); \
  template cudaError_t partition_solve_columns<T>(int, int, int, const T*, const T*, const T*, T*, void*, cudaStream_t);
IDGPU_INSTANTIATE_(float)
IDGPU_INSTANTIATE_(double)
IDGPU_INSTANTIATE_(cuComplex)
IDGPU_INSTANTIATE_(cuDoubleComplex)
#undef IDGPU_INSTANTIATE_

}  // namespace idgpu::tridiag::kernels
