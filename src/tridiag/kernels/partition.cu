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
// Longer systems are cut into tiles of one block each (block_kernel's Mode): a reduce launch turns
// every tile into one row of a reduced system in the tiles' last rows (seven values per tile in
// pBuffer), that system is solved the same way, recursively, and a finish launch re-reads the tile,
// repeats the sweep and the cyclic reduction with the two tile separators known, and
// back-substitutes. A thread's contiguous rows (strided batches, gtsv2_nopivot) move as 16-byte
// vectors where aligned; the interleaved layout is coalesced across a warp's systems.
//
// Bytes moved: one read of dl, d, du, x and one write of x where a block holds the system (H100,
// 2^24 unknowns: 0.51-0.99 of copy bandwidth up to m = 4096 strided, 0.69-1.00 up to 512
// interleaved); two reads and one write beyond, 5/9 of copy bandwidth at most (0.47-0.55 at
// m = 65536, gtsv2_nopivot f32 0.49 at m = 2^24 and 0.56 at 2^26), except where a system's tiles
// are resident at once: every tile of the call (Mode::kResident: one read, one cooperative
// launch; gtsv2_nopivot f32 m = 2^20 in 0.021 ms, 5.3x the vendor, H100) or those of one system
// or group of interleaved systems at a time (Mode::kStream: strided f32 m = 65536 0.65 of copy
// bandwidth, f64 0.60; interleaved m = 4096 f32 0.57, f64 0.645).
// Measurements and their commands: src/tridiag/tuning.cpp.
//
// Rows of a system beyond m are identity rows (never read nor written); dl of row 0 and du of row
// m-1 are never read, as in cuSPARSE.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <cooperative_groups.h>

#include "core/config.h"
#include "core/device.h"
#include "core/launch.h"
#include "core/scratch.h"
#include "tridiag/kernels/kernels.h"
#include "tridiag/kernels/scalar.cuh"
#include "tridiag/kernels/vector16.cuh"

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
  // Rows contiguous (row_step 1) and every chunk's first element 16-byte aligned in all four
  // arrays: chunks away from a system's ends load as vectors (set on the host for the kernel's L).
  bool vectors;
  __device__ __forceinline__ long long rows(long long system) const {
    if (sizes == nullptr) return m;
    const int own = sizes[system];
    return own >= 1 && own <= m ? own : 0;
  }
  __device__ __forceinline__ Row<T> load(long long system, long long row, long long rows) const {
    const long long at = index.at(system, row);
    return {row > 0 ? dl[at] : zero<T>(), d[at], row + 1 < rows ? du[at] : zero<T>(), x[rhs_index.at(system, row)]};
  }
  // Rows first..first+L-1 at once where none is the system's first or last (whose dl / du are
  // not read); false where the caller must load row by row.
  template <int L>
  __device__ __forceinline__ bool load_chunk(long long system, long long first, long long rows,
                                             Row<T> (&loaded)[L]) const {
    if (!vectors || first == 0 || first + L >= rows) return false;
    const long long at = index.at(system, first);
    T a[L], b[L], c[L], r[L];
    load_vectors(dl + at, a);
    load_vectors(d + at, b);
    load_vectors(du + at, c);
    load_vectors(x + rhs_index.at(system, first), r);
#pragma unroll
    for (int k = 0; k < L; ++k) loaded[k] = {a[k], b[k], c[k], r[k]};
    return true;
  }
};

// ShiftedSystems (kernels.h): the coefficients from the row and the system's diagonal, the
// right-hand side from x; the pinned system's row 0 an identity row with rhs 0.
template <class T>
struct ShiftedSource {
  using R = typename ScalarTraits<T>::Real;
  const T* x;
  long long batch;
  long long m;
  R off, first_upper, last_lower;
  const R* __restrict__ diagonal;
  long long pinned;
  const T* __restrict__ shift;
  __device__ __forceinline__ long long rows(long long) const { return m; }
  template <int L>
  __device__ __forceinline__ bool load_chunk(long long, long long, long long, Row<T> (&)[L]) const {
    return false;
  }
  __device__ __forceinline__ Row<T> load(long long system, long long row, long long rows) const {
    T rhs = x[row * batch + system];
    if (system == pinned) {
      if (row == 0) return {zero<T>(), from_real<T>(R(1)), zero<T>(), zero<T>()};
      rhs = sub(rhs, *shift);
    }
    const R a = row == 0 ? R(0) : row + 1 == rows ? last_lower : off;
    const R c = row + 1 == rows ? R(0) : row == 0 ? first_upper : off;
    return {from_real<T>(a), from_real<T>(__ldg(&diagonal[system])), from_real<T>(c), rhs};
  }
};

template <class T>
struct ScaledSink {
  T* out;
  long long batch;
  T scale;
  __device__ __forceinline__ void store(long long system, long long row, T value) const {
    out[row * batch + system] = mul(value, scale);
  }
  template <int L>
  __device__ __forceinline__ bool store_chunk(long long, long long, long long, const T (&)[L]) const {
    return false;
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
  template <int L>
  __device__ __forceinline__ bool load_chunk(long long, long long, long long, Row<T> (&)[L]) const {
    return false;
  }
  // Through the L2 (ld.global.cg): Mode::kStream reads rows that other blocks of the same launch
  // wrote, in lines that a block of a neighbouring system may have brought into this SM's L1.
  __device__ __forceinline__ Row<T> load(long long system, long long row, long long) const {
    const long long at = index.at(system, row);
    Row<T> r{__ldcg(level.lower + at), __ldcg(level.diag + at), zero<T>(), __ldcg(level.rhs + at)};
    if (row + 1 < m) {
      const long long next = index.at(system, row + 1);
      const T c = __ldcg(level.upper + at);
      r.b = mul_sub(r.b, negate(c), __ldcg(level.beta + next));
      r.c = mul(c, __ldcg(level.gamma + next));
      r.d = mul_sub(r.d, c, __ldcg(level.alpha + next));
    }
    return r;
  }
};

template <class T>
struct Sink {
  T* out;
  Indexing index;
  bool vectors = false;  // as ArraySource::vectors
  // Where set and nonzero when a launch starts, the launches that write `out` return at once (and
  // the ones before them wrote nothing the caller sees): gtsv2 solves here only where its matrix
  // turned out diagonally dominant (pivoting_solve).
  const int* skip = nullptr;
  __device__ __forceinline__ void store(long long system, long long row, T value) const {
    out[index.at(system, row)] = value;
  }
  template <int L>
  __device__ __forceinline__ bool store_chunk(long long system, long long first, long long rows,
                                              const T (&values)[L]) const {
    if (!vectors || first + L > rows) return false;
    store_vectors(out + index.at(system, first), values);
    return true;
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
    if (!source.load_chunk(system, first, rows, loaded)) {
#pragma unroll
      for (int k = 0; k < L; ++k) {
        loaded[k] = first + k < rows ? source.load(system, first + k, rows) : identity_row<T>();
      }
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
    T values[L];
    values[L - 1] = right;
#pragma unroll
    for (int k = L - 2; k >= 0; --k) {
      const T next = mul_sub(dp[k], cp[k], values[k + 1]);
      values[k] = mul_sub(next, negate(gp[k]), left);
    }
    if (out.store_chunk(system, first, rows, values)) return;
#pragma unroll
    for (int k = 0; k < L; ++k) {
      if (first + k < rows) out.store(system, first + k, values[k]);
    }
  }
};

// What a launch of block_kernel does with its tile of rows (a tile is `chunks` chunks of each of
// the block's systems):
//   kSolve   the tile is the whole system: the separators by cyclic reduction, then every chunk
//            back-substitutes.
//   kReduce  a tile of a longer system: its rows are reduced to one row of the next level in the
//            tiles' separators (the last row of each tile), as the chunks were reduced to their
//            separators. The tile's inner separators S_0..S_{C-2} solve a tridiagonal system whose
//            first row also holds the previous tile's separator E_{t-1} and whose last the tile's
//            own, E_t; cyclic reduction with two more right-hand sides gives each as
//            S_j = p_j + q_j E_{t-1} + r_j E_t. Substituted into the tile's first interior row and
//            into its separator row, that leaves the seven values of a reduced row (Reduced).
//   kFinish  the same tile once E_{t-1} and E_t are known: the inner separators by cyclic
//            reduction with E_{t-1} moved to the right-hand side and E_t as an identity row, then
//            back substitution.
//   kResident all three in one cooperative launch whose blocks are all resident at once (strided
//            layouts, a reduced level of at most one block's rows): kReduce, a grid barrier, the
//            system's reduced level solved by cyclic reduction in every block of the system (it
//            is short and in the L2), and the back substitution from the registers kReduce left,
//            with S_j = p_j + q_j E_{t-1} + r_j E_t. dl, d, du and x are then read once, as where
//            a block holds the system.
//   kStream  kResident for a batch whose tiles do not all fit the GPU at once: the barrier waits
//            for the tiles of the block's own system only. Blocks take tiles by ticket (an atomic
//            counter), a system's tiles consecutively; a tile whose reduced row is written adds
//            one to its system's counter (a barrier, then red.release.gpu) and waits until that
//            counter reaches the system's tile count (one thread spins on ld.acquire.gpu, then a
//            barrier). Only the newest system in ticket order can have tiles not yet started, and
//            every tile of an older one has started, so the kernel cannot deadlock while the GPU
//            holds a system's tiles at once (checked on the host, with a margin of two).
//            Interleaved batches stream the same way a group of systems a block (kLanes): the
//            group's tiles consecutive tickets, one counter a group, every block solving the
//            group's reduced levels side by side.
//   kCluster kResident for interleaved systems that a thread-block cluster holds (up to 8 blocks
//            of 32 systems, so that each row of the layout is read as a 128-byte f32 line where
//            one block would read 32 bytes of it): one block a tile, the tiles' reduced rows in
//            shared memory, a cluster barrier, every block reads its systems' reduced level from
//            the cluster's blocks (distributed shared memory), a second cluster barrier, cyclic
//            reduction, and the back substitution from registers.
// So a long system costs two reads of dl, d, du, x and one write of x, plus seven values per tile
// (7 per 1024 rows in the strided f32 layout) for each level of reduced rows; one read where a
// system's tiles fit the GPU at once (kResident, kStream).
enum class Mode { kSolve, kReduce, kFinish, kResident, kStream, kCluster };

__device__ __forceinline__ unsigned load_acquire(const unsigned* counter) {
  unsigned value = 0;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(value) : "l"(counter) : "memory");
  return value;
}

// Tuning knobs (compile-time): the largest block of the block-local solve, and the blocks per
// multiprocessor the register budget aims at.
#ifndef IDGPU_PARTITION_BLOCK_THREADS
#define IDGPU_PARTITION_BLOCK_THREADS 512
#endif
#ifndef IDGPU_PARTITION_BLOCK_MIN
#define IDGPU_PARTITION_BLOCK_MIN 1
#endif
constexpr int kMaxBlockThreads = IDGPU_PARTITION_BLOCK_THREADS;

// A launch's geometry: the block owns `systems` systems (kLanes: consecutive threads own
// consecutive systems, the interleaved layout's coalescing; otherwise consecutive threads own
// consecutive chunks of one system), each cut into `tiles` tiles of 2^chunks_log2 chunks.
struct TileGrid {
  long long batch;
  int systems;
  int chunks_log2;
  long long tiles;  // per system; 1 for kSolve
};

// The reduced level a kReduce launch writes and the separators a kFinish launch reads.
template <class T>
struct LevelLink {
  Reduced<T> level;
  Indexing index;
  const T* separators;
};

// The held modes' middle step (kResident, kStream, kCluster), done by every block for its own
// systems: a reduced level of `rows` rows a system (at most a block's chunks), this thread's row
// `pos` (identity past the end) at shared position me = pos * pitch + its lane, solved by parallel
// cyclic reduction over the next power of two; the separator E_pos lands in separators[me]. (The
// reduced level is short and, outside kCluster, in the L2: every block repeating it costs less
// than a second barrier and a block's wait for one solver.)
template <class T>
__device__ void pcr_reduced(Row<T> row, int pos, int me, int pitch, long long rows, T* sa, T* sb, T* sc, T* sd,
                            T* separators) {
  T lower = row.a, diag = row.b, upper = row.c, rhs = row.d;
  int span = 1;
  while (span < rows) span <<= 1;
  for (int step = 1; step < span; step <<= 1) {
    if (pos < span) {
      sa[me] = lower;
      sb[me] = reciprocal(diag);  // see block_body's cyclic reduction
      sc[me] = upper;
      sd[me] = rhs;
    }
    __syncthreads();
    if (pos < span) {
      T new_lower = zero<T>();
      T new_upper = zero<T>();
      if (pos >= step) {
        const int o = me - step * pitch;
        const T f = mul(lower, sb[o]);
        diag = mul_sub(diag, f, sc[o]);
        rhs = mul_sub(rhs, f, sd[o]);
        new_lower = negate(mul(f, sa[o]));
      }
      if (pos + step < span) {
        const int o = me + step * pitch;
        const T f = mul(upper, sb[o]);
        diag = mul_sub(diag, f, sa[o]);
        rhs = mul_sub(rhs, f, sd[o]);
        new_upper = negate(mul(f, sc[o]));
      }
      lower = new_lower;
      upper = new_upper;
    }
    __syncthreads();
  }
  if (pos < rows) separators[me] = mul(rhs, reciprocal(diag));
  __syncthreads();
}

// kResident and kStream: the block's systems' reduced levels from global memory, row `pos` of this
// thread's system (identity past the end, or where the system is past the batch) at shared
// position me; E_pos lands in separators[me].
template <class T>
__device__ void solve_reduced_rows(const LevelLink<T>& link, long long system, bool active, long long rows, int pos,
                                   int me, int pitch, T* sa, T* sb, T* sc, T* sd, T* separators) {
  const ReducedSource<T> source{link.level, link.index, rows};
  const Row<T> row = active && pos < rows ? source.load(system, pos, rows) : identity_row<T>();
  pcr_reduced(row, pos, me, pitch, rows, sa, sb, sc, sd, separators);
}

// Whether a launch writing `out` is to return at once (Sink::skip).
template <class Out>
__device__ __forceinline__ bool skipped(const Out&) {
  return false;
}
template <class T>
__device__ __forceinline__ bool skipped(const Sink<T>& out) {
  return out.skip != nullptr && *out.skip != 0;
}

// counters (kStream): the ticket, then one arrival counter per system, zero at launch.
template <class T, int L, bool kLanes, Mode kMode, class Source, class Out>
__device__ __forceinline__ void block_body(const Source& source, const Out& out, const TileGrid& grid,
                                           const LevelLink<T>& link, unsigned* counters = nullptr) {
  // Every block alike, before any barrier of the grid, the cluster or the stream's counters.
  if (skipped(out)) return;
  // Back-substitutes from registers after the reduced level is solved.
  constexpr bool kHeld = kMode == Mode::kResident || kMode == Mode::kStream || kMode == Mode::kCluster;
  static_assert(kMode != Mode::kResident || !kLanes, "kResident runs the strided mapping");
  static_assert(kMode != Mode::kCluster || kLanes, "kCluster runs the interleaved mapping");
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  constexpr bool kReduces = kMode == Mode::kReduce || kHeld;
  constexpr bool kColumns = kReduces;  // the q and r right-hand sides
  const int threads = blockDim.x;
  T* sa = reinterpret_cast<T*>(shared_bytes);
  T* sb = sa + threads;
  T* sc = sb + threads;
  T* sd = sc + threads;
  T* s_alpha = sd + threads;
  T* s_beta = s_alpha + threads;
  T* s_gamma = s_beta + threads;
  T* sq = s_gamma + threads;
  T* sr = sq + (kColumns ? threads : 0);
  T* s_reduced = sr + (kColumns ? threads : 0);  // kCluster: this tile's reduced rows, 7 x systems
  const int chunks = 1 << grid.chunks_log2;
  const int t = threadIdx.x;
  const int slot = kLanes ? t % grid.systems : t >> grid.chunks_log2;
  const int chunk = kLanes ? t / grid.systems : t & (chunks - 1);
  // Shared-memory row, laid out like the threads so that a warp's accesses are conflict-free:
  // [chunk][system] in the interleaved mapping, [system][chunk] in the strided one.
  const int pitch = kLanes ? grid.systems : 1;  // distance between a system's consecutive chunks
  const int me = kLanes ? chunk * grid.systems + slot : slot * chunks + chunk;
  // Blocks of one tile row are neighbours in memory order: systems fastest when interleaved,
  // tiles fastest when strided. kFinish runs the blocks in the reverse order of kReduce, so that
  // the first rows it re-reads are the ones kReduce read last, which the L2 may still hold.
  long long block =
      kMode == Mode::kFinish ? static_cast<long long>(gridDim.x) - 1 - blockIdx.x : static_cast<long long>(blockIdx.x);
  if constexpr (kMode == Mode::kStream) {
    __shared__ unsigned ticket;
    if (t == 0) ticket = atomicAdd(counters, 1u);
    __syncthreads();
    block = ticket;
  }
  const long long groups = (grid.batch + grid.systems - 1) / grid.systems;
  // A group's tiles are consecutive blocks in the strided mapping, in kCluster (a cluster is a
  // group, its blocks the group's tiles in rank order) and in kStream (consecutive tickets).
  constexpr bool kGroupMajor = !kLanes || kMode == Mode::kCluster || kMode == Mode::kStream;
  const long long group = kGroupMajor ? block / grid.tiles : block % groups;
  const long long tile = kGroupMajor ? block % grid.tiles : block / groups;
  const long long system = group * grid.systems + slot;
  const bool active = system < grid.batch;
  const int tile_rows = chunks * L;
  const long long tile_first = tile * tile_rows;
  const long long first = tile_first + static_cast<long long>(chunk) * L;

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
  [[maybe_unused]] T q = zero<T>();
  [[maybe_unused]] T r = zero<T>();
  [[maybe_unused]] T tile_lower = lower, tile_diag = diag, tile_rhs = rhs;  // kReduce: the tile's separator row
  [[maybe_unused]] T left_value = zero<T>(), right_value = zero<T>();       // kFinish: E_{t-1}, E_t
  if constexpr (kMode == Mode::kFinish) {
    if (active) {
      right_value = link.separators[link.index.at(system, tile)];
      if (tile > 0) left_value = link.separators[link.index.at(system, tile - 1)];
    }
  }
  if constexpr (kMode != Mode::kSolve) {
    // E_{t-1} leaves the first row for the right-hand side; the last chunk's separator is E_t.
    if (chunk == chunks - 1) {
      lower = zero<T>();
      diag = from_real<T>(typename ScalarTraits<T>::Real(1));
      rhs = kMode == Mode::kFinish ? right_value : zero<T>();
      if constexpr (kColumns) r = from_real<T>(typename ScalarTraits<T>::Real(1));
    } else if (chunk == 0) {
      if constexpr (kColumns) {
        q = negate(lower);
      } else {
        rhs = mul_sub(rhs, lower, left_value);
      }
      lower = zero<T>();
    }
  }
  // Parallel cyclic reduction over the separators. Each row publishes the reciprocal of its
  // diagonal, and its neighbours multiply their couplings by it: the couplings shrink towards zero
  // step by step (exactly zero near the ends), where IEEE division takes its slow path (measured:
  // a fifth of the one-launch kernel's instructions), and a diagonal never does.
  for (int step = 1; step < chunks; step <<= 1) {
    sa[me] = lower;
    sb[me] = reciprocal(diag);
    sc[me] = upper;
    sd[me] = rhs;
    if constexpr (kColumns) {
      sq[me] = q;
      sr[me] = r;
    }
    __syncthreads();
    T new_lower = zero<T>();
    T new_upper = zero<T>();
    if (chunk >= step) {
      const int o = me - step * pitch;
      const T f = mul(lower, sb[o]);
      diag = mul_sub(diag, f, sc[o]);
      rhs = mul_sub(rhs, f, sd[o]);
      if constexpr (kColumns) {
        q = mul_sub(q, f, sq[o]);
        r = mul_sub(r, f, sr[o]);
      }
      new_lower = negate(mul(f, sa[o]));
    }
    if (chunk + step < chunks) {
      const int o = me + step * pitch;
      const T f = mul(upper, sb[o]);
      diag = mul_sub(diag, f, sa[o]);
      rhs = mul_sub(rhs, f, sd[o]);
      if constexpr (kColumns) {
        q = mul_sub(q, f, sq[o]);
        r = mul_sub(r, f, sr[o]);
      }
      new_upper = negate(mul(f, sc[o]));
    }
    lower = new_lower;
    upper = new_upper;
    __syncthreads();
  }
  if constexpr (kReduces) {
    // S_j = p_j + q_j E_{t-1} + r_j E_t; the tile's first interior row is chunk 0's, its separator
    // row the last chunk's, each with the neighbouring inner separator substituted.
    const T inverse = reciprocal(diag);
    const T p_mine = mul(rhs, inverse);
    const T q_mine = mul(q, inverse);
    const T r_mine = mul(r, inverse);
    sd[me] = p_mine;
    sq[me] = q_mine;
    sr[me] = r_mine;
    __syncthreads();
    // The reduced row: in the level's arrays, or (kCluster) in this block's shared memory, where
    // the cluster's other blocks read it, every lane's (an inactive lane's is an identity row's).
    Reduced<T> level = link.level;
    long long at = link.index.at(system, tile);
    const bool writes = active || kMode == Mode::kCluster;
    if constexpr (kMode == Mode::kCluster) {
      const int n = grid.systems;
      level = {s_reduced, s_reduced + n, s_reduced + 2 * n, s_reduced + 3 * n,
               s_reduced + 4 * n, s_reduced + 5 * n, s_reduced + 6 * n};
      at = slot;
    }
    // (kResident has no inactive thread: one system a block, every block a tile of it.)
    if (writes && chunk == 0) {
      const T g = s_gamma[me];
      level.alpha[at] = mul_sub(s_alpha[me], negate(g), sd[me]);
      level.beta[at] = mul_sub(s_beta[me], negate(g), sq[me]);
      level.gamma[at] = mul(g, sr[me]);
    }
    if (writes && chunk == chunks - 1) {
      if (chunks > 1) {
        const int o = me - pitch;
        level.lower[at] = mul(tile_lower, sq[o]);
        level.diag[at] = mul_sub(tile_diag, negate(tile_lower), sr[o]);
        level.rhs[at] = mul_sub(tile_rhs, tile_lower, sd[o]);
      } else {
        level.lower[at] = tile_lower;
        level.diag[at] = tile_diag;
        level.rhs[at] = tile_rhs;
      }
      level.upper[at] = work.separator.c;
    }
    if constexpr (kHeld) {
      // Every tile's reduced row is written; each block solves its system's reduced level (into
      // s_beta, free again), then every chunk has its two separators and back-substitutes from
      // registers.
      if constexpr (kMode == Mode::kCluster) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
        // Row `chunk` of the reduced level of this thread's system is tile `chunk`'s, in block
        // `chunk` of the cluster, with the next tile's first interior row substituted (as
        // ReducedSource::load does). Both barriers are the cluster's: the rows written before
        // anyone reads them, and read before any block leaves.
        namespace cg = cooperative_groups;
        cg::cluster_group cluster = cg::this_cluster();
        cluster.sync();
        Row<T> row = identity_row<T>();
        const int n = grid.systems;
        if (chunk < grid.tiles) {
          const T* own = cluster.map_shared_rank(s_reduced, chunk);
          row = {own[slot], own[n + slot], zero<T>(), own[2 * n + slot]};
          if (chunk + 1 < grid.tiles) {
            const T* next = cluster.map_shared_rank(s_reduced, chunk + 1);
            const T c = own[3 * n + slot];
            row.b = mul_sub(row.b, negate(c), next[5 * n + slot]);
            row.c = mul(c, next[6 * n + slot]);
            row.d = mul_sub(row.d, c, next[4 * n + slot]);
          }
        }
        cluster.sync();
        pcr_reduced(row, chunk, me, pitch, grid.tiles, sa, sb, sc, s_alpha, s_beta);
#endif
      } else if constexpr (kMode == Mode::kResident) {
        cooperative_groups::this_grid().sync();
      } else {
        __syncthreads();  // every thread's stores of the reduced row are issued
        if (t == 0) {
          unsigned* arrived = counters + 1 + group;
          asm volatile("red.release.gpu.global.add.u32 [%0], 1;" : : "l"(arrived) : "memory");
          while (load_acquire(arrived) < grid.tiles) __nanosleep(64);
        }
        __syncthreads();
      }
      if constexpr (kMode != Mode::kCluster) {
        solve_reduced_rows(link, system, active, grid.tiles, chunk, me, pitch, sa, sb, sc, s_alpha, s_beta);
      }
      // E_t of this thread's system at t * pitch + its lane (strided: one system, lane 0).
      const int lane = kLanes ? slot : 0;
      const T tile_right = s_beta[tile * pitch + lane];
      const T tile_left = tile > 0 ? s_beta[(tile - 1) * pitch + lane] : zero<T>();
      const T mine = mul_sub(mul_sub(p_mine, negate(q_mine), tile_left), negate(r_mine), tile_right);
      sd[me] = mine;
      __syncthreads();
      const T left = chunk > 0 ? sd[me - pitch] : tile_left;
      if (active) work.finish(out, system, first, left, mine);
    }
  } else {
    const T mine = mul(rhs, reciprocal(diag));
    sd[me] = mine;
    __syncthreads();
    const T left = chunk > 0 ? sd[me - pitch] : left_value;
    if (active) work.finish(out, system, first, left, mine);
  }
}

template <class T, int L, bool kLanes, Mode kMode, class Source, class Out>
__global__ void __launch_bounds__(kMaxBlockThreads, IDGPU_PARTITION_BLOCK_MIN)
    block_kernel(Source source, Out out, TileGrid grid, LevelLink<T> link) {
  block_body<T, L, kLanes, kMode>(source, out, grid, link);
}

// Mode::kResident's kernel (its own name in profiles; the same register budget as block_kernel: at
// 8 rows a chunk and two blocks of 512 threads a multiprocessor, f32 spills and measured slower
// than 16 rows, 0.0286 against 0.0266 ms at m = 2^20 on an H100).
template <class T, int L>
__global__ void __launch_bounds__(kMaxBlockThreads, IDGPU_PARTITION_BLOCK_MIN)
    resident_kernel(ArraySource<T> source, Sink<T> out, TileGrid grid, LevelLink<T> link) {
  block_body<T, L, false, Mode::kResident>(source, out, grid, link);
}

// Mode::kCluster's kernel: one cluster a group of interleaved systems, one block a tile.
template <class T, int L, class Source, class Out>
__global__ void __launch_bounds__(kMaxBlockThreads, IDGPU_PARTITION_BLOCK_MIN)
    cluster_kernel(Source source, Out out, TileGrid grid) {
  block_body<T, L, true, Mode::kCluster>(source, out, grid, LevelLink<T>{});
}

// Mode::kStream's kernel: as resident_kernel, with the counters instead of the grid barrier; one
// system a block (strided) or a group of interleaved ones (kLanes).
// (Capping it at 80 or 64 registers spills f64: 0.44 / 0.37 of copy bandwidth against 0.60.)
template <class T, int L, bool kLanes>
__global__ void __launch_bounds__(kMaxBlockThreads, IDGPU_PARTITION_BLOCK_MIN)
    stream_kernel(ArraySource<T> source, Sink<T> out, TileGrid grid, LevelLink<T> link, unsigned* counters) {
  block_body<T, L, kLanes, Mode::kStream>(source, out, grid, link, counters);
}

// gtsv2_nopivot with several right-hand sides: one matrix, n columns of B. A block takes one tile
// (or the whole system) for a group of columns, and does the matrix's part of block_kernel once:
// the chunks' c', g' and pivots, the first rows' beta and gamma, the separator rows, the cyclic
// reduction's multipliers (kept per step) and, in kReduce, the q and r columns. Each column then
// costs only its right-hand side's part: d', alpha, the reduced right-hand side through the same
// multipliers, and the back substitution. The matrix is read once per block instead of once per
// column, and its elimination is shared by the block's columns.
template <class T>
struct ColumnArgs {
  const T* __restrict__ dl;
  const T* __restrict__ d;
  const T* __restrict__ du;
  T* b;
  long long ldb;
  long long m;
  int n;
  int group_columns;  // columns a block solves
  long long groups;   // blocks per tile
  int chunks_log2;
  long long tiles;  // per column (1: kSolve)
  bool vectors;     // as ArraySource::vectors
};

constexpr int kMaxPcrSteps = 8;  // log2(kColumnsMaxThreads)

// At most 256 threads a block, so that the matrix's state and the multipliers stay in registers.
constexpr int kColumnsMaxThreads = 256;

template <class T, int L, Mode kMode>
__global__ void __launch_bounds__(kColumnsMaxThreads, 1) columns_kernel(ColumnArgs<T> args, LevelLink<T> link) {
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  constexpr bool kColumns = kMode == Mode::kReduce;
  const int chunks = 1 << args.chunks_log2;
  const int t = threadIdx.x;  // the chunk
  T* s_beta = reinterpret_cast<T*>(shared_bytes);
  T* s_gamma = s_beta + chunks;
  T* sa = s_gamma + chunks;
  T* sb = sa + chunks;
  T* sc = sb + chunks;
  T* sq = sc + chunks;
  T* sr = sq + chunks;
  T* s_alpha = sr + chunks;
  T* s_rhs = s_alpha + chunks;
  const long long block =
      kMode == Mode::kFinish ? static_cast<long long>(gridDim.x) - 1 - blockIdx.x : static_cast<long long>(blockIdx.x);
  // The groups of one tile are neighbours, so that the L2 serves the matrix tile to all of them.
  const long long tile = block / args.groups;
  const long long group = block % args.groups;
  const long long m = args.m;
  const long long tile_first = tile * (static_cast<long long>(chunks) * L);
  const long long first = tile_first + static_cast<long long>(t) * L;
  const bool interior = args.vectors && first > 0 && first + L < m;

  // The matrix's part, once.
  T a[L], b[L], c[L];
  if (interior) {
    load_vectors(args.dl + first, a);
    load_vectors(args.d + first, b);
    load_vectors(args.du + first, c);
  } else {
#pragma unroll
    for (int k = 0; k < L; ++k) {
      const long long row = first + k;
      const Row<T> identity = identity_row<T>();
      a[k] = row < m && row > 0 ? args.dl[row] : identity.a;
      b[k] = row < m ? args.d[row] : identity.b;
      c[k] = row + 1 < m ? args.du[row] : identity.c;
    }
  }
  T cp[L - 1], gp[L - 1], pivot[L - 1];
  {
    T c_prev = zero<T>();
    T g_prev = from_real<T>(typename ScalarTraits<T>::Real(1));
#pragma unroll
    for (int k = 0; k < L - 1; ++k) {
      pivot[k] = reciprocal(mul_sub(b[k], a[k], c_prev));
      cp[k] = mul(c[k], pivot[k]);
      gp[k] = negate(mul(mul(a[k], g_prev), pivot[k]));
      c_prev = cp[k];
      g_prev = gp[k];
    }
  }
  {
    T beta = gp[L - 2];
    T gamma = negate(cp[L - 2]);
#pragma unroll
    for (int k = L - 3; k >= 0; --k) {
      beta = mul_sub(gp[k], cp[k], beta);
      gamma = negate(mul(cp[k], gamma));
    }
    s_beta[t] = beta;
    s_gamma[t] = gamma;
  }
  __syncthreads();
  const T sep_a = a[L - 1];
  const T sep_c = c[L - 1];
  T lower = mul(sep_a, gp[L - 2]);
  T diag = mul_sub(b[L - 1], sep_a, cp[L - 2]);
  T upper = zero<T>();
  if (t + 1 < chunks) {
    diag = mul_sub(diag, negate(sep_c), s_beta[t + 1]);
    upper = mul(sep_c, s_gamma[t + 1]);
  }
  [[maybe_unused]] const T tile_lower = lower, tile_diag = diag;
  const T first_lower = lower;  // chunk 0: the coupling to E_{t-1}
  T q = zero<T>();
  T r = zero<T>();
  if constexpr (kMode != Mode::kSolve) {
    if (t == chunks - 1) {
      lower = zero<T>();
      diag = from_real<T>(typename ScalarTraits<T>::Real(1));
      r = from_real<T>(typename ScalarTraits<T>::Real(1));
    } else if (t == 0) {
      q = negate(lower);
      lower = zero<T>();
    }
  }
  T f_lo[kMaxPcrSteps], f_hi[kMaxPcrSteps];
#pragma unroll
  for (int s = 0; s < kMaxPcrSteps; ++s) {
    const int step = 1 << s;
    f_lo[s] = zero<T>();
    f_hi[s] = zero<T>();
    if (step >= chunks) continue;
    sa[t] = lower;
    sb[t] = reciprocal(diag);  // see block_body's cyclic reduction
    sc[t] = upper;
    if constexpr (kColumns) {
      sq[t] = q;
      sr[t] = r;
    }
    __syncthreads();
    T new_lower = zero<T>();
    T new_upper = zero<T>();
    if (t >= step) {
      const int o = t - step;
      f_lo[s] = mul(lower, sb[o]);
      diag = mul_sub(diag, f_lo[s], sc[o]);
      if constexpr (kColumns) {
        q = mul_sub(q, f_lo[s], sq[o]);
        r = mul_sub(r, f_lo[s], sr[o]);
      }
      new_lower = negate(mul(f_lo[s], sa[o]));
    }
    if (t + step < chunks) {
      const int o = t + step;
      f_hi[s] = mul(upper, sb[o]);
      diag = mul_sub(diag, f_hi[s], sa[o]);
      if constexpr (kColumns) {
        q = mul_sub(q, f_hi[s], sq[o]);
        r = mul_sub(r, f_hi[s], sr[o]);
      }
      new_upper = negate(mul(f_hi[s], sc[o]));
    }
    lower = new_lower;
    upper = new_upper;
    __syncthreads();
  }
  const T inverse = reciprocal(diag);  // the reduced diagonal, shared by every column
  if constexpr (kColumns) {
    sq[t] = mul(q, inverse);
    sr[t] = mul(r, inverse);
    // read after the first column's barrier below
  }

  // Each column's right-hand side.
  const long long group_end = (group + 1) * args.group_columns;
  const long long column_end = group_end < args.n ? group_end : args.n;
  for (long long j = group * args.group_columns; j < column_end; ++j) {
    T* const x = args.b + j * args.ldb;
    T rows_x[L];
    if (interior) {
      load_vectors(x + first, rows_x);
    } else {
#pragma unroll
      for (int k = 0; k < L; ++k) rows_x[k] = first + k < m ? x[first + k] : zero<T>();
    }
    T dp[L - 1];
    T d_prev = zero<T>();
#pragma unroll
    for (int k = 0; k < L - 1; ++k) {
      dp[k] = mul(mul_sub(rows_x[k], a[k], d_prev), pivot[k]);
      d_prev = dp[k];
    }
    T alpha = dp[L - 2];
#pragma unroll
    for (int k = L - 3; k >= 0; --k) alpha = mul_sub(dp[k], cp[k], alpha);
    s_alpha[t] = alpha;
    __syncthreads();
    T rhs = mul_sub(rows_x[L - 1], sep_a, dp[L - 2]);
    if (t + 1 < chunks) rhs = mul_sub(rhs, sep_c, s_alpha[t + 1]);
    [[maybe_unused]] const T tile_rhs = rhs;
    [[maybe_unused]] T left_value = zero<T>();
    if constexpr (kMode != Mode::kSolve) {
      if constexpr (kMode == Mode::kFinish) {
        if (tile > 0) left_value = link.separators[link.index.at(j, tile - 1)];
      }
      if (t == chunks - 1) {
        rhs = kMode == Mode::kFinish ? link.separators[link.index.at(j, tile)] : zero<T>();
      } else if (t == 0 && kMode == Mode::kFinish) {
        rhs = mul_sub(rhs, first_lower, left_value);
      }
    }
#pragma unroll
    for (int s = 0; s < kMaxPcrSteps; ++s) {
      const int step = 1 << s;
      if (step >= chunks) continue;
      s_rhs[t] = rhs;
      __syncthreads();
      if (t >= step) rhs = mul_sub(rhs, f_lo[s], s_rhs[t - step]);
      if (t + step < chunks) rhs = mul_sub(rhs, f_hi[s], s_rhs[t + step]);
      __syncthreads();
    }
    const T mine = mul(rhs, inverse);
    s_rhs[t] = mine;
    __syncthreads();
    if constexpr (kMode == Mode::kReduce) {
      const long long at = link.index.at(j, tile);
      if (t == 0) {
        const T g = s_gamma[0];
        link.level.alpha[at] = mul_sub(alpha, negate(g), mine);
        link.level.beta[at] = mul_sub(s_beta[0], negate(g), sq[0]);
        link.level.gamma[at] = mul(g, sr[0]);
      }
      if (t == chunks - 1) {
        if (chunks > 1) {
          link.level.lower[at] = mul(tile_lower, sq[t - 1]);
          link.level.diag[at] = mul_sub(tile_diag, negate(tile_lower), sr[t - 1]);
          link.level.rhs[at] = mul_sub(tile_rhs, tile_lower, s_rhs[t - 1]);
        } else {
          link.level.lower[at] = tile_lower;
          link.level.diag[at] = tile_diag;
          link.level.rhs[at] = tile_rhs;
        }
        link.level.upper[at] = sep_c;
      }
    } else {
      const T left = t > 0 ? s_rhs[t - 1] : left_value;
      T values[L];
      values[L - 1] = mine;
#pragma unroll
      for (int k = L - 2; k >= 0; --k) {
        const T next = mul_sub(dp[k], cp[k], values[k + 1]);
        values[k] = mul_sub(next, negate(gp[k]), left);
      }
      if (args.vectors && first + L <= m) {
        store_vectors(x + first, values);
      } else {
#pragma unroll
        for (int k = 0; k < L; ++k) {
          if (first + k < m) x[first + k] = values[k];
        }
      }
    }
    __syncthreads();  // s_alpha and s_rhs are the next column's
  }
}

constexpr int kLaneSystems = 32;
constexpr int kMinBlockThreads = 128;
// Chunks of a tile. Measured on an H100 (idgpu-bench, f32, 2^24 unknowns; 16 rows a chunk
// strided): strided 64 (gtsv2_nopivot m = 2^24 0.46 of copy bandwidth; 32 0.46, 128 0.43, 256
// 0.36; at m = 2^20 64 is 10% faster than 32), interleaved 4 of 32 systems (m = 65536: 0.47; 2
// 0.44, 8 0.40, 16 0.34). Fewer chunks mean fewer cyclic reduction steps per row and more blocks
// per multiprocessor; the price, more reduced rows, is small. IDGPU_PARTITION_TILE_CHUNKS /
// IDGPU_PARTITION_LANE_CHUNKS (tuning aids) override them.
int tile_chunks(bool lanes) {
  static const int strided = [] {
    const int chunks = config().partition_tile_chunks;
    return chunks >= 2 && chunks <= kMaxBlockThreads && (chunks & (chunks - 1)) == 0 ? chunks : 64;
  }();
  static const int interleaved = [] {
    const int chunks = config().partition_lane_chunks;
    return chunks >= 1 && chunks <= kMaxBlockThreads / 32 && (chunks & (chunks - 1)) == 0 ? chunks : 4;
  }();
  return lanes ? interleaved : strided;
}

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

int log2_ceil(long long v) {
  int log = 0;
  while ((1LL << log) < v) ++log;
  return log;
}

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
  // (Measured, H100: blocks of 256 or 128 threads holding 16-byte pieces of each row instead,
  // two or four a multiprocessor, were slower: f32 m = 1000 0.41 / 0.45 of copy bandwidth against
  // 0.57.)
  const int sector_systems = std::max(1, 32 / element_bytes);
  *systems = kMaxBlockThreads / chunks;
  return *systems >= sector_systems;
}

// A level's launch shape: one block-local solve when a block holds the level's systems, else
// tiles (32 systems of tile_chunks(true) chunks interleaved, one system of tile_chunks(false)
// chunks strided)
// reduced to ceil(rows / tile rows) rows of the next level.
struct LevelShape {
  bool tiled = false;
  int chunks_log2 = 0;
  int systems = 0;
  long long tiles = 1;
};

LevelShape level_shape(long long rows, int rows_per_chunk, bool lanes, int element_bytes) {
  LevelShape shape;
  if (block_shape(rows, rows_per_chunk, lanes, element_bytes, &shape.chunks_log2, &shape.systems)) return shape;
  shape.tiled = true;
  shape.systems = lanes ? kLaneSystems : 1;
  shape.chunks_log2 = log2_ceil(tile_chunks(lanes));
  shape.tiles = ceil_div(rows, static_cast<long long>(rows_per_chunk) << shape.chunks_log2);
  return shape;
}

// The levels of a solve: level 0 is the caller's m; each tiled level is reduced to one row per
// tile for the next.
struct LevelPlan {
  int levels = 0;  // reduced levels (0: one block-local pass)
  long long rows[8] = {};
};

LevelPlan plan_levels(long long m, int rows_per_chunk, bool lanes, int element_bytes) {
  LevelPlan plan;
  long long rows = m;
  for (LevelShape shape = level_shape(rows, rows_per_chunk, lanes, element_bytes); shape.tiled && plan.levels < 7;
       shape = level_shape(rows, rows_per_chunk, lanes, element_bytes)) {
    rows = shape.tiles;
    plan.rows[plan.levels++] = rows;
  }
  return plan;
}

// Eight arrays per reduced level: seven for the reduced rows and the separators solved.
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

// Shared memory of a block_kernel launch: seven arrays of one value per thread, nine with q and r.
std::size_t block_shared_bytes(Mode mode, int threads, std::size_t element) {
  const bool columns = mode != Mode::kSolve && mode != Mode::kFinish;
  const std::size_t reduced = mode == Mode::kCluster ? 7 * static_cast<std::size_t>(kLaneSystems) : 0;
  return ((columns ? 9 : 7) * static_cast<std::size_t>(threads) + reduced) * element;
}

template <class T, int L, bool kLanes, Mode kMode, class Source, class Out>
cudaError_t launch_block(const Source& source, const Out& out, long long batch, const LevelShape& shape,
                         const LevelLink<T>& link, cudaStream_t stream) {
  const int threads = shape.systems << shape.chunks_log2;
  const std::size_t shared = block_shared_bytes(kMode, threads, sizeof(T));
  const long long blocks = ceil_div(batch, shape.systems) * shape.tiles;
  auto kernel = block_kernel<T, L, kLanes, kMode, Source, Out>;
  if (const cudaError_t status = allow_shared(kernel, shared); status != cudaSuccess) return status;
  return launch::counted([&] {
    kernel<<<static_cast<unsigned>(blocks), threads, shared, stream>>>(
        source, out, TileGrid{batch, shape.systems, shape.chunks_log2, shape.tiles}, link);
  });
}

Indexing level_indexing(bool lanes, long long rows, long long batch) {
  return lanes ? Indexing{1, batch} : Indexing{rows, 1};
}

// The skip flag of an output (Sink::skip), for the reduced levels' outputs below it.
template <class Out>
const int* skip_of(const Out&) {
  return nullptr;
}
template <class T>
const int* skip_of(const Sink<T>& out) {
  return out.skip;
}

// Solves `source` (level `level` of `plan`) into `out`, recursing through the reduced levels.
template <class T, int L, bool kLanes, class Source, class Out>
cudaError_t solve_level(const Source& source, const Out& out, long long batch, const LevelPlan& plan, int level,
                        unsigned char* scratch, cudaStream_t stream) {
  const LevelShape shape = level_shape(source.m, L, kLanes, sizeof(T));
  if (level == plan.levels) {
    // Past the plan's 7 levels (reachable only with the tuning variables' smallest tiles) a level
    // may still need tiles: refused rather than solved tile by tile.
    if (shape.tiled) return cudaErrorNotSupported;
    return launch_block<T, L, kLanes, Mode::kSolve>(source, out, batch, shape, LevelLink<T>{}, stream);
  }
  const long long rows = plan.rows[level];
  const std::size_t count = static_cast<std::size_t>(rows) * static_cast<std::size_t>(batch);
  T* arrays = reinterpret_cast<T*>(scratch);
  const Reduced<T> reduced{arrays, arrays + count, arrays + 2 * count, arrays + 3 * count,
                           arrays + 4 * count, arrays + 5 * count, arrays + 6 * count};
  T* separators = arrays + 7 * count;
  unsigned char* rest = scratch + kLevelArrays * count * sizeof(T);
  const Indexing index = level_indexing(kLanes, rows, batch);
  const LevelLink<T> link{reduced, index, separators};
  if (const cudaError_t status = launch_block<T, L, kLanes, Mode::kReduce>(source, out, batch, shape, link, stream);
      status != cudaSuccess) {
    return status;
  }
  const ReducedSource<T> next{reduced, index, rows};
  // The reduced levels skip with their caller's output, so that a skipped solve reads nothing.
  const Sink<T> separator_out{separators, index, false, skip_of(out)};
  if (const cudaError_t status =
          solve_level<T, L, kLanes>(next, separator_out, batch, plan, level + 1, rest, stream);
      status != cudaSuccess) {
    return status;
  }
  return launch_block<T, L, kLanes, Mode::kFinish>(source, out, batch, shape, link, stream);
}

// Where the matrix and the right-hand sides live: per system in both batched layouts; one matrix
// for all columns (matrix_step 0) in gtsv2_nopivot.
struct Layouts {
  bool interleaved;
  Indexing matrix;
  Indexing rhs;
  const int* skip = nullptr;  // Sink::skip
};

// Whether every chunk of L rows starts 16-byte aligned in all four arrays (contiguous rows only).
template <class T, int L>
bool vector_chunks(const Layouts& layouts, const T* dl, const T* d, const T* du, const T* x) {
  if (layouts.interleaved || (L * sizeof(T)) % 16 != 0) return false;
  auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const long long per = 16 / static_cast<long long>(sizeof(T));
  return aligned(dl) && aligned(d) && aligned(du) && aligned(x) && layouts.matrix.system_step % per == 0 &&
         layouts.rhs.system_step % per == 0 && layouts.matrix.row_step == 1 && layouts.rhs.row_step == 1;
}

// IDGPU_PARTITION_RESIDENT (a tuning aid): 0 keeps tiled systems on the three-launch path;
// `stream` skips the cooperative launch, so that the streamed one (Mode::kStream) serves every
// shape it can, small batches too.
enum class HeldModes { kNone, kStreamOnly, kBoth };
HeldModes held_modes() {
  static const HeldModes modes = [] {
    switch (config().partition_resident) {
      case PartitionResident::kStreamOnly: return HeldModes::kStreamOnly;
      case PartitionResident::kOff: return HeldModes::kNone;
      case PartitionResident::kOn: break;
    }
    return HeldModes::kBoth;
  }();
  return modes;
}

// How many blocks of `Kernel` (threads, shared) the current device holds at once, cached per
// kernel, device and block size (log2 threads 6..9); 0 when unknown or, with `cooperative`, when
// the device cannot launch cooperatively.
template <auto Kernel>
long long resident_capacity(int chunks_log2, std::size_t shared, bool cooperative) {
  constexpr int kDevices = 64;
  static std::atomic<long long> cache[kDevices][4];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kDevices || chunks_log2 < 6 ||
      chunks_log2 > 9) {
    return 0;
  }
  std::atomic<long long>& slot = cache[device][chunks_log2 - 6];
  long long capacity = slot.load(std::memory_order_relaxed);
  if (capacity != 0) return capacity > 0 ? capacity : 0;
  int can_cooperate = 0;
  int multiprocessors = 0;
  int per_multiprocessor = 0;
  const bool known =
      cudaDeviceGetAttribute(&can_cooperate, cudaDevAttrCooperativeLaunch, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device) == cudaSuccess &&
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, Kernel, 1 << chunks_log2, shared) ==
          cudaSuccess;
  if (!known) {
    cudaGetLastError();
    return 0;
  }
  capacity = cooperative && can_cooperate == 0 ? 0 : static_cast<long long>(per_multiprocessor) * multiprocessors;
  slot.store(capacity > 0 ? capacity : -1, std::memory_order_relaxed);
  return capacity;
}

// The tiles of the one-read modes (kResident, kStream) for a strided system of m rows, and the
// launch arguments over `scratch`: seven arrays of reduced rows, then (kStream) the counters.
// false where the shape does not apply (partition_resident_chunks) or the buffer, sized for the
// three-launch path's tiles, is too small.
template <class T>
struct HeldShape {
  int chunks = 0;
  long long tiles = 0;
  LevelLink<T> link{};
  unsigned* counters = nullptr;
  std::size_t counter_bytes = 0;
};

template <class T, int L>
bool held_shape(long long m, long long batch, bool stream_counters, std::size_t buffer_bytes, unsigned char* scratch,
                HeldShape<T>* shape) {
  if (held_modes() == HeldModes::kNone || m > INT32_MAX) return false;
  shape->chunks = stream_counters ? partition_stream_chunks(static_cast<int>(m), sizeof(T))
                                  : partition_resident_chunks(static_cast<int>(m), L);
  if (shape->chunks == 0) return false;
  shape->tiles = ceil_div(m, static_cast<long long>(shape->chunks) * L);
  const std::size_t count = static_cast<std::size_t>(shape->tiles) * static_cast<std::size_t>(batch);
  const std::size_t array_bytes = (kLevelArrays - 1) * count * sizeof(T);  // no separators array
  shape->counter_bytes = stream_counters ? (static_cast<std::size_t>(batch) + 1) * sizeof(unsigned) : 0;
  if (array_bytes + shape->counter_bytes > buffer_bytes) return false;
  T* arrays = reinterpret_cast<T*>(scratch);
  const Reduced<T> reduced{arrays, arrays + count, arrays + 2 * count, arrays + 3 * count,
                           arrays + 4 * count, arrays + 5 * count, arrays + 6 * count};
  shape->link = LevelLink<T>{reduced, level_indexing(false, shape->tiles, batch), nullptr};
  shape->counters = stream_counters ? reinterpret_cast<unsigned*>(scratch + array_bytes) : nullptr;
  return true;
}

// The strided layouts' tiled systems in one cooperative launch (Mode::kResident) where the shape
// allows it (held_shape) and every tile of the batch is resident at once. *launched false:
// nothing was enqueued, and the caller goes on.
template <class T, int L>
cudaError_t solve_resident(const ArraySource<T>& source, const Sink<T>& out, long long batch,
                           std::size_t buffer_bytes, unsigned char* scratch, cudaStream_t stream, bool* launched) {
  *launched = false;
  HeldShape<T> shape;
  if (held_modes() != HeldModes::kBoth || !held_shape<T, L>(source.m, batch, false, buffer_bytes, scratch, &shape)) {
    return cudaSuccess;
  }
  constexpr auto kernel = resident_kernel<T, L>;
  const std::size_t shared = block_shared_bytes(Mode::kResident, shape.chunks, sizeof(T));
  if (const cudaError_t status = allow_shared(kernel, shared); status != cudaSuccess) return status;
  const int chunks_log2 = log2_ceil(shape.chunks);
  if (batch * shape.tiles > resident_capacity<kernel>(chunks_log2, shared, true)) return cudaSuccess;
  ArraySource<T> source_arg = source;
  Sink<T> out_arg = out;
  TileGrid grid{batch, 1, chunks_log2, shape.tiles};
  void* args[] = {&source_arg, &out_arg, &grid, &shape.link};
  const cudaError_t status = launch::counted([&] {
    return cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel),
                                       dim3(static_cast<unsigned>(batch * shape.tiles)), dim3(shape.chunks), args,
                                       shared, stream);
  });
  if (status == cudaErrorCooperativeLaunchTooLarge || status == cudaErrorNotSupported) {
    cudaGetLastError();  // not sticky: the three launches follow
    return cudaSuccess;
  }
  *launched = true;
  return status;
}

// The same tiles for a batch the GPU does not hold at once (Mode::kStream): where the GPU holds
// twice a system's tiles, one launch after the counters are zeroed. Measured on an H100
// (idgpu-bench, 2^24 unknowns, m = 65536, fraction of copy bandwidth, three launches -> streamed):
// f32 0.51 -> 0.65 (chunks of 8 rows; 16 rows 0.59: 96 registers at 64 threads leave 10 blocks
// a multiprocessor against 72 at 128 threads, 7 blocks, half again the warps), f64 0.55 -> 0.60;
// complex c64 m = 4096 (16 tiles a system) 0.51 -> 0.56, but c32 m = 65536 (64 tiles) 0.54 -> 0.50
// and c64 m = 65536 (128 tiles) 0.52 -> 0.41, so complex systems of more tiles keep three
// launches. What bounds it (Nsight Compute, f32): 30-42% occupancy set by registers, with the
// warps stalled at barriers for 38% of their cycles, a tile's wait for the rest of its system
// included; a release reduction instead of fence and atomic, or a shorter sleep, changed nothing
// (within 1%), and tiles of 256 or 512 chunks were slower (0.58, 0.40).
constexpr long long kStreamMaxComplexTiles = 16;

template <class T, int L>
cudaError_t solve_stream(const ArraySource<T>& source, const Sink<T>& out, long long batch, std::size_t buffer_bytes,
                         unsigned char* scratch, cudaStream_t stream, bool* launched) {
  *launched = false;
  HeldShape<T> shape;
  if (!held_shape<T, L>(source.m, batch, true, buffer_bytes, scratch, &shape)) return cudaSuccess;
  // Complex systems of many tiles measured faster in three launches (kStreamMaxComplexTiles).
  if (!std::is_floating_point_v<T> && shape.tiles > kStreamMaxComplexTiles) return cudaSuccess;
  constexpr auto kernel = stream_kernel<T, L, false>;
  const std::size_t shared = block_shared_bytes(Mode::kStream, shape.chunks, sizeof(T));
  if (const cudaError_t status = allow_shared(kernel, shared); status != cudaSuccess) return status;
  const int chunks_log2 = log2_ceil(shape.chunks);
  if (2 * shape.tiles > resident_capacity<kernel>(chunks_log2, shared, false)) return cudaSuccess;
  if (const cudaError_t status = cudaMemsetAsync(shape.counters, 0, shape.counter_bytes, stream);
      status != cudaSuccess) {
    return status;
  }
  *launched = true;
  return launch::counted([&] {
    kernel<<<static_cast<unsigned>(batch * shape.tiles), shape.chunks, shared, stream>>>(
        source, out, TileGrid{batch, 1, chunks_log2, shape.tiles}, shape.link, shape.counters);
  });
}

// Interleaved systems too long for a cluster (Mode::kStream, kLanes): a block 128 bytes of
// systems wide (a whole line of every row of the layout) by 2^chunks_log2 chunks of each, where a
// group's reduced level has no more rows than the block has chunks (one reduced row a thread).
// false: no such shape (f32 m > 4096, f64 and c32 m > 8192, c64 m > 16384 at the measured rows
// per chunk), or one block holds the system (block_shape).
// Measured on an H100 (idgpu-bench, 2^24 unknowns, fraction of copy bandwidth, three launches ->
// streamed): m = 4096 f32 0.49 -> 0.53-0.56, f64 0.52 -> 0.645, c32 0.515 -> 0.536, c64 0.495
// -> 0.533. Narrower blocks, which would reach longer systems, lose: 32-byte pieces of each row
// at m = 65536 (f32 8 systems, f64 and c32 4, c64 2; 64 tiles) 0.28-0.34 against 0.47-0.50, and
// f32 m = 4096 at 8 rows a chunk, 16 systems (64 bytes) by 32 chunks, 0.41. So do blocks of
// 1024 threads (64 registers, 32 warps a multiprocessor against 16): f32 m = 4096 at 8 rows a
// chunk 0.49-0.50, f64 at 4 rows 0.51, c32 at 4 rows 0.44, c64 at 2 rows 0.27.
bool stream_lanes_shape(long long m, int rows_per_chunk, int element_bytes, int* systems, int* chunks_log2,
                        long long* tiles) {
  int block_chunks_log2 = 0;
  int block_systems = 0;
  if (block_shape(m, rows_per_chunk, true, element_bytes, &block_chunks_log2, &block_systems)) return false;
  const int wide = std::max(1, 128 / element_bytes);
  const int chunks = kMaxBlockThreads / wide;
  const long long need = ceil_div(m, static_cast<long long>(chunks) * rows_per_chunk);
  if (need < 2 || need > chunks) return false;
  *systems = wide;
  *chunks_log2 = log2_ceil(chunks);
  *tiles = need;
  return true;
}

}  // namespace

int partition_stream_lanes(int m, int element_bytes, int* systems, int* chunks) {
  int chunks_log2 = 0;
  long long tiles = 0;
  if (!stream_lanes_shape(m, partition_rows(m, true, element_bytes), element_bytes, systems, &chunks_log2, &tiles)) {
    return 0;
  }
  *chunks = 1 << chunks_log2;
  return static_cast<int>(tiles);
}

namespace {

// The streamed interleaved launch loses on an H200 (4.8 TB/s; idgpu-bench, 2^24 unknowns, m = 4096,
// three launches -> streamed: f32 0.45 -> 0.44 of copy bandwidth, f64 0.52 -> 0.51, c32 0.48 ->
// 0.42, c64 0.49 -> 0.40), where it wins on an H100 (3.35 TB/s): only devices of less peak DRAM
// bandwidth than this stream, unless IDGPU_PARTITION_RESIDENT=stream asks for it.
constexpr int kStreamLanesMaxGbs = 4000;

template <class T, int L>
cudaError_t solve_stream_lanes(const ArraySource<T>& source, const Sink<T>& out, long long batch,
                               std::size_t buffer_bytes, unsigned char* scratch, cudaStream_t stream, bool* launched) {
  *launched = false;
  int systems = 0;
  int chunks_log2 = 0;
  long long tiles = 0;
  if (held_modes() == HeldModes::kNone || !stream_lanes_shape(source.m, L, sizeof(T), &systems, &chunks_log2, &tiles)) {
    return cudaSuccess;
  }
  if (held_modes() != HeldModes::kStreamOnly && current_device_memory_gbs() >= kStreamLanesMaxGbs) return cudaSuccess;
  const long long groups = ceil_div(batch, systems);
  const std::size_t count = static_cast<std::size_t>(tiles) * static_cast<std::size_t>(batch);
  const std::size_t array_bytes = (kLevelArrays - 1) * count * sizeof(T);
  const std::size_t counter_bytes = (static_cast<std::size_t>(groups) + 1) * sizeof(unsigned);
  if (array_bytes + counter_bytes > buffer_bytes) return cudaSuccess;
  const int threads = systems << chunks_log2;
  constexpr auto kernel = stream_kernel<T, L, true>;
  const std::size_t shared = block_shared_bytes(Mode::kStream, threads, sizeof(T));
  if (const cudaError_t status = allow_shared(kernel, shared); status != cudaSuccess) return status;
  if (2 * tiles > resident_capacity<kernel>(log2_ceil(threads), shared, false)) return cudaSuccess;
  T* arrays = reinterpret_cast<T*>(scratch);
  const Reduced<T> reduced{arrays, arrays + count, arrays + 2 * count, arrays + 3 * count,
                           arrays + 4 * count, arrays + 5 * count, arrays + 6 * count};
  const LevelLink<T> link{reduced, level_indexing(true, tiles, batch), nullptr};
  auto* counters = reinterpret_cast<unsigned*>(scratch + array_bytes);
  if (const cudaError_t status = cudaMemsetAsync(counters, 0, counter_bytes, stream); status != cudaSuccess) {
    return status;
  }
  *launched = true;
  return launch::counted([&] {
    kernel<<<static_cast<unsigned>(groups * tiles), threads, shared, stream>>>(
        source, out, TileGrid{batch, systems, chunks_log2, tiles}, link, counters);
  });
}

// Interleaved systems that a block holds only as a 32-byte piece of each row of the layout (or
// not at all) and a cluster of at most kMaxClusterTiles blocks holds whole, 32 systems wide, a
// 128-byte line of every row (Mode::kCluster): 2^chunks_log2 chunks of each system a block,
// `tiles` blocks a cluster, the fewest chunks that do. false: not this shape.
constexpr int kMaxClusterTiles = 8;  // the portable cluster size

// IDGPU_PARTITION_CLUSTER (a tuning aid): the most blocks a cluster, 0 (no cluster launch) to 8.
int cluster_tiles_allowed() {
  static const int allowed = [] {
    const int tiles = config().partition_cluster;  // -1 when unset
    return tiles >= 0 && tiles <= kMaxClusterTiles ? tiles : kMaxClusterTiles;
  }();
  return allowed;
}

bool cluster_shape(long long m, int rows_per_chunk, int element_bytes, int* chunks_log2, int* tiles) {
  const long long chunks_needed = ceil_div(m, rows_per_chunk);
  // Measured (H100, 2^24 unknowns): the cluster wins where a block holds at most a 32-byte row
  // piece of the layout (f32 m = 1000: 0.57 -> 0.63 of copy bandwidth), and loses where it holds
  // 64 bytes (f32 m = 512: 0.78 -> 0.74, f64 m = 256: 0.93 -> 0.85). H200, one block -> cluster:
  // f32 m = 1000 / 1024 0.44 / 0.48 -> 0.50 / 0.53, f64 0.45 / 0.47 -> 0.51 / 0.55, c32 0.39 /
  // 0.40 -> 0.43 / 0.45, c64 0.40 / 0.42 both ways.
  const long long block_systems = kMaxBlockThreads >> log2_ceil(chunks_needed);
  if (block_systems * element_bytes > 32) return false;
  for (int log = 1; (kLaneSystems << log) <= kMaxBlockThreads; ++log) {
    const long long need = ceil_div(chunks_needed, 1LL << log);
    if (need <= (1LL << log) && need <= cluster_tiles_allowed()) {
      if (need < 2) return false;
      *chunks_log2 = log;
      *tiles = static_cast<int>(need);
      return true;
    }
  }
  return false;
}

}  // namespace

int partition_cluster_tiles(int m, int element_bytes, int* chunks) {
  int chunks_log2 = 0;
  int tiles = 0;
  if (!cluster_shape(m, partition_rows(m, true, element_bytes), element_bytes, &chunks_log2, &tiles)) return 0;
  *chunks = 1 << chunks_log2;
  return tiles;
}

namespace {

template <class T, int L, class Source, class Out>
cudaError_t solve_cluster(const Source& source, const Out& out, long long batch, cudaStream_t stream, bool* launched) {
  *launched = false;
  int chunks_log2 = 0;
  int tiles = 0;
  if (!cluster_shape(source.m, L, sizeof(T), &chunks_log2, &tiles)) return cudaSuccess;
  const int threads = kLaneSystems << chunks_log2;
  const std::size_t shared = block_shared_bytes(Mode::kCluster, threads, sizeof(T));
  const auto kernel = cluster_kernel<T, L, Source, Out>;
  if (const cudaError_t status = allow_shared(kernel, shared); status != cudaSuccess) return status;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(ceil_div(batch, kLaneSystems) * tiles));
  config.blockDim = dim3(static_cast<unsigned>(threads));
  config.dynamicSmemBytes = shared;
  config.stream = stream;
  cudaLaunchAttribute attribute = {};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = static_cast<unsigned>(tiles);
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  // Whether the device runs such clusters at all (sm_90 on), cached per device and shape.
  constexpr int kDevices = 64;
  static std::atomic<int> runs[kDevices][10][kMaxClusterTiles + 1];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kDevices) return cudaSuccess;
  std::atomic<int>& known = runs[device][chunks_log2][tiles];
  if (known.load(std::memory_order_relaxed) == 0) {
    int clusters = 0;
    int major = 0;
    const bool ok = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
                    major >= 9 && cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) == cudaSuccess &&
                    clusters > 0;
    cudaGetLastError();
    known.store(ok ? 1 : -1, std::memory_order_relaxed);
  }
  if (known.load(std::memory_order_relaxed) < 0) return cudaSuccess;
  *launched = true;
  return launch::counted([&] {
    const cudaError_t status =
        cudaLaunchKernelEx(&config, kernel, source, out, TileGrid{batch, kLaneSystems, chunks_log2, tiles});
    return status != cudaSuccess ? status : cudaGetLastError();
  });
}

template <class T, int L>
cudaError_t solve_with(int m, int batch, const Layouts& layouts, const int* sizes, const T* dl, const T* d,
                       const T* du, T* x, void* buffer, cudaStream_t stream) {
  const LevelPlan plan = plan_levels(m, L, layouts.interleaved, sizeof(T));
  auto* scratch = static_cast<unsigned char*>(buffer);
  const bool vectors = vector_chunks<T, L>(layouts, dl, d, du, x);
  const ArraySource<T> source{dl, d, du, x, layouts.matrix, layouts.rhs, m, sizes, vectors};
  const Sink<T> out{x, layouts.rhs, vectors, layouts.skip};
  if (!layouts.interleaved && sizes == nullptr && plan.levels > 0) {
    const std::size_t buffer_bytes = level_bytes(plan, batch, sizeof(T));
    bool launched = false;
    cudaError_t status = solve_resident<T, L>(source, out, batch, buffer_bytes, scratch, stream, &launched);
    if (launched || status != cudaSuccess) return status;
    if (partition_stream_rows(m, sizeof(T)) == L) {
      status = solve_stream<T, L>(source, out, batch, buffer_bytes, scratch, stream, &launched);
    } else if constexpr (L > 8) {
      ArraySource<T> source8 = source;
      Sink<T> out8 = out;
      source8.vectors = out8.vectors = vector_chunks<T, 8>(layouts, dl, d, du, x);
      status = solve_stream<T, 8>(source8, out8, batch, buffer_bytes, scratch, stream, &launched);
    }
    if (launched || status != cudaSuccess) return status;
  }
  if (layouts.interleaved) {
    bool launched = false;
    cudaError_t status = solve_cluster<T, L>(source, out, batch, stream, &launched);
    if (launched || status != cudaSuccess) return status;
    if (plan.levels > 0) {
      status = solve_stream_lanes<T, L>(source, out, batch, level_bytes(plan, batch, sizeof(T)), scratch, stream,
                                        &launched);
      if (launched || status != cudaSuccess) return status;
    }
    return solve_level<T, L, true>(source, out, batch, plan, 0, scratch, stream);
  }
  return solve_level<T, L, false>(source, out, batch, plan, 0, scratch, stream);
}

template <class T>
cudaError_t solve_rows(int m, int batch, const Layouts& layouts, const int* sizes, const T* dl, const T* d,
                       const T* du, T* x, void* buffer, cudaStream_t stream);

// gtsv2_nopivot's n > 1 columns through columns_kernel (level 0); reduced levels, one per column,
// through solve_level. Groups of columns are sized so that the grid has some 256 blocks.
template <class T, int L, Mode kMode>
cudaError_t launch_columns(const ColumnArgs<T>& args, const LevelLink<T>& link, cudaStream_t stream) {
  const int threads = 1 << args.chunks_log2;
  const std::size_t shared = 9 * static_cast<std::size_t>(threads) * sizeof(T);
  auto kernel = columns_kernel<T, L, kMode>;
  if (const cudaError_t status = allow_shared(kernel, shared); status != cudaSuccess) return status;
  return launch::counted(
      [&] { kernel<<<static_cast<unsigned>(args.tiles * args.groups), threads, shared, stream>>>(args, link); });
}

// The columns kernel's shape for m rows: as the strided layout's, with a level of more chunks than
// its blocks hold tiled; and its levels.
LevelShape columns_shape(long long m, int rows_per_chunk, int element_bytes) {
  LevelShape shape = level_shape(m, rows_per_chunk, false, element_bytes);
  shape.systems = 1;
  if (!shape.tiled && (1 << shape.chunks_log2) > kColumnsMaxThreads) {
    shape.tiled = true;
    shape.chunks_log2 = log2_ceil(tile_chunks(false));
  }
  shape.chunks_log2 = std::min(shape.chunks_log2, log2_ceil(kColumnsMaxThreads));
  if (shape.tiled) shape.tiles = ceil_div(m, static_cast<long long>(rows_per_chunk) << shape.chunks_log2);
  return shape;
}

LevelPlan columns_plan(long long m, int rows_per_chunk, int element_bytes) {
  const LevelShape shape = columns_shape(m, rows_per_chunk, element_bytes);
  LevelPlan plan;
  if (!shape.tiled) return plan;
  const LevelPlan below = plan_levels(shape.tiles, rows_per_chunk, false, element_bytes);
  plan.levels = 1 + below.levels;
  plan.rows[0] = shape.tiles;
  for (int level = 0; level < below.levels && level + 1 < 8; ++level) plan.rows[level + 1] = below.rows[level];
  return plan;
}

template <class T, int L>
cudaError_t solve_columns_with(int m, int n, int ldb, const T* dl, const T* d, const T* du, T* B, void* buffer,
                               cudaStream_t stream) {
  const Layouts layouts{false, Indexing{0, 1}, Indexing{ldb, 1}};
  const LevelPlan plan = columns_plan(m, L, sizeof(T));
  const LevelShape shape = columns_shape(m, L, sizeof(T));
  constexpr long long kTargetBlocks = 256;
  const long long groups_wanted = std::min<long long>(n, std::max<long long>(1, ceil_div(kTargetBlocks, shape.tiles)));
  const int group_columns = static_cast<int>(ceil_div(n, groups_wanted));
  ColumnArgs<T> args{dl, d, du, B, ldb, m, n, group_columns, ceil_div(n, group_columns),
                     shape.chunks_log2, shape.tiles, vector_chunks<T, L>(layouts, dl, d, du, B)};
  if (plan.levels == 0) return launch_columns<T, L, Mode::kSolve>(args, LevelLink<T>{}, stream);
  auto* scratch = static_cast<unsigned char*>(buffer);
  const long long rows = plan.rows[0];
  const std::size_t count = static_cast<std::size_t>(rows) * static_cast<std::size_t>(n);
  T* arrays = reinterpret_cast<T*>(scratch);
  const Reduced<T> reduced{arrays, arrays + count, arrays + 2 * count, arrays + 3 * count,
                           arrays + 4 * count, arrays + 5 * count, arrays + 6 * count};
  T* separators = arrays + 7 * count;
  const Indexing index = level_indexing(false, rows, n);
  const LevelLink<T> link{reduced, index, separators};
  if (const cudaError_t status = launch_columns<T, L, Mode::kReduce>(args, link, stream); status != cudaSuccess) {
    return status;
  }
  const ReducedSource<T> next{reduced, index, rows};
  const Sink<T> separator_out{separators, index};
  if (const cudaError_t status = solve_level<T, L, false>(next, separator_out, n, plan, 1,
                                                          scratch + kLevelArrays * count * sizeof(T), stream);
      status != cudaSuccess) {
    return status;
  }
  return launch_columns<T, L, Mode::kFinish>(args, link, stream);
}

// IDGPU_PARTITION_ROWS (a tuning aid): forces the rows per chunk, 2, 4, 8 or 16 (16-byte elements
// stop at 8).
int forced_rows() {
  static const int forced = [] {
    const int rows = config().partition_rows;
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
  // block hold longer systems, and in tiles they spread each cyclic reduction step over more rows
  // (strided f32 m = 65536: 16 rows 0.49 of copy bandwidth, 8 rows 0.44).
  if (interleaved) return clamp_rows(element_bytes <= 4 && m > 256 ? 16 : 8, element_bytes);
  return clamp_rows(m <= 512 ? 4 : m <= 4096 ? 8 : 16, element_bytes);
}

// Streamed (Mode::kStream), f32 measured faster with 8 rows a chunk than 16: see solve_stream.
int partition_stream_rows(int m, int element_bytes) { return std::min(partition_rows(m, false, element_bytes), 8); }

// Tiles at least as long as the three-launch path's, so that there are no more of them than
// partition_buffer_bytes made room for.
int partition_stream_chunks(int m, int element_bytes) {
  const int rows = partition_stream_rows(m, element_bytes);
  const long long tile_rows = static_cast<long long>(tile_chunks(false)) * partition_rows(m, false, element_bytes);
  int chunks = partition_resident_chunks(m, rows);
  if (chunks == 0) return 0;
  while (static_cast<long long>(chunks) * rows < tile_rows && chunks < kMaxBlockThreads) chunks *= 2;
  return chunks;
}

int partition_resident_chunks(int m, int rows_per_chunk) {
  if (m < 1 || rows_per_chunk < 1) return 0;
  const long long chunks = ceil_div(m, rows_per_chunk);
  if (chunks <= kMaxBlockThreads) return 0;  // one block holds the system
  for (int per_tile = 64; per_tile <= kMaxBlockThreads; per_tile *= 2) {
    if (ceil_div(chunks, per_tile) <= per_tile) return per_tile;
  }
  return 0;
}

std::size_t partition_buffer_bytes(int m, int batch, bool interleaved, int element_bytes) {
  if (batch == 1) interleaved = false;  // as partition_solve runs it
  const LevelPlan plan = plan_levels(m, partition_rows(m, interleaved, element_bytes), interleaved, element_bytes);
  return level_bytes(plan, batch, static_cast<std::size_t>(element_bytes));
}

// The columns kernel keeps the matrix's state of its chunk (pivots, c', g', dl) in registers for
// all its columns: chunks of at most 8 rows. Measured on an H200, n = 16, f32 m = 2^20: 8 rows
// 0.133 ms (5.0x the vendor), 16 rows 0.195 ms (3.4x).
int columns_rows(int m, int element_bytes) { return std::min(partition_rows(m, false, element_bytes), 8); }

std::size_t partition_columns_buffer_bytes(int m, int n, int element_bytes) {
  const int rows_per_chunk = columns_rows(m, element_bytes);
  if (n == 1 || rows_per_chunk < 4) return partition_buffer_bytes(m, n, false, element_bytes);
  return level_bytes(columns_plan(m, rows_per_chunk, element_bytes), n, static_cast<std::size_t>(element_bytes));
}

template <class T>
cudaError_t partition_solve(int m, int batch, int stride, bool interleaved, const T* dl, const T* d, const T* du,
                            T* x, void* buffer, cudaStream_t stream) {
  // One interleaved system is one contiguous system: the strided path stages it.
  if (interleaved && batch == 1) {
    interleaved = false;
    stride = m;
  }
  const Indexing index = interleaved ? Indexing{1, batch} : Indexing{stride, 1};
  return solve_rows<T>(m, batch, Layouts{interleaved, index, index}, nullptr, dl, d, du, x, buffer, stream);
}

template <class T>
cudaError_t partition_solve_columns(int m, int n, int ldb, const T* dl, const T* d, const T* du, T* B, void* buffer,
                                    cudaStream_t stream, const int* skip) {
  if (n == 1) {
    const Layouts layouts{false, Indexing{0, 1}, Indexing{ldb, 1}, skip};
    return solve_rows<T>(m, n, layouts, nullptr, dl, d, du, B, buffer, stream);
  }
  // The columns kernel takes no skip flag.
  if (skip != nullptr) return cudaErrorInvalidValue;
  switch (columns_rows(m, sizeof(T))) {
    case 4:
      return solve_columns_with<T, 4>(m, n, ldb, dl, d, du, B, buffer, stream);
    case 8:
      if constexpr (sizeof(T) <= 8) return solve_columns_with<T, 8>(m, n, ldb, dl, d, du, B, buffer, stream);
      break;
    default:
      break;
  }
  // Chunk lengths compiled for the batched layouts only (IDGPU_PARTITION_ROWS=2): column by column.
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
    if (const cudaError_t status = scratch_allocate(&scratch, bytes, stream); status != cudaSuccess) return status;
  }
  // One system is contiguous: the strided path, as partition_buffer_bytes sized it.
  const bool interleaved = batch != 1;
  const Indexing index = interleaved ? Indexing{1, batch} : Indexing{max_m, 1};
  const cudaError_t solved =
      solve_rows<T>(max_m, batch, Layouts{interleaved, index, index}, sizes, dl, d, du, x, scratch, stream);
  if (scratch != nullptr) {
    const cudaError_t freed = scratch_free(scratch, stream);
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

namespace {

template <class T, int L>
cudaError_t solve_shifted_with(const ShiftedSystems& systems, T* x, void* buffer, cudaStream_t stream) {
  using R = typename ScalarTraits<T>::Real;
  const ShiftedSource<T> source{x,
                                systems.batch,
                                systems.m,
                                static_cast<R>(systems.off),
                                static_cast<R>(systems.first_upper),
                                static_cast<R>(systems.last_lower),
                                static_cast<const R*>(systems.diagonal),
                                systems.pinned,
                                static_cast<const T*>(systems.shift)};
  T scale{};
  scale.x = static_cast<R>(systems.scale);
  scale.y = R(0);
  const ScaledSink<T> out{x, systems.batch, scale};
  bool launched = false;
  const cudaError_t status = solve_cluster<T, L>(source, out, systems.batch, stream, &launched);
  if (launched || status != cudaSuccess) return status;
  const LevelPlan plan = plan_levels(systems.m, L, true, sizeof(T));
  return solve_level<T, L, true>(source, out, systems.batch, plan, 0, static_cast<unsigned char*>(buffer), stream);
}

}  // namespace

template <class T>
cudaError_t partition_solve_shifted(const ShiftedSystems& systems, T* x, void* buffer, cudaStream_t stream) {
  if (systems.m < 1 || systems.batch < 2 || systems.diagonal == nullptr || x == nullptr ||
      (systems.pinned >= 0 && systems.shift == nullptr)) {
    return cudaErrorInvalidValue;
  }
  switch (partition_rows(systems.m, true, sizeof(T))) {
    case 4:
      return solve_shifted_with<T, 4>(systems, x, buffer, stream);
    case 8:
      if constexpr (sizeof(T) <= 8) return solve_shifted_with<T, 8>(systems, x, buffer, stream);
      break;
    default:
      break;
  }
  return solve_shifted_with<T, 4>(systems, x, buffer, stream);
}

template cudaError_t partition_solve_shifted<cuComplex>(const ShiftedSystems&, cuComplex*, void*, cudaStream_t);
template cudaError_t partition_solve_shifted<cuDoubleComplex>(const ShiftedSystems&, cuDoubleComplex*, void*,
                                                              cudaStream_t);

#define IDGPU_INSTANTIATE_(T)                                                                                  \
  template cudaError_t partition_solve<T>(int, int, int, bool, const T*, const T*, const T*, T*, void*, \
                                          cudaStream_t);                                                  \
  template cudaError_t partition_solve_var<T>(int, int, const int*, const T*, const T*, const T*, T*, cudaStream_t); \
  template cudaError_t partition_solve_columns<T>(int, int, int, const T*, const T*, const T*, T*, void*,          \
                                                  cudaStream_t, const int*);
IDGPU_INSTANTIATE_(float)
IDGPU_INSTANTIATE_(double)
IDGPU_INSTANTIATE_(cuComplex)
IDGPU_INSTANTIATE_(cuDoubleComplex)
#undef IDGPU_INSTANTIATE_

}  // namespace idgpu::tridiag::kernels
