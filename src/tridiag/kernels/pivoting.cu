// gtsv2 (one matrix, n right-hand sides, no diagonal dominance asked): chunks of P rows whose
// interiors are solved by diagonal pivoting, their separators reduced level by level, and one step
// of iterative refinement.
//
// A level of M rows is cut into K = ceil(M / P) chunks of P rows, counted from the system's end so
// that only the first chunk is short; it is padded in front with identity rows, which couple to
// nothing (row 0's dl is not read), so that every chunk is P rows in registers. Each chunk has two
// separators: its last row, and either the row before it (window A: the interior is the chunk's
// rows [0, P - 2)) or its first row (window B: rows [1, P - 1)). The chunk takes the window whose
// diagonal pivoting (1 x 1 or 2 x 2 pivot blocks by the rule of Erway and Marcia that Chang et al.
// use in their SPIKE solver, SC'12; no row interchanges) has the larger smallest pivot relative to
// the entries around it, B only when strictly larger, and A without looking at B where every pivot
// of A is at least half the entries around it. Every interior then has P - 2 rows, an even
// number, so a pattern of zeros on the diagonal never makes one singular by its order alone, and
// the choice steers around most ill-conditioned windows.
//
// The interior is solved for three kinds of right-hand side: y (the chunk's rhs), w (its first
// row's coupling a to the separator before it) and v (its last row's coupling c to the separator
// after it), so that x_i = y_i - w_i x_left - v_i x_right. Substituting the interior's first and
// last rows into the separator rows around it leaves a tridiagonal reduced system of 2K rows: row
// 2k is chunk k's second separator, row 2k + 1 its last row. Chunk k writes rows 2k and 2k + 1 but
// for the terms of row 2k + 1 that the next chunk's interior contributes (its first row's coupling
// to row 2k + 1): chunk k + 1 writes those into diag_next[k] and rhs_next[k], which the next level
// adds on load, and upper[2k + 1] whole. A window whose separator sits next to the previous chunk's
// (B) couples the two directly. The reduced system is solved the same way, level after level,
// until a level of at most kSerialDefault rows, which one thread solves by LU with partial
// pivoting (serial_solve; or, with IDGPU_PIVOT_SERIAL_ROWS=0, until a level of at most P rows,
// solved whole by diagonal pivoting in one thread, top_solve); then every level's finish pass
// re-reads its chunks, solves each interior again with its separators known, and writes the
// solution. The reduce pass stores each chunk's window choice and interior factor (a byte and 11
// elements a chunk) for the finish pass and the refinement's passes, which read them back instead
// of choosing and factoring again: their chain of divisions is the reduce pass's alone.
// (Level 0's chunks store theirs only below kStoreFactorsBelow rows.)
//
// Refinement (systems of more than P rows): the level-0 finish pass keeps the first solution x1
// in the buffer, and the next pass forms the residual r = b - A x1 of each chunk's rows, in twice
// the working precision (residual_row), and reduces it at once (the matrix's reduced levels are
// reused; only the right-hand sides are reduced again). The reduced levels are solved again for
// the correction, and a last pass re-forms r on each chunk's interior, solves it and writes x1
// plus the correction. The step runs only where the first solve met a pivot smaller than half the
// entries around it (kSureQuality; a flag in the buffer that any chunk or the top solve may set):
// a diagonally dominant matrix never does, and then the refinement's kernels return at once.
// IDGPU_PIVOT_REFINE=2 runs it always, 0 never.
//
// The matrix's part (window choice, pivots, reciprocals, multipliers) is done once per chunk, in
// the first reduce pass, and applied to every column. Levels of at most kBlockRows rows are reduced, solved and
// finished by one block in one launch.
//
// Tried and measured slower (H100, idgpu-bench, medians of 30 over three interleaved rounds): the
// whole solve as one cooperative launch, every level's chunks spread over a resident grid of
// 256-thread blocks with a grid barrier between levels and the one-block levels in block 0, so
// that the 22 launches of a refined 2^20-row solve (10 of them early exits when no pivot was
// small) become one. f32 m = 2^20 0.123 -> 0.154 ms, f64 0.182 -> 0.221, c32 0.201 -> 0.336,
// c64 0.301 -> 0.459; non-dominant f32 0.203 -> 0.278; only f32 m = 2^16 gained (0.0745 ->
// 0.0710). Keeping level 0 in launches of its own around a cooperative launch for the levels
// above it was slower too (f32 2^20 0.150 ms). The merged kernel holds the registers of every
// pass (f32 128, f64 213, complex 236-255), which leaves one or two blocks a multiprocessor for
// level 0, and a grid barrier over a mostly idle grid costs about what a launch does: the time
// is in each chunk's serial chain of divisions and loads, 5-8 us a level, not in the launches.
// Also slower: tiles of 2048 rows (1024 for c64), one block each, reducing their 256 chunks into
// shared memory and solving the tile's interior there level by level (for the right-hand sides
// and the two couplings to the neighbouring tiles), so that only two rows a tile went to the
// level-by-level kernels and the finish pass needed no reduced level but those: f32 m = 2^14
// 0.063 -> 0.065 ms, 2^20 0.127 -> 0.151, 2^24 0.519 -> 1.382; f64 2^20 0.188 -> 0.337. Each
// tile's in-block levels are seven chunk solves one after another with a quarter of the block or
// less busy, and the tile holds its multiprocessor share the while (126 registers a thread, two
// 256-thread tiles a multiprocessor): what a launch a level spreads over the whole GPU becomes a
// serial chain per tile, waves of them. Block rows (IDGPU_PIVOT_BLOCK_ROWS) 64 / 256 / 4096 /
// 16384 instead of 1024: f32 m = 2^14 0.075 / 0.070 / 0.065 / 0.089 ms, 2^20 0.137 / 0.135 /
// 0.129 / 0.178 (1024: 0.063, 0.127).
// Also no faster (H200, idgpu-bench, medians of 15, one process): the top levels in one thread
// block cluster of 16 (or 8) blocks instead of one block, the cluster barrier ordering the blocks'
// global accesses, so that levels of up to 32768 rows (16384, 65536 tried) were solved in that one
// launch rather than one launch a level: f32 m = 1000 0.032 -> 0.038 ms, 2^14 0.059 -> 0.056,
// 2^16 0.072 -> 0.074 (0.072 with 65536 rows), 2^20 0.118 -> 0.122; f64 and complex likewise
// 1-10% slower but at 2^14. The per-level time is each chunk's instruction chain (the reduce
// kernel is about 2000 PTX instructions, 51 IEEE reciprocals among them), issued by a few warps
// a multiprocessor: the one-block solve of 1000 rows, nine level steps, takes 32 us.
//
// Kept: the launches after the first chained by programmatic dependent launch (sm_90 on, see
// follow_previous_kernel), so that each kernel's launch overlaps the one before. H200, against
// the same grid unchained (separate processes, medians of 15, speedup over the vendor): f32 2^12
// 1.52 -> 1.59x, 2^14 1.26 -> 1.36x, 2^16 1.05 -> 1.15x, 2^18 0.93 -> 1.00x, 2^20 0.92 -> 1.02x;
// f64 2^14..2^18 +4-7%; complex within -10..+6% (c32 2^18 0.81 -> 0.73x, 2^16 0.90 -> 0.96x);
// refined non-dominant solves +0-4%. m = 1000 (one launch) unchanged.
//
// Kept: window B's quality left out where window A is sure (every pivot at least half its
// neighbours), a third of the window choice's pivot chains on dominant matrices. H200, the same
// grid, before -> after: dominant f32 1000 2.43 -> 2.59x, 2^14 1.38 -> 1.49x, 2^16 1.16 -> 1.23x,
// 2^20 1.04 -> 1.06x, 2^24 1.81 -> 1.87x; f64, c32, c64 +3-10%; the gathered algos 1/2 +1-9%;
// refined non-dominant solves -10..+2% (c64 2^14 0.51 -> 0.46x; they look at both windows as
// before, the difference is within the two runs' spread but for c64).
//
// Where the time goes (H200, Nsight Compute, each kernel on its own, f32 m = 2^14, dominant): the
// level-0 and level-1 reduce launches 5.2 and 6.4 us, the one-block kernel 34.5 us (nine level
// steps of 1024 rows and fewer, 3.8 us each), the finish launches 5.7 and 4.7 us, and the five
// refinement launches that return at once 2.0-2.6 us each. A thread of a reduced level executes
// about 1340 instructions in the reduce pass and 730 in the finish pass (980 and 440 at level 0,
// whose rows move as vectors), one or two warps a multiprocessor: a level step is that chain of
// dependent instructions, not bandwidth and not the launch.
//
// Kept, for that chain (H200, idgpu-bench under IDGPU_POLICY=native, medians of 15, speedup over
// the vendor in the same process; docs/data/h200-gtsv2.csv):
// - Each chunk's factor stored by the reduce pass (Factor::store / load): the finish pass and the
//   refinement's three passes no longer divide. Dominant f32 2^14 1.49 -> 1.53x, 2^16 1.23 ->
//   1.29x, 2^18 1.06 -> 1.12x; refined f32 2^14 0.78 -> 0.89x, 2^16 0.64 -> 0.76x; c64 2^14 0.87
//   -> 0.98x. At level 0 from 2^21 rows the factor moved through memory cost more than it saved
//   (f32 2^22 0.172 ms factored again against 0.181 stored, 2^24 0.388 against 0.430), hence
//   kStoreFactorsBelow.
// - The refinement's launches one wave wide (grid_for): where they return at once they cost a
//   wave, not a pass over every chunk's block. f32 2^22 1.29 -> 1.54x, 2^24 1.73 -> 2.10x (with the
//   level-0 threshold). What they still cost at 2^14: 0.0496 ms against 0.0423 with refinement
//   off (IDGPU_PIVOT_REFINE=0).
// - Window A measured off its own factor (Factor::factor<true>) rather than by a chain of its
//   own: dominant within 2% (the chain it removes runs beside others); refined solves measured
//   2-9% slower at 2^14..2^18 in the same run as the line above, not separated from it.
// - The reduced levels' arrays laid out so that their chunks move as 16-byte vectors (carve),
//   against the same build with scalar loads: f32 2^14 0.0500 -> 0.0468 ms, 2^16 0.0615 ->
//   0.0573, 2^20 0.1060 -> 0.0966, 2^22 0.1644 -> 0.1517; refined -5..-7%; c32 likewise.
//
// Bytes moved at level 0, n = 1: dl, d, du and b read twice (reduce, finish) and x written once;
// below kStoreFactorsBelow rows the chunk factors, 11 / P of an array, written once and read once
// (three times more when refining); when refining, dl, d, du and b read twice more (residual,
// correction), x1 written once and read twice, plus about 11 / P of an array per level for the
// reduced systems and as much for their factors, twice.
//
// Accuracy: measured with the host reference of the same algorithm (double, P = 8, random
// non-dominant systems of 65536 rows, 300 uniform and 300 with 5% of the diagonal exactly zero):
// with one refinement step every system met 2 eta(LU) + 8 eps against LU with partial
// pivoting's backward error eta(LU); with one separator a chunk (this kernel's first design) 10
// of the 300 with zeros had an exactly singular interior, and without refinement 2 of the 600
// missed by up to 43x.
//
// The host reference: reference::chunk_pivoting with ChunkSeparators::kTwoChosen
// (src/tridiag/reference.h), which differs where chunk 0 is short (the kernel's padded chunk may
// make a padding row a separator, an identity row of the reduced system) and in the residual,
// which the reference forms in its own working precision.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/config.h"
#include "core/launch.h"
#include "tridiag/kernels/kernels.h"
#include "tridiag/kernels/scalar.cuh"
#include "tridiag/kernels/vector16.cuh"

namespace idgpu::tridiag::kernels {
namespace {

// Rows a chunk (P): interiors of 6 rows, each level a quarter of the one below. P = 16 (interiors of
// 14 rows, each level an eighth: fewer levels, each chunk's chain twice as long) measured slower on
// random non-dominant matrices (H200, f32, speedup over the vendor, P = 8 / 16: m = 4096 0.93x /
// 0.56x, 2^16 0.69x / 0.45x, 2^20 0.61x / 0.36x, 2^24 0.91x / 0.34x; f64 0.50-1.52x / 0.27-0.57x;
// 162-255 registers a thread, 200 B of spills) and its window rule broke the accuracy contract
// (backward error 10^6 eps at m = 1000): a level's time follows its chunks' dependent chain, not
// the number of launches.
constexpr int kRows = 8;
// The stored terms of a chunk's interior factor (Factor::store).
constexpr int kFactorTerms = 2 * (kRows - 2) - 1;
// Level 0's chunk factors are stored only below this many rows. Above, its passes run at full
// occupancy, where moving the factor through memory cost more than factoring again (H200, f32,
// dominant: 2^22 rows 0.181 ms stored, 0.172 factored again; 2^24 0.430 / 0.388; c64 2^24
// 1.73 / 1.63); below, they are latency chains and the factor is the longest link. The reduced
// levels always store theirs.
constexpr long long kStoreFactorsBelow = 1LL << 21;
constexpr int kThreads = 128;
constexpr int kBlockThreads = 256;
// Levels shrink by P / 2: 15 levels take P = 8 from 2^31 rows to the top.
constexpr int kMaxLevels = 16;
// Levels of at most this many rows go to the one-block kernel (IDGPU_PIVOT_BLOCK_ROWS).
constexpr long long kBlockRows = 1024;
// The first reduced level of at most kSerialDefault rows (IDGPU_PIVOT_SERIAL_ROWS, at most
// kSerialRows) is solved by LU with partial pivoting in one thread (serial_solve), with every
// level above it. H200, f32, random non-dominant, speedup over the vendor with no serial level /
// 64 / 128 / 256 rows (the levels of 1000 .. 2^20 rows reach 64 or 250 rows, none between): m =
// 1000 1.48x / 2.10x / 2.13x / 2.11x, 4096 0.91x / 1.17x / 1.18x / 1.14x, 2^14 0.83x / 1.00x /
// 1.01x / 0.97x, 2^20 0.60x / 0.67x / 0.67x / 0.68x; dominant m = 1000 2.65x / 3.61x / 3.67x /
// 3.09x. An IEEE reciprocal on its chain (a range check and a branch a row) and selects compiled
// as branches made the first version 2-3x slower a row, so that 256 rows lost to the levels
// (m = 1000 1.35x).
constexpr int kSerialRows = 256;
constexpr int kSerialDefault = 128;
// Systems of one column longer than the one-block kernel's levels (block_rows_limit), of any
// length, are first checked for diagonal dominance and, where dominant, solved without pivoting
// (solve_with). H200, IDGPU_POLICY=native, medians of 15, speedup over the vendor with the check
// (in brackets the pivoting solve alone, in the same run; to 2^16, in the run that introduced the
// check), dominant / random non-dominant: f32 m = 4096 4.57x
// (1.91x) / 0.96x (1.02x), 2^14 3.45x (1.64x) / 0.84x (0.89x), 2^16 2.91x (1.37x) / 0.70x
// (0.75x), 2^18 2.41x (1.18x) / 0.62x (0.66x), 2^20 2.28x (1.11x) / 0.61x (0.64x), 2^22 2.08x
// (1.66x) / 0.74x (0.77x), 2^24 2.56x (2.22x) / 0.92x (0.96x); f64 2^22 3.12x (2.19x) / 1.15x
// (1.21x), 2^24 4.11x (3.13x) / 1.55x (1.61x); c32 2^22 3.04x (2.21x) / 1.10x (1.14x); c64 2^20
// 4.32x (2.13x) / 1.44x (1.52x), 2^24 7.96x (5.85x) / 2.98x (3.08x). The check costs a
// non-dominant matrix 3-9%, from 10 us at 2^18 rows to about 100 us at 2^26, growing with m
// (dominance_kernel and the partition solver's launches returning at once). Until dominance_kernel kept its failures to one slot a block, one store
// a warp to the flag made it 114 us on a random f32 matrix of 2^20 rows, and the check stopped at
// 2^16 rows.
constexpr long long kDominantFirstRows = INT32_MAX;
// The squared pivot quality (see window_quality) from which a pivot needs no refinement: every
// pivot at least half the entries around it, as in any diagonally dominant matrix.
constexpr float kSureQuality = 0.25f;

// A level's system as the kernels read it. Level 0 is the caller's (dl, d, du, B with column j at
// rhs + j*ld); a reduced level is pBuffer's, where an odd row's diagonal and rhs are each the sum
// of two terms: its own chunk's (diag, rhs) and the next chunk's (diag_next, rhs_next, one entry a
// chunk: row 2k + 1 at k).
template <class T>
struct LevelIn {
  const T* lower;
  const T* diag;
  const T* diag_next;  // null at level 0
  const T* upper;
  const T* rhs;
  const T* rhs_next;  // null at level 0
  long long ld;       // of the rhs columns
  long long ld_next;  // of the rhs_next columns
  long long rows;
  bool vectors;  // 16-byte loads of whole chunks (level 0, aligned)
};

// A reduced level in pBuffer: rows = 2K values per array (K values in diag_next and rhs_next), the
// rhs, rhs_next and x arrays with n columns each, and the window choice of each of the K chunks of
// the level below. Each array starts `pad` elements (pad / 2 in diag_next and rhs_next) into its
// allocation, pad being the identity padding in front of the next level's chunk 0, so that every
// chunk of the next level starts on a whole P elements from the allocation: its rows are read and
// written as 16-byte vectors (carve).
template <class T>
struct LevelOut {
  T* lower;
  T* diag;
  T* diag_next;
  T* upper;
  T* rhs;
  T* rhs_next;
  T* x;  // the level's solution, written by its finish pass (or the top solve)
  // Each chunk's interior factor as the reduce pass computed it (kFactorTerms values a chunk, term
  // t of chunk k at factor[t * K + k]): the later passes of the chunk read it instead of factoring
  // again.
  T* factor;
  // Per chunk of the level below: bit 0 the window (B), bits 1 on its factor's 2 x 2 blocks.
  unsigned char* choice;
  // Set (nonzero) where a pivot of the first solve is small relative to the entries around it:
  // the refinement step runs only then. Null without refinement.
  int* refine;
  // Where not null, the first solve's launches run only where it is nonzero: the matrix is not
  // diagonally dominant, and the partition solver has left B alone (see dominance_kernel).
  const int* pivot;
  long long rows;
  long long ld;       // of the rhs and x columns
  long long ld_next;  // of the rhs_next columns
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
    if (in.diag_next != nullptr) {
      // A reduced level: `first` is even (chunk_first), so the odd rows are r = 1, 3, ...
      T next[P / 2];
      load_vectors(in.diag_next + (first >> 1), next);
#pragma unroll
      for (int j = 0; j < P / 2; ++j) rows.b[2 * j + 1] = add(rows.b[2 * j + 1], next[j]);
    }
    return;
  }
#pragma unroll
  for (int r = 0; r < P; ++r) {
    const long long g = first + r;
    const bool real = g >= 0;
    rows.a[r] = real && g > 0 ? in.lower[g] : zero<T>();
    rows.b[r] = real ? in.diag[g] : from_real<T>(typename ScalarTraits<T>::Real(1));
    if (real && (g & 1) && in.diag_next != nullptr) rows.b[r] = add(rows.b[r], in.diag_next[g >> 1]);
    rows.c[r] = real && g + 1 < in.rows ? in.upper[g] : zero<T>();
  }
}

// P rows of one column from `first` (zeros for the padding).
template <class T, int P>
__device__ __forceinline__ void load_rows(const T* column, bool vectors, long long first, T (&d)[P]) {
  if (vectors && first >= 0) {
    load_vectors(column + first, d);
    return;
  }
#pragma unroll
  for (int r = 0; r < P; ++r) d[r] = first + r >= 0 ? column[first + r] : zero<T>();
}

template <class T, int P>
__device__ __forceinline__ void load_rhs(const LevelIn<T>& in, long long first, int column, T (&d)[P]) {
  load_rows(in.rhs + column * in.ld, in.vectors, first, d);
  if (in.rhs_next == nullptr) return;
  const T* next = in.rhs_next + column * in.ld_next;
  if (in.vectors && first >= 0) {
    T odd[P / 2];
    load_vectors(next + (first >> 1), odd);
#pragma unroll
    for (int j = 0; j < P / 2; ++j) d[2 * j + 1] = add(d[2 * j + 1], odd[j]);
    return;
  }
#pragma unroll
  for (int r = 0; r < P; ++r) {
    const long long g = first + r;
    if (g >= 0 && (g & 1)) d[r] = add(d[r], next[g >> 1]);
  }
}

template <class T, int P>
__device__ __forceinline__ void store_x(T* x, bool vectors, long long first, const T (&values)[P]) {
  if (vectors && first >= 0) {
    store_vectors(x + first, values);
    return;
  }
#pragma unroll
  for (int r = 0; r < P; ++r) {
    if (first + r >= 0) x[first + r] = values[r];
  }
}

// Fast approximate reciprocals (about single precision) for the window choice, which only ranks
// windows; the factorization itself divides exactly.
__device__ __forceinline__ float approx_reciprocal(float x) {
  float r;
  asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}
__device__ __forceinline__ double approx_reciprocal(double x) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  return r;
}
__device__ __forceinline__ float approx_divide(float a, float b) { return a * approx_reciprocal(b); }
__device__ __forceinline__ double approx_divide(double a, double b) { return a * approx_reciprocal(b); }
__device__ __forceinline__ cuComplex approx_divide(cuComplex a, cuComplex b) {
  const float scale = approx_reciprocal(b.x * b.x + b.y * b.y);
  return make_cuComplex((a.x * b.x + a.y * b.y) * scale, (a.y * b.x - a.x * b.y) * scale);
}
__device__ __forceinline__ cuDoubleComplex approx_divide(cuDoubleComplex a, cuDoubleComplex b) {
  const double scale = approx_reciprocal(b.x * b.x + b.y * b.y);
  return make_cuDoubleComplex((a.x * b.x + a.y * b.y) * scale, (a.y * b.x - a.x * b.y) * scale);
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

  // Erway and Marcia's choice: a 1 x 1 pivot where |b_r| sigma >= kappa |a_{r+1} c_r|.
  __device__ __forceinline__ static bool one_by_one(const T& b0, const T& c0, const T& a1, const T& b1, const T& c1,
                                                    const T& a2, bool third) {
    const Real kappa = Real(0.6180339887498949);  // (sqrt 5 - 1) / 2
    Real sigma = fmax(fmax(abs1(b0), abs1(c0)), fmax(abs1(a1), abs1(b1)));
    if (third) sigma = fmax(sigma, fmax(abs1(c1), abs1(a2)));
    return abs1(b0) * sigma >= kappa * abs1(a1) * abs1(c0);
  }

  // With Measure, also returns how well the block factors: window_quality's measure (below) of its
  // pivots, 1 x 1 pivots from row `pad` on, taken off the factor itself, beside the chain of
  // divisions rather than in a chain of its own. Without, returns 0.
  template <bool Measure = false>
  __device__ __forceinline__ Real factor(int pad = 0) {
    Real quality = Real(INFINITY);
    const auto measure_one = [&](int r) {
      if (!Measure) return;
      const Real pivot = abs1(b[r]);
      const Real ratio = pivot * approx_reciprocal(fmax(pivot, fmax(abs1(c[r]), abs1(a[r]))));
      if (r >= pad) quality = fmin(quality, pivot == Real(0) ? Real(-1) : ratio * ratio);
    };
    bool second = false;
    two = 0;  // the block may have been factored before (window A, then B)
#pragma unroll
    for (int r = 0; r < N; ++r) {
      inv[r] = zero<T>();
      mult[r] = zero<T>();
    }
#pragma unroll
    for (int r = 0; r < N; ++r) {
      if (second) {
        second = false;
        continue;
      }
      if (r + 1 == N) {
        measure_one(r);
        inv[r] = reciprocal(b[r]);
        continue;
      }
      const bool third = r + 2 < N;
      if (one_by_one(b[r], c[r], a[r + 1], b[r + 1], c[third ? r + 1 : r], a[third ? r + 2 : r], third)) {
        measure_one(r);
        inv[r] = reciprocal(b[r]);
        mult[r] = mul(a[r + 1], inv[r]);
        b[r + 1] = mul_sub(b[r + 1], mult[r], c[r]);
      } else {
        two |= 1u << r;
        second = true;
        const T det = mul_sub(mul(b[r], b[r + 1]), c[r], a[r + 1]);
        if (Measure) {
          const Real scale = fmax(fmax(abs1(b[r]), abs1(c[r])), fmax(abs1(a[r + 1]), abs1(b[r + 1])));
          const Real inverse = approx_reciprocal(scale);
          quality = fmin(quality, abs1(det) == Real(0) ? Real(-1) : abs1(det) * inverse * inverse);
        }
        inv[r] = reciprocal(det);
        if (third) {
          mult[r] = mul(a[r + 2], inv[r]);
          b[r + 2] = mul_sub(b[r + 2], mul(mult[r], b[r]), c[r + 1]);
        }
      }
    }
    return Measure ? quality : Real(0);
  }

  // The factor's terms out (term t at terms[t * stride]) and back in: `two` and the 2N - 1 terms
  // a later pass needs besides the block itself, inv of every row and mult of every row but the
  // last, as factor() left them (the terms a 2 x 2 block's second row leaves unset are zeros).
  // load() takes the block's own a, b and c already in place and recomputes the eliminated
  // diagonal by factor()'s operations but the reciprocals, without the chain of divisions: the
  // same operations in the same order, so the same values unless the compiler contracts a - b c
  // into fused multiply-adds differently in the two places.
  __device__ __forceinline__ void store(T* terms, long long stride) const {
#pragma unroll
    for (int r = 0; r < N; ++r) terms[r * stride] = inv[r];
#pragma unroll
    for (int r = 0; r + 1 < N; ++r) terms[(N + r) * stride] = mult[r];
  }
  __device__ __forceinline__ void load(const T* terms, long long stride, unsigned blocks) {
    two = blocks;
#pragma unroll
    for (int r = 0; r < N; ++r) inv[r] = terms[r * stride];
#pragma unroll
    for (int r = 0; r + 1 < N; ++r) mult[r] = terms[(N + r) * stride];
    forward_blocks([&](int r) { b[r + 1] = mul_sub(b[r + 1], mult[r], c[r]); },
                   [&](int r) {
                     if (r + 2 < N) b[r + 2] = mul_sub(b[r + 2], mul(mult[r], b[r]), c[r + 1]);
                   });
  }

  // Walks the factor's pivot blocks in order, but for a last row of its own: one(r) at a 1 x 1
  // block on row r, two_by_two(r) at a 2 x 2 block on rows r and r + 1.
  template <class One, class TwoByTwo>
  __device__ __forceinline__ void forward_blocks(One one, TwoByTwo two_by_two) const {
    bool second = false;
#pragma unroll
    for (int r = 0; r + 1 < N; ++r) {
      if (second) {
        second = false;
        continue;
      }
      if ((two >> r) & 1u) {
        second = true;
        two_by_two(r);
      } else {
        one(r);
      }
    }
  }

  // y <- A^-1 y.
  __device__ __forceinline__ void solve(T (&y)[N]) const {
    forward_blocks([&](int r) { y[r + 1] = mul_sub(y[r + 1], mult[r], y[r]); },
                   [&](int r) {
                     if (r + 2 < N) y[r + 2] = mul_sub(y[r + 2], mult[r], mul_sub(mul(b[r], y[r + 1]), a[r + 1], y[r]));
                   });
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

// How well the window of W rows from chunk row Offset (0: window A, 1: B) factors by diagonal
// pivoting, as reference::pivoting_window_quality measures it but squared (the same ranking with no
// square root) and with approximate division: the smallest pivot block relative to the entries
// around it, |b_k| / max(|b_k|, |c_k|, |a_k|) for a 1 x 1 block and sqrt|det| / (its largest
// entry) for a 2 x 2 one; -1 when a block is exactly singular. The window's first `pad` rows are
// chunk 0's identity padding, which the reference does not have: they are left out (a padding row
// is always a 1 x 1 block on its own). Window A is measured by Factor::factor<true> as it is
// factored; this measures window B, where A is not sure, without factoring it exactly.
template <class T, int P, int W, int Offset>
__device__ __forceinline__ typename ScalarTraits<T>::Real window_quality(const ChunkRows<T, P>& rows, int pad) {
  using Real = typename ScalarTraits<T>::Real;
  auto a = [&](int r) { return r == 0 ? zero<T>() : rows.a[r + Offset]; };
  auto c = [&](int r) { return r == W - 1 ? zero<T>() : rows.c[r + Offset]; };
  T b[W];
#pragma unroll
  for (int r = 0; r < W; ++r) b[r] = rows.b[r + Offset];
  Real quality = Real(INFINITY);
  bool second = false;
#pragma unroll
  for (int r = 0; r < W; ++r) {
    if (second) {
      second = false;
      continue;
    }
    const bool third = r + 2 < W;
    if (r + 1 == W || Factor<T, W>::one_by_one(b[r], c(r), a(r + 1), b[r + 1 < W ? r + 1 : r], c(third ? r + 1 : r),
                                               a(third ? r + 2 : r), third)) {
      const Real pivot = abs1(b[r]);
      const Real ratio = pivot * approx_reciprocal(fmax(pivot, fmax(abs1(c(r)), abs1(a(r)))));
      if (r >= pad) quality = fmin(quality, pivot == Real(0) ? Real(-1) : ratio * ratio);
      if (r + 1 < W) b[r + 1] = mul_sub(b[r + 1], approx_divide(a(r + 1), b[r]), c(r));
    } else {
      second = true;
      const T det = mul_sub(mul(b[r], b[r + 1]), c(r), a(r + 1));
      const Real scale = fmax(fmax(abs1(b[r]), abs1(c(r))), fmax(abs1(a(r + 1)), abs1(b[r + 1])));
      const Real inverse = approx_reciprocal(scale);
      quality = fmin(quality, abs1(det) == Real(0) ? Real(-1) : abs1(det) * inverse * inverse);
      if (third) b[r + 2] = mul_sub(b[r + 2], approx_divide(mul(a(r + 2), b[r]), det), c(r + 1));
    }
  }
  return quality;
}

// A chunk's chosen interior (rows [0, P - 2) for window A, [1, P - 1) for B), factored, with its
// couplings to the separators around it taken out: a_first to the one before, c_last to the one
// after.
template <class T, int P>
struct Window {
  static constexpr int W = P - 2;
  Factor<T, W> f;
  T a_first, c_last;
  bool b;
};

template <class T, int L>
__device__ __forceinline__ void window_of(const T (&y)[L], bool b, T (&yi)[L - 2]) {
#pragma unroll
  for (int r = 0; r < L - 2; ++r) yi[r] = b ? y[r + 1] : y[r];
}

// The window's rows, its couplings taken out, not yet factored.
template <class T, int P>
__device__ __forceinline__ void take_window(const ChunkRows<T, P>& rows, bool b, Window<T, P>& w) {
  constexpr int W = P - 2;
  w.b = b;
  window_of(rows.a, b, w.f.a);
  window_of(rows.b, b, w.f.b);
  window_of(rows.c, b, w.f.c);
  w.a_first = w.f.a[0];
  w.c_last = w.f.c[W - 1];
  w.f.a[0] = zero<T>();
  w.f.c[W - 1] = zero<T>();
}

// The chunk's rows from its interior's solution for y (yi, the separators' couplings not yet taken
// out) and the three separators around it: `outer` (the previous chunk's last row), `second` and
// `last` (this chunk's).
template <class T, int P>
__device__ __forceinline__ void chunk_solution(const Window<T, P>& w, const T (&y)[P], T outer, T second, T last,
                                               T (&x)[P]) {
  constexpr int W = P - 2;
  T yi[W];
  window_of(y, w.b, yi);
  yi[0] = mul_sub(yi[0], w.a_first, w.b ? second : outer);
  yi[W - 1] = mul_sub(yi[W - 1], w.c_last, w.b ? last : second);
  w.f.solve(yi);
#pragma unroll
  for (int r = 0; r < P; ++r) {
    const T in_a = r < W ? yi[r] : r == W ? second : last;
    const T in_b = r == 0 ? second : r <= W ? yi[r - 1] : last;
    x[r] = w.b ? in_b : in_a;
  }
}

// One row's residual y - a xm - b x0 - c xp, formed in twice the working precision and rounded
// once: in double for the single-precision types; for the double ones by error-free products
// (fma) and sums, accumulated with their errors (the compensated dot product of Ogita, Rump and
// Oishi, SIAM J. Sci. Comput. 26(6), 2005). A refinement step with a residual this accurate
// brings the forward error down to about eps wherever kappa(A) eps is well below one; in working
// precision it would stay near kappa(A) eps.
struct Compensated {
  double sum, error;
  __device__ __forceinline__ explicit Compensated(double start) : sum(start), error(0.0) {}
  __device__ __forceinline__ void subtract_product(double p, double q) {
    const double product = p * q;
    const double product_error = fma(p, q, -product);
    const double total = sum - product;
    const double z = total - sum;
    error += (sum - (total - z)) + (-product - z) - product_error;
    sum = total;
  }
  __device__ __forceinline__ double value() const { return sum + error; }
};

__device__ __forceinline__ float residual_row(float y, float a, float xm, float b, float x0, float c, float xp) {
  return static_cast<float>(static_cast<double>(y) - static_cast<double>(a) * xm - static_cast<double>(b) * x0 -
                            static_cast<double>(c) * xp);
}
__device__ __forceinline__ cuComplex residual_row(cuComplex y, cuComplex a, cuComplex xm, cuComplex b, cuComplex x0,
                                                  cuComplex c, cuComplex xp) {
  const auto part = [](double start, float p1, float q1, float p2, float q2, float p3, float q3, float p4, float q4,
                       float p5, float q5, float p6, float q6) {
    return static_cast<float>(start - static_cast<double>(p1) * q1 - static_cast<double>(p2) * q2 -
                              static_cast<double>(p3) * q3 - static_cast<double>(p4) * q4 -
                              static_cast<double>(p5) * q5 - static_cast<double>(p6) * q6);
  };
  // Re(a x) = a.x x.x - a.y x.y, Im(a x) = a.x x.y + a.y x.x.
  return make_cuComplex(part(y.x, a.x, xm.x, -a.y, xm.y, b.x, x0.x, -b.y, x0.y, c.x, xp.x, -c.y, xp.y),
                        part(y.y, a.x, xm.y, a.y, xm.x, b.x, x0.y, b.y, x0.x, c.x, xp.y, c.y, xp.x));
}
__device__ __forceinline__ double residual_row(double y, double a, double xm, double b, double x0, double c,
                                               double xp) {
  Compensated r(y);
  r.subtract_product(a, xm);
  r.subtract_product(b, x0);
  r.subtract_product(c, xp);
  return r.value();
}
__device__ __forceinline__ cuDoubleComplex residual_row(cuDoubleComplex y, cuDoubleComplex a, cuDoubleComplex xm,
                                                        cuDoubleComplex b, cuDoubleComplex x0, cuDoubleComplex c,
                                                        cuDoubleComplex xp) {
  Compensated re(y.x), im(y.y);
  re.subtract_product(a.x, xm.x);
  re.subtract_product(-a.y, xm.y);
  re.subtract_product(b.x, x0.x);
  re.subtract_product(-b.y, x0.y);
  re.subtract_product(c.x, xp.x);
  re.subtract_product(-c.y, xp.y);
  im.subtract_product(a.x, xm.y);
  im.subtract_product(a.y, xm.x);
  im.subtract_product(b.x, x0.y);
  im.subtract_product(b.y, x0.x);
  im.subtract_product(c.x, xp.y);
  im.subtract_product(c.y, xp.x);
  return make_cuDoubleComplex(re.value(), im.value());
}

// r = y - A x on the chunk's rows, each formed by residual_row; `before` and `after` are x of the
// rows before and after the chunk (zero where there is none: its coupling is zero too).
template <class T, int P>
__device__ __forceinline__ void chunk_residual(const ChunkRows<T, P>& rows, const T (&y)[P], const T (&x)[P], T before,
                                               T after, T (&r)[P]) {
#pragma unroll
  for (int i = 0; i < P; ++i) {
    r[i] = residual_row(y[i], rows.a[i], i > 0 ? x[i - 1] : before, rows.b[i], x[i], rows.c[i],
                        i + 1 < P ? x[i + 1] : after);
  }
}

template <int P>
__device__ __forceinline__ long long chunk_first(long long chunk, long long rows, long long chunks) {
  return chunk * P - (chunks * P - rows);
}

// A chunk of a level: where it starts, its rows, its window.
template <class T, int P>
struct Chunk {
  static_assert(2 * (P - 2) - 1 == kFactorTerms, "the buffer holds kFactorTerms terms a chunk");
  long long index, first, chunks;
  ChunkRows<T, P> rows;
  Window<T, P> window;
  T c_before;  // the coupling of the previous chunk's last row to this chunk's first

  // The window is chosen and factored (choose: the reduce pass of the first solve, which stores the
  // choice and the factor), or both are read back.
  __device__ __forceinline__ Chunk(const LevelIn<T>& in, const LevelOut<T>& out, long long chunk, bool choose)
      : index(chunk), chunks(out.rows / 2) {
    first = chunk_first<P>(chunk, in.rows, chunks);
    load_matrix(in, first, rows);
    if (choose) {
      // Window A is factored, and measured as it is; window B is looked at only where A has a
      // pivot below kSureQuality (a diagonally dominant matrix never does), and factored only
      // where it is better: the chain of pivots runs once where A is taken.
      const int pad = first < 0 ? static_cast<int>(-first) : 0;
      take_window(rows, false, window);
      const auto quality_a = window.f.template factor<true>(pad);
      bool b = false;
      if (!(quality_a >= kSureQuality)) {
        const auto quality_b = window_quality<T, P, P - 2, 1>(rows, pad > 0 ? pad - 1 : 0);
        b = quality_b > quality_a;
        if (out.refine != nullptr && fmax(quality_a, quality_b) < kSureQuality) *out.refine = 1;
        if (b) {
          take_window(rows, true, window);
          window.f.factor();
        }
      }
      if (out.factor != nullptr) window.f.store(out.factor + chunk, chunks);
      out.choice[chunk] = static_cast<unsigned char>((window.b ? 1u : 0u) | window.f.two << 1);
    } else {
      const unsigned code = out.choice[chunk];
      take_window(rows, (code & 1u) != 0, window);
      if (out.factor != nullptr) {
        window.f.load(out.factor + chunk, chunks, code >> 1);
      } else {
        window.f.factor();
      }
    }
    c_before = chunk > 0 ? in.upper[first - 1] : zero<T>();
  }

  // The rows of the second separator and the last.
  __device__ __forceinline__ T second_a() const { return window.b ? rows.a[0] : rows.a[P - 2]; }
  __device__ __forceinline__ T second_b() const { return window.b ? rows.b[0] : rows.b[P - 2]; }
  __device__ __forceinline__ T second_c() const { return window.b ? rows.c[0] : rows.c[P - 2]; }

  // The reduced rows' matrix terms (see the top of the file).
  __device__ __forceinline__ void reduce_matrix(const LevelOut<T>& out) const {
    constexpr int W = P - 2;
    T w[W], v[W];
#pragma unroll
    for (int r = 0; r < W; ++r) w[r] = v[r] = zero<T>();
    w[0] = window.a_first;
    v[W - 1] = window.c_last;
    window.f.solve(w);
    window.f.solve(v);
    const long long even = 2 * index, odd = even + 1;
    const T sa = second_a(), sb = second_b(), sc = second_c();
    const T la = rows.a[P - 1];
    if (window.b) {
      out.lower[even] = sa;
      out.diag[even] = mul_sub(sb, sc, w[0]);
      out.upper[even] = negate(mul(sc, v[0]));
      out.lower[odd] = negate(mul(la, w[W - 1]));
      out.diag[odd] = mul_sub(rows.b[P - 1], la, v[W - 1]);
    } else {
      out.lower[even] = index > 0 ? negate(mul(sa, w[W - 1])) : zero<T>();
      out.diag[even] = mul_sub(sb, sa, v[W - 1]);
      out.upper[even] = sc;
      out.lower[odd] = la;
      out.diag[odd] = rows.b[P - 1];
    }
    if (index > 0) {
      out.upper[even - 1] = window.b ? c_before : negate(mul(c_before, v[0]));
      out.diag_next[index - 1] = window.b ? zero<T>() : negate(mul(c_before, w[0]));
    }
    if (index + 1 == chunks) {
      out.upper[odd] = zero<T>();
      out.diag_next[index] = zero<T>();
    }
  }

  // The reduced rows' right-hand side terms of one column, y the chunk's rhs.
  __device__ __forceinline__ void reduce_rhs(const LevelOut<T>& out, int column, const T (&y)[P]) const {
    constexpr int W = P - 2;
    T yi[W];
    window_of(y, window.b, yi);
    window.f.solve(yi);
    const long long at = column * out.ld, at_next = column * out.ld_next;
    const long long even = 2 * index, odd = even + 1;
    if (window.b) {
      out.rhs[at + even] = mul_sub(y[0], second_c(), yi[0]);
      out.rhs[at + odd] = mul_sub(y[P - 1], rows.a[P - 1], yi[W - 1]);
    } else {
      out.rhs[at + even] = mul_sub(y[W], second_a(), yi[W - 1]);
      out.rhs[at + odd] = y[P - 1];
    }
    if (index > 0) out.rhs_next[at_next + index - 1] = window.b ? zero<T>() : negate(mul(c_before, yi[0]));
    if (index + 1 == chunks) out.rhs_next[at_next + index] = zero<T>();
  }

  // The three separators around the chunk in the reduced solution (above's x, n columns).
  __device__ __forceinline__ void separators(const LevelOut<T>& above, int column, T& outer, T& second,
                                             T& last) const {
    const T* s = above.x + column * above.ld;
    outer = index > 0 ? s[2 * index - 1] : zero<T>();
    second = s[2 * index];
    last = s[2 * index + 1];
  }
};

// Reduces chunk `chunk` of level `in` into `out`: with the matrix (the first solve) or the
// right-hand sides alone (the correction's, the matrix's terms and the window choice being the
// first solve's).
template <class T, int P>
__device__ __forceinline__ void reduce_chunk(const LevelIn<T>& in, const LevelOut<T>& out, int n, long long chunk,
                                             bool rhs_only) {
  const Chunk<T, P> c(in, out, chunk, !rhs_only);
  if (!rhs_only) c.reduce_matrix(out);
  for (int column = 0; column < n; ++column) {
    T y[P];
    load_rhs(in, c.first, column, y);
    c.reduce_rhs(out, column, y);
  }
}

// The chunk's rows solved with its separators known (above.x), written to x (column j at x + j*ldx).
template <class T, int P>
__device__ __forceinline__ void finish_chunk(const LevelIn<T>& in, const LevelOut<T>& above, T* x, long long ldx,
                                             bool vectors_out, int n, long long chunk) {
  const Chunk<T, P> c(in, above, chunk, false);
  for (int column = 0; column < n; ++column) {
    T y[P], solved[P], outer, second, last;
    load_rhs(in, c.first, column, y);
    c.separators(above, column, outer, second, last);
    chunk_solution(c.window, y, outer, second, last, solved);
    store_x(x + column * ldx, vectors_out, c.first, solved);
  }
}

// x of the rows just before and after a chunk of `rows` rows, from a whole solution column (zero
// where there is none).
template <class T, int P>
__device__ __forceinline__ void neighbours(const T* column, long long first, long long rows, T& before, T& after) {
  before = first > 0 ? column[first - 1] : zero<T>();
  after = first + P < rows ? column[first + P] : zero<T>();
}

// Level 0's residual b - A x1 of the first solve x1 (column j at x1 + j*ldx1, whole: written by the
// launch before), reduced into above's right-hand sides.
template <class T, int P>
__device__ __forceinline__ void residual_chunk(const LevelIn<T>& in, const LevelOut<T>& above, const T* x1,
                                               long long ldx1, int n, long long chunk) {
  const Chunk<T, P> c(in, above, chunk, false);
  for (int column = 0; column < n; ++column) {
    T y[P], first[P], r[P], before, after;
    load_rhs(in, c.first, column, y);
    const T* x1_column = x1 + column * ldx1;
    load_rows(x1_column, in.vectors, c.first, first);
    neighbours<T, P>(x1_column, c.first, in.rows, before, after);
    chunk_residual(c.rows, y, first, before, after, r);
    c.reduce_rhs(above, column, r);
  }
}

// Level 0's last pass: the residual again on the chunk's interior, solved with the correction's
// separators (above.x), added to x1 and written to x.
template <class T, int P>
__device__ __forceinline__ void correct_chunk(const LevelIn<T>& in, const LevelOut<T>& above, const T* x1,
                                              long long ldx1, T* x, long long ldx, int n, long long chunk) {
  const Chunk<T, P> c(in, above, chunk, false);
  for (int column = 0; column < n; ++column) {
    T y[P], first[P], r[P], delta[P], outer, second, last;
    load_rhs(in, c.first, column, y);
    const T* x1_column = x1 + column * ldx1;
    load_rows(x1_column, in.vectors, c.first, first);
    T before, after;
    neighbours<T, P>(x1_column, c.first, in.rows, before, after);
    chunk_residual(c.rows, y, first, before, after, r);
    c.separators(above, column, outer, second, last);
    chunk_solution(c.window, r, outer, second, last, delta);
#pragma unroll
    for (int i = 0; i < P; ++i) delta[i] = add(first[i], delta[i]);
    store_x(x + column * ldx, in.vectors, c.first, delta);
  }
}

// A level of at most P rows, solved whole (by one thread).
template <class T, int P>
__device__ __forceinline__ void top_solve(const LevelIn<T>& in, T* x, long long ldx, bool vectors_out, int n,
                                          int* refine) {
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
  if (f.template factor<true>(static_cast<int>(-first)) < kSureQuality && refine != nullptr) *refine = 1;
  for (int column = 0; column < n; ++column) {
    T y[P];
    load_rhs(in, first, column, y);
    f.solve(y);
    store_x(x + column * ldx, vectors_out, first, y);
  }
}

// A reduced level of at most kSerialRows rows (BlockLevels::serial), and every level above it,
// solved by LU with partial pivoting: LAPACK xGTSV's row interchanges (the larger of the two
// candidates in modulus, CABS1 for complex, is the pivot), one thread, in shared memory. Its
// chain is one reciprocal and two multiply-adds a row, where the chunk levels it replaces cost a
// step each of about 1300 dependent instructions (see the file's comment). The first solve
// factors it and keeps the factor in pBuffer (SerialFactor) for the correction, which only sweeps
// its right-hand sides. Partial pivoting is backward stable, so it never asks for refinement.
template <class T>
struct SerialFactor {
  T* mult;          // the multiplier of elimination step i
  T* inv;           // 1 / U(i, i)
  T* u1;            // U(i, i + 1)
  T* u2;            // U(i, i + 2), nonzero only after an interchange
  unsigned* swaps;  // bit i % 32 of word i / 32: step i interchanged rows i and i + 1
};

// 1 / x to about an ulp by the approximate reciprocal and Newton steps, no branch; `risky` is set
// where |x| (|x|^2 for complex) is outside [2^-120, 2^120] (f32) / [2^-1000, 2^1000] (f64), zero
// or not finite, where the approximation's flushes and overflows would make it wrong.
__device__ __forceinline__ float fast_reciprocal(float x, bool& risky) {
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  r = fmaf(r, fmaf(-x, r, 1.0f), r);
  const float size = fabsf(x);
  risky |= !(size >= 0x1p-120f && size <= 0x1p120f);
  return r;
}
__device__ __forceinline__ double fast_reciprocal(double x, bool& risky) {
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(x));
  r = fma(r, fma(-x, r, 1.0), r);
  r = fma(r, fma(-x, r, 1.0), r);
  const double size = fabs(x);
  risky |= !(size >= 0x1p-1000 && size <= 0x1p1000);
  return r;
}
__device__ __forceinline__ cuComplex fast_reciprocal(cuComplex x, bool& risky) {
  const float scale = fast_reciprocal(x.x * x.x + x.y * x.y, risky);
  return make_cuComplex(x.x * scale, -x.y * scale);
}
__device__ __forceinline__ cuDoubleComplex fast_reciprocal(cuDoubleComplex x, bool& risky) {
  const double scale = fast_reciprocal(x.x * x.x + x.y * x.y, risky);
  return make_cuDoubleComplex(x.x * scale, -x.y * scale);
}

// Shared memory of serial_solve: the level's lower, diagonal and upper entries become mult, inv
// and u1 in place as the elimination passes them; y holds a column, then its solution.
template <class T>
struct SerialRows {
  T mult[kSerialRows], inv[kSerialRows], u1[kSerialRows], u2[kSerialRows], y[kSerialRows];
  unsigned swaps[kSerialRows / 32];
};

// Row i of the level's column `column` (with its next-chunk term on odd rows of a reduced level).
template <class T>
__device__ __forceinline__ T level_rhs(const LevelIn<T>& in, int column, long long i) {
  T value = in.rhs[column * in.ld + i];
  if (in.rhs_next != nullptr && (i & 1)) value = add(value, in.rhs_next[column * in.ld_next + (i >> 1)]);
  return value;
}

// Thread 0: the elimination of the rows in `s` (mult: lower, inv: diagonal, u1: upper) and of y
// alongside; the factor and U y are left in `s`. Each step's chain is the comparison, the pivot's
// reciprocal and the carried diagonal's multiply-add: the next row is loaded a step ahead, and
// both outcomes of the comparison are formed and selected rather than branched to.
//
// Fast: the pivot's reciprocal by the approximate one and Newton steps (fast_reciprocal), with no
// branch on the chain; where a pivot is outside the range where that is exact to about an ulp
// (tiny, huge, zero or not finite) it returns true, and the caller factors again with IEEE
// reciprocals (Fast false).
template <bool Fast, class T>
__device__ __forceinline__ bool serial_factor(SerialRows<T>& s, int rows) {
  bool risky = false;
  T carried_b = s.inv[0], carried_c = s.u1[0], carried_y = s.y[0];
  const int ahead = rows > 1 ? 1 : 0;
  T lower = s.mult[ahead], diag = s.inv[ahead], upper = s.u1[ahead], y = s.y[ahead];
  unsigned word = 0;
  for (int i = 0; i + 1 < rows; ++i) {
    const int next = min(i + 2, rows - 1);
    const T next_lower = s.mult[next], next_diag = s.inv[next], next_upper = s.u1[next], next_y = s.y[next];
    const bool swap = abs1(carried_b) < abs1(lower);
    const T pivot = swap ? lower : carried_b;
    const T inv = Fast ? fast_reciprocal(pivot, risky) : reciprocal(pivot);
    const T mult = mul(swap ? carried_b : lower, inv);
    s.mult[i] = mult;
    s.inv[i] = inv;
    s.u1[i] = swap ? diag : carried_c;
    s.u2[i] = swap ? upper : zero<T>();
    s.y[i] = swap ? y : carried_y;
    const T next_b = mul_sub(swap ? carried_c : diag, mult, swap ? diag : carried_c);
    const T scaled_upper = mul(mult, upper);
    carried_c = swap ? negate(scaled_upper) : upper;
    carried_y = mul_sub(swap ? carried_y : y, mult, swap ? y : carried_y);
    carried_b = next_b;
    word |= (swap ? 1u : 0u) << (i & 31);
    if ((i & 31) == 31) {
      s.swaps[i >> 5] = word;
      word = 0;
    }
    lower = next_lower, diag = next_diag, upper = next_upper, y = next_y;
  }
  const int last = rows - 1;
  if (last & 31) s.swaps[last >> 5] = word;
  s.mult[last] = zero<T>();
  s.inv[last] = Fast ? fast_reciprocal(carried_b, risky) : reciprocal(carried_b);
  s.u1[last] = zero<T>();
  s.u2[last] = zero<T>();
  s.y[last] = carried_y;
  return risky;
}

// Thread 0: U y from y by the factor's steps.
template <class T>
__device__ __forceinline__ void serial_forward(SerialRows<T>& s, int rows) {
  T carried = s.y[0];
  const int ahead = rows > 1 ? 1 : 0;
  T y = s.y[ahead], mult = s.mult[0];
  unsigned word = s.swaps[0];
  for (int i = 0; i + 1 < rows; ++i) {
    const int next = min(i + 2, rows - 1);
    const T next_y = s.y[next], next_mult = s.mult[i + 1];
    const unsigned next_word = s.swaps[(i + 1) >> 5];
    const bool swap = (word >> (i & 31)) & 1u;
    s.y[i] = swap ? y : carried;
    carried = mul_sub(swap ? carried : y, mult, swap ? y : carried);
    y = next_y, mult = next_mult, word = next_word;
  }
  s.y[rows - 1] = carried;
}

// Thread 0: y <- U^-1 y.
template <class T>
__device__ __forceinline__ void serial_backward(SerialRows<T>& s, int rows) {
  T after = mul(s.y[rows - 1], s.inv[rows - 1]), later = zero<T>();
  s.y[rows - 1] = after;
  const int ahead = rows > 1 ? rows - 2 : 0;
  T y = s.y[ahead], u1 = s.u1[ahead], u2 = s.u2[ahead], inv = s.inv[ahead];
  for (int i = rows - 2; i >= 0; --i) {
    const int next = max(i - 1, 0);
    const T next_y = s.y[next], next_u1 = s.u1[next], next_u2 = s.u2[next], next_inv = s.inv[next];
    // The term of x_{i+2}, known a step earlier, first: two operations on the chain a row.
    const T x = mul(mul_sub(mul_sub(y, u2, later), u1, after), inv);
    s.y[i] = x;
    later = after;
    after = x;
    y = next_y, u1 = next_u1, u2 = next_u2, inv = next_inv;
  }
}

// A factor's rows and interchange words from one place to another, by the block.
template <class T>
__device__ __forceinline__ void copy_factor(const SerialFactor<T>& from, const SerialFactor<T>& to, int rows,
                                            int words) {
  for (int i = threadIdx.x; i < rows; i += blockDim.x) {
    to.mult[i] = from.mult[i];
    to.inv[i] = from.inv[i];
    to.u1[i] = from.u1[i];
    to.u2[i] = from.u2[i];
  }
  for (int w = threadIdx.x; w < words; w += blockDim.x) to.swaps[w] = from.swaps[w];
}

// The level `in` solved into x (leading dimension ldx) for n columns by the block: factored
// (and the factor kept in f), or, with rhs_only, by the factor kept before.
template <class T>
__device__ void serial_solve(const LevelIn<T>& in, const SerialFactor<T>& f, T* x, long long ldx, int n,
                             bool rhs_only) {
  __shared__ SerialRows<T> s;
  const int rows = static_cast<int>(in.rows);
  __shared__ bool risky;
  const int words = (rows + 30) / 32;  // of the rows - 1 steps
  const auto load_level = [&] {
    for (int i = threadIdx.x; i < rows; i += blockDim.x) {
      s.mult[i] = i > 0 ? in.lower[i] : zero<T>();
      T diag = in.diag[i];
      if (in.diag_next != nullptr && (i & 1)) diag = add(diag, in.diag_next[i >> 1]);
      s.inv[i] = diag;
      s.u1[i] = i + 1 < rows ? in.upper[i] : zero<T>();
    }
  };
  const SerialFactor<T> on_chip{s.mult, s.inv, s.u1, s.u2, s.swaps};
  if (rhs_only) {
    copy_factor(f, on_chip, rows, words);
  } else {
    load_level();
  }
  for (int column = 0; column < n; ++column) {
    for (int i = threadIdx.x; i < rows; i += blockDim.x) s.y[i] = level_rhs(in, column, i);
    __syncthreads();
    if (column == 0 && !rhs_only) {
      if (threadIdx.x == 0) risky = serial_factor<true>(s, rows);
      __syncthreads();
      if (risky) {
        // Again from the level's rows, with IEEE reciprocals.
        load_level();
        for (int i = threadIdx.x; i < rows; i += blockDim.x) s.y[i] = level_rhs(in, 0, i);
        __syncthreads();
        if (threadIdx.x == 0) serial_factor<false>(s, rows);
      }
    } else if (threadIdx.x == 0) {
      serial_forward(s, rows);
    }
    if (threadIdx.x == 0) serial_backward(s, rows);
    __syncthreads();
    for (int i = threadIdx.x; i < rows; i += blockDim.x) x[column * ldx + i] = s.y[i];
    if (column == 0 && !rhs_only) copy_factor(on_chip, f, rows, words);
    __syncthreads();  // s.y is loaded again
  }
}

// Programmatic dependent launch (sm_90 on; solve_with's chained launches): a kernel of the
// solve lets the next one be scheduled as soon as all its blocks run (launch_dependents), and
// waits, before anything else, until the one before it has completed and its writes are visible
// (wait). Every block waits first, so a kernel completes only after its predecessor has: what any
// earlier kernel of the chain wrote is visible too. Below sm_90 (no chained launch) both are
// nothing.
__device__ __forceinline__ void follow_previous_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ long long grid_chunk() {
  return static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
}

__device__ __forceinline__ long long grid_threads() { return static_cast<long long>(gridDim.x) * kThreads; }

// The first solve's reduce and finish launches take a thread a chunk. The refinement's (Refine:
// the correction's right-hand sides alone, and residual_kernel and correct_kernel) return at once
// where no pivot was small, so they are launched with at most one wave of blocks (grid_for), each
// thread taking chunks a grid apart: a launch that returns then costs one wave, not one per
// resident grid's worth of chunks.
// Whether the first solve's launches return at once (LevelOut::pivot).
template <class T>
__device__ __forceinline__ bool solved_without_pivoting(const LevelOut<T>& out) {
  return out.pivot != nullptr && *out.pivot == 0;
}

template <class T, int P, bool Refine>
__global__ void __launch_bounds__(kThreads) reduce_kernel(LevelIn<T> in, LevelOut<T> out, int n) {
  follow_previous_kernel();
  if (!Refine) {
    if (solved_without_pivoting(out)) return;
    if (const long long chunk = grid_chunk(); chunk < out.rows / 2) reduce_chunk<T, P>(in, out, n, chunk, false);
    return;
  }
  if (*out.refine == 0) return;
  for (long long chunk = grid_chunk(); chunk < out.rows / 2; chunk += grid_threads()) {
    reduce_chunk<T, P>(in, out, n, chunk, true);
  }
}

template <class T, int P, bool Refine>
__global__ void __launch_bounds__(kThreads)
    finish_kernel(LevelIn<T> in, LevelOut<T> above, T* x, long long ldx, bool vectors_out, int n) {
  follow_previous_kernel();
  if (!Refine) {
    if (solved_without_pivoting(above)) return;
    if (const long long chunk = grid_chunk(); chunk < above.rows / 2) {
      finish_chunk<T, P>(in, above, x, ldx, vectors_out, n, chunk);
    }
    return;
  }
  if (*above.refine == 0) return;
  for (long long chunk = grid_chunk(); chunk < above.rows / 2; chunk += grid_threads()) {
    finish_chunk<T, P>(in, above, x, ldx, vectors_out, n, chunk);
  }
}

// Level 0's finish of the first solve: written where the caller wants it where no pivot was
// small, else kept as x1 for the refinement.
template <class T, int P>
__global__ void __launch_bounds__(kThreads)
    finish0_kernel(LevelIn<T> in, LevelOut<T> above, T* x1, long long ldx1, T* x, long long ldx, int n) {
  follow_previous_kernel();
  const long long chunk = grid_chunk();
  if (chunk >= above.rows / 2 || solved_without_pivoting(above)) return;
  if (*above.refine == 0) {
    finish_chunk<T, P>(in, above, x, ldx, in.vectors, n, chunk);
  } else {
    finish_chunk<T, P>(in, above, x1, ldx1, in.vectors, n, chunk);
  }
}

template <class T, int P>
__global__ void __launch_bounds__(kThreads)
    residual_kernel(LevelIn<T> in, LevelOut<T> above, const T* x1, long long ldx1, int n) {
  follow_previous_kernel();
  if (*above.refine == 0) return;
  for (long long chunk = grid_chunk(); chunk < above.rows / 2; chunk += grid_threads()) {
    residual_chunk<T, P>(in, above, x1, ldx1, n, chunk);
  }
}

template <class T, int P>
__global__ void __launch_bounds__(kThreads)
    correct_kernel(LevelIn<T> in, LevelOut<T> above, const T* x1, long long ldx1, T* x, long long ldx, int n) {
  follow_previous_kernel();
  if (*above.refine == 0) return;
  for (long long chunk = grid_chunk(); chunk < above.rows / 2; chunk += grid_threads()) {
    correct_chunk<T, P>(in, above, x1, ldx1, x, ldx, n, chunk);
  }
}

// Sets *pivot (nonzero) unless every row of the matrix is diagonally dominant, |d_i| >= |dl_i| +
// |du_i| (moduli; dl_0 and du_{m-1} are not read, as in cuSPARSE) with d_i nonzero and finite.
// Elimination without pivoting is stable on such a matrix: every pivot is at least its row's upper
// entry in modulus, zero only where a block of rows decoupled from the rest is singular (so is the
// matrix), and the growth is bounded; the partition solver's reduced systems stay dominant
// (partition.cu). A NaN or an Inf anywhere in the matrix fails the test.
// A block stops at its first failing row and writes its verdict to its own slot of `blocks`; the
// last block to finish (the count `done`, zero at launch) reads them all and sets *pivot. No
// address is stored to by more than one block: where every block of a wave stored its failure to
// *pivot itself, the stores queued at one L2 slice (H200, f32 m = 2^20, a random matrix: 114 us
// for the kernel, against about 3 us to read a dominant one).
template <class T>
__global__ void __launch_bounds__(kThreads) dominance_kernel(const T* dl, const T* d, const T* du, long long m,
                                                             int* pivot, int* blocks, unsigned* done) {
  using Real = typename ScalarTraits<T>::Real;
  bool failed = false;
  for (long long first = static_cast<long long>(blockIdx.x) * kThreads; first < m; first += grid_threads()) {
    const long long row = first + threadIdx.x;
    bool fails = false;
    if (row < m) {
      const Real lower = row > 0 ? modulus(dl[row]) : Real(0);
      const Real upper = row + 1 < m ? modulus(du[row]) : Real(0);
      const Real diagonal = modulus(d[row]);
      // A finite diagonal at least lower + upper makes those finite too.
      fails = !(diagonal >= lower + upper) || diagonal == Real(0) || !isfinite(diagonal);
    }
    if (__syncthreads_or(fails)) {
      failed = true;
      break;
    }
  }
  __shared__ bool last;
  if (threadIdx.x == 0) {
    blocks[blockIdx.x] = failed ? 1 : 0;
    __threadfence();  // the verdict is seen before the count
    last = atomicAdd(done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  bool any = false;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += kThreads) any |= __ldcg(&blocks[b]) != 0;
  if (__syncthreads_or(any) && threadIdx.x == 0) *pivot = 1;
}

// The levels from `from` up, reduced, solved and finished by one block: the small levels cost a
// launch each otherwise. Level l reads ins[l]; its reduced system is outs[l + 1]; its solution
// goes to xs[l] (leading dimension lds[l]). The block's barriers order its global writes and
// reads.
template <class T>
struct BlockLevels {
  LevelIn<T> ins[kMaxLevels];
  LevelOut<T> outs[kMaxLevels];
  T* xs[kMaxLevels];
  long long lds[kMaxLevels];
  T* x1;  // refinement's first solution of level 0
  long long ldx1;
  int* flag;  // LevelOut::refine; flag + kPivotFlag: LevelOut::pivot
  SerialFactor<T> serial_factor;
  int from;
  int top;
  int serial;  // the level solved by serial_solve, with every level above it; 0: none (top_solve)
  bool refine;
};

template <class T, int P>
__device__ void block_levels(const BlockLevels<T>& levels, int n, int from, bool rhs_only) {
  const int stop = levels.serial > 0 ? levels.serial : levels.top;
  for (int level = from; level < stop; ++level) {
    for (long long chunk = threadIdx.x; chunk < levels.outs[level + 1].rows / 2; chunk += blockDim.x) {
      reduce_chunk<T, P>(levels.ins[level], levels.outs[level + 1], n, chunk, rhs_only);
    }
    __syncthreads();
  }
  if (levels.serial > 0) {
    serial_solve<T>(levels.ins[stop], levels.serial_factor, levels.xs[stop], levels.lds[stop], n, rhs_only);
  } else {
    if (threadIdx.x == 0) {
      top_solve<T, P>(levels.ins[stop], levels.xs[stop], levels.lds[stop], levels.ins[stop].vectors, n,
                      rhs_only ? nullptr : levels.outs[1].refine);
    }
    __syncthreads();
  }
  // Level 0 is finished here only without refinement.
  const int last = from > 0 ? from : levels.refine ? 1 : 0;
  for (int level = stop - 1; level >= last; --level) {
    const LevelOut<T>& above = levels.outs[level + 1];
    for (long long chunk = threadIdx.x; chunk < above.rows / 2; chunk += blockDim.x) {
      finish_chunk<T, P>(levels.ins[level], above, levels.xs[level], levels.lds[level],
                         levels.ins[level].vectors, n, chunk);
    }
    __syncthreads();
  }
}

// The first solve from levels.from up (rhs_only false), or the correction's (true). Where the block
// holds level 0 and refines, the first solve goes on through the whole correction.
template <class T, int P>
__device__ void block_solve(const BlockLevels<T>& levels, int n, bool rhs_only) {
  if (rhs_only && *levels.outs[1].refine == 0) return;
  if (!rhs_only && solved_without_pivoting(levels.outs[levels.top])) return;
  block_levels<T, P>(levels, n, levels.from, rhs_only);
  if (rhs_only || levels.from > 0 || !levels.refine) return;
  const LevelOut<T>& above = levels.outs[1];
  if (*above.refine == 0) {
    for (long long chunk = threadIdx.x; chunk < above.rows / 2; chunk += blockDim.x) {
      finish_chunk<T, P>(levels.ins[0], above, levels.xs[0], levels.lds[0], levels.ins[0].vectors, n, chunk);
    }
    return;
  }
  for (long long chunk = threadIdx.x; chunk < above.rows / 2; chunk += blockDim.x) {
    finish_chunk<T, P>(levels.ins[0], above, levels.x1, levels.ldx1, levels.ins[0].vectors, n, chunk);
  }
  __syncthreads();
  for (long long chunk = threadIdx.x; chunk < above.rows / 2; chunk += blockDim.x) {
    residual_chunk<T, P>(levels.ins[0], above, levels.x1, levels.ldx1, n, chunk);
  }
  __syncthreads();
  block_levels<T, P>(levels, n, 1, true);
  for (long long chunk = threadIdx.x; chunk < above.rows / 2; chunk += blockDim.x) {
    correct_chunk<T, P>(levels.ins[0], above, levels.x1, levels.ldx1, levels.xs[0], levels.lds[0], n, chunk);
  }
}

template <class T, int P>
__global__ void __launch_bounds__(kBlockThreads) block_kernel(BlockLevels<T> levels, int n, bool rhs_only) {
  follow_previous_kernel();
  block_solve<T, P>(levels, n, rhs_only);
}

// Many systems, one block each (pivoting_solve_batched): block b takes `levels` (system 0's
// arrays) moved to system b, level 0 by b m elements and pBuffer's levels by b buffer_stride
// bytes, resets its refinement flag and solves the whole system, refinement included.
template <class U>
__device__ void move_pointer(U*& pointer, long long bytes) {
  if (pointer != nullptr) pointer = reinterpret_cast<U*>(reinterpret_cast<std::uintptr_t>(pointer) + bytes);
}

template <class T>
__device__ void move_levels(BlockLevels<T>& levels, long long rows, long long bytes) {
  const auto move = [bytes](auto*& pointer) { move_pointer(pointer, bytes); };
  LevelIn<T>& in0 = levels.ins[0];
  in0.lower += rows;
  in0.diag += rows;
  in0.upper += rows;
  in0.rhs += rows;
  levels.xs[0] += rows;
  for (int level = 1; level <= levels.top; ++level) {
    LevelIn<T>& in = levels.ins[level];
    move(in.lower), move(in.diag), move(in.diag_next), move(in.upper), move(in.rhs), move(in.rhs_next);
    LevelOut<T>& out = levels.outs[level];
    move(out.lower), move(out.diag), move(out.diag_next), move(out.upper), move(out.rhs), move(out.rhs_next);
    move(out.x), move(out.factor), move(out.choice), move(out.refine);
    move(levels.xs[level]);
  }
  move(levels.x1);
  move(levels.flag);
  SerialFactor<T>& f = levels.serial_factor;
  move(f.mult), move(f.inv), move(f.u1), move(f.u2), move(f.swaps);
}

template <class T, int P>
__global__ void __launch_bounds__(kBlockThreads)
    batched_block_kernel(BlockLevels<T> levels, int m, long long buffer_stride, int refine_mode) {
  // One copy a block: block_solve reads the levels from shared memory.
  __shared__ __align__(16) unsigned char storage[sizeof(BlockLevels<T>)];
  BlockLevels<T>& mine = *reinterpret_cast<BlockLevels<T>*>(storage);
  if (threadIdx.x == 0) {
    mine = levels;
    move_levels(mine, static_cast<long long>(blockIdx.x) * m, static_cast<long long>(blockIdx.x) * buffer_stride);
    if (mine.refine) *mine.flag = refine_mode == 2 ? 1 : 0;
  }
  __syncthreads();
  block_solve<T, P>(mine, 1, false);
}

// The levels' rows: levels[0] = m, each next 2 ceil(previous / P), until one of at most P rows.
struct PivotPlan {
  int count = 0;  // levels, the caller's included
  long long rows[kMaxLevels] = {};
};

PivotPlan plan_pivot(long long m, int P) {
  PivotPlan plan;
  plan.rows[plan.count++] = m;
  while (plan.rows[plan.count - 1] > P && plan.count < kMaxLevels) {
    plan.rows[plan.count] = 2 * ((plan.rows[plan.count - 1] + P - 1) / P);
    ++plan.count;
  }
  return plan;
}

constexpr std::size_t kAlign = 256;
// The flags of a buffer (BlockLevels::flag), ints from its start: the refinement's at 0, the pivot
// flag 128 bytes on (a line of its own; measured no different from the next int),
// dominance_kernel's count of blocks done; then, for one column, dominance_kernel's
// verdicts, one int a block, at most kDominanceBlocks blocks.
constexpr int kPivotFlag = 32;
constexpr int kDoneFlag = 48;
constexpr int kVerdicts = 64;
constexpr unsigned kDominanceBlocks = 4096;
std::size_t aligned(std::size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// The flags' room in a buffer laid out with `reserve` (a dominant matrix's partition solve, one
// column only: then the dominance check's too).
std::size_t flag_bytes(std::size_t reserve) {
  return reserve > 0 ? aligned((kVerdicts + kDominanceBlocks) * sizeof(int)) : kAlign;
}

// x1's leading dimension: m rounded up to whole 16-byte vectors.
long long x1_ld(long long m, std::size_t element) {
  const long long per = static_cast<long long>(16 / std::min<std::size_t>(element, 16));
  return (m + per - 1) / per * per;
}

// Carves a reduced level of R rows from `offset` (or only counts it, with a null base): three
// matrix arrays of R and diag_next of R / 2, rhs and x of n columns of R, rhs_next of n columns of
// R / 2, the chunk factors (kFactorTerms R / 2) and R / 2 choice bytes. The arrays the next level
// reads by chunk start pad = ceil(R / P) P - R elements (pad / 2 for the _next arrays) into their
// allocation, and their columns are whole multiples of P (P / 2) elements apart, so that the next
// level's chunk k starts k P elements (k P / 2) from a 256-byte boundary and moves as 16-byte
// vectors. pad is even (R is), so a chunk's first row is even there and its odd rows' _next terms
// are P / 2 consecutive elements.
template <class T>
LevelOut<T> carve(std::size_t& offset, unsigned char* base, long long rows, int n, int P) {
  const std::size_t element = sizeof(T);
  const long long pad = (rows + P - 1) / P * P - rows;
  const auto round_up = [](long long v, long long to) { return (v + to - 1) / to * to; };
  const long long ld = round_up(rows + pad, P), ld_next = round_up(rows / 2 + pad / 2, P / 2);
  const std::size_t columns = static_cast<std::size_t>(n);
  LevelOut<T> out{};
  out.rows = rows;
  out.ld = ld;
  out.ld_next = ld_next;
  auto take = [&](std::size_t elements, long long skip) {
    T* p = base != nullptr ? reinterpret_cast<T*>(base + offset) + skip : nullptr;
    offset += aligned(elements * element);
    return p;
  };
  const std::size_t padded = static_cast<std::size_t>(rows + pad);
  const std::size_t padded_next = static_cast<std::size_t>(rows / 2 + pad / 2);
  out.lower = take(padded, pad);
  out.diag = take(padded, pad);
  out.upper = take(padded, pad);
  out.diag_next = take(padded_next, pad / 2);
  out.rhs = take(static_cast<std::size_t>(ld) * columns, pad);
  out.x = take(static_cast<std::size_t>(ld) * columns, pad);
  out.rhs_next = take(static_cast<std::size_t>(ld_next) * columns, pad / 2);
  out.factor = take(static_cast<std::size_t>(rows / 2) * kFactorTerms, 0);
  unsigned char* choice = base != nullptr ? base + offset : nullptr;
  offset += aligned(static_cast<std::size_t>(rows / 2));
  out.choice = choice;
  return out;
}

unsigned blocks_for(long long threads) { return static_cast<unsigned>((threads + kThreads - 1) / kThreads); }

long long block_rows_limit() {
  const long long rows = config().pivot_block_rows;
  return rows > 0 ? rows : kBlockRows;
}

// The first level from `from` (and never level 0) of at most serial_rows rows
// (IDGPU_PIVOT_SERIAL_ROWS, 0 for none); 0 where there is none.
int serial_level(const PivotPlan& plan, int from) {
  const int setting = config().pivot_serial_rows;
  const long long limit = setting >= 0 ? std::min(setting, kSerialRows) : kSerialDefault;
  for (int level = std::max(from, 1); level < plan.count; ++level) {
    if (plan.rows[level] <= limit) return level;
  }
  return 0;
}

// IDGPU_PIVOT_REFINE: 0 leaves out the refinement step, 2 runs it whatever the pivots (both for
// measurements and tests; 0 logs a warning at load); otherwise it runs where a pivot was small.
int refinement_mode() { return config().pivot_refine; }

// IDGPU_PIVOT_DOMINANT_ROWS, a measurement aid: the longest system checked for dominance first.
long long dominant_rows_limit() {
  const long long rows = config().pivot_dominant_rows;
  return rows > 0 ? rows : kDominantFirstRows;
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

// What solve_with's partition solve of a dominant matrix needs of the buffer (one column only).
std::size_t dominant_reserve(int m, int n, std::size_t element) {
  return n == 1 ? partition_columns_buffer_bytes(m, 1, static_cast<int>(element)) : 0;
}

// `reserve`: bytes from the buffer's start that the partition solver may use instead (the solve of
// a diagonally dominant matrix, solve_with), below the flags.
template <class T>
std::size_t layout(int m, int n, int P, unsigned char* base, BlockLevels<T>* levels, std::size_t reserve = 0) {
  const PivotPlan plan = plan_pivot(m, P);
  std::size_t offset = 0;
  // The reduced levels' chunks move as 16-byte vectors (see carve) where pBuffer is aligned for
  // them; the dispatch asks it only to be aligned for the element.
  const bool vectors = base != nullptr && aligned16(base);
  for (int level = 1; level < plan.count; ++level) {
    const LevelOut<T> o = carve<T>(offset, base, plan.rows[level], n, P);
    if (levels == nullptr) continue;
    levels->outs[level] = o;
    levels->ins[level] =
        LevelIn<T>{o.lower, o.diag, o.diag_next, o.upper, o.rhs, o.rhs_next, o.ld, o.ld_next, o.rows, vectors};
    levels->xs[level] = o.x;
    levels->lds[level] = o.ld;
  }
  if (plan.count > 1) {
    const long long ld = x1_ld(m, sizeof(T));
    unsigned char* x1 = base != nullptr ? base + offset : nullptr;
    offset += aligned(static_cast<std::size_t>(ld) * static_cast<std::size_t>(n) * sizeof(T));
    // The serial solve's factor, for the largest level it may take (a later `from` only makes it
    // smaller).
    if (const int serial = serial_level(plan, 1); serial > 0) {
      const long long rows = plan.rows[serial];
      SerialFactor<T> f{};
      for (T** array : {&f.mult, &f.inv, &f.u1, &f.u2}) {
        *array = base != nullptr ? reinterpret_cast<T*>(base + offset) : nullptr;
        offset += aligned(static_cast<std::size_t>(rows) * sizeof(T));
      }
      f.swaps = base != nullptr ? reinterpret_cast<unsigned*>(base + offset) : nullptr;
      offset += aligned(static_cast<std::size_t>((rows + 31) / 32) * sizeof(unsigned));
      if (levels != nullptr) levels->serial_factor = f;
    }
    offset = std::max(offset, aligned(reserve));
    // The flags: the refinement's (LevelOut::refine), then LevelOut::pivot.
    unsigned char* flag = base != nullptr ? base + offset : nullptr;
    offset += flag_bytes(reserve);
    if (levels != nullptr) {
      levels->x1 = reinterpret_cast<T*>(x1);
      levels->ldx1 = ld;
      levels->flag = reinterpret_cast<int*>(flag);
    }
  }
  if (levels != nullptr) levels->top = plan.count - 1;
  return offset;
}

// Whether the current device takes programmatic dependent launches (sm_90 on), asked once per
// device.
bool chained_launches() {
  constexpr int kDevices = 64;
  static std::atomic<int> known[kDevices];  // 0 unknown, 1 yes, -1 no
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kDevices) return false;
  if (known[device].load(std::memory_order_relaxed) == 0) {
    int major = 0;
    const bool yes =
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess && major >= 9;
    cudaGetLastError();
    known[device].store(yes ? 1 : -1, std::memory_order_relaxed);
  }
  return known[device].load(std::memory_order_relaxed) > 0;
}

// The blocks of Kernel (kThreads a block) the current device holds at once, asked once per kernel
// and device; 0 where it cannot say.
template <auto Kernel>
unsigned resident_blocks() {
  constexpr int kDevices = 64;
  static std::atomic<unsigned> known[kDevices];
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kDevices) return 0;
  unsigned blocks = known[device].load(std::memory_order_relaxed);
  if (blocks == 0) {
    int per_multiprocessor = 0, multiprocessors = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, Kernel, kThreads, 0) == cudaSuccess &&
        cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device) == cudaSuccess) {
      blocks = static_cast<unsigned>(std::max(per_multiprocessor, 1) * multiprocessors);
    }
    cudaGetLastError();
    known[device].store(blocks, std::memory_order_relaxed);
  }
  return blocks;
}

// Blocks for `chunks` chunks, at most one wave of Kernel.
template <auto Kernel>
unsigned grid_for(long long chunks) {
  const unsigned blocks = blocks_for(chunks);
  const unsigned wave = resident_blocks<Kernel>();
  return wave > 0 ? std::min(blocks, wave) : blocks;
}

// One launch of solve_with's sequence: after the first, each may start (and wait in
// follow_previous_kernel) while the one before it finishes, where `chained`.
template <class... Parameters, class... Arguments>
cudaError_t launch_level(void (*kernel)(Parameters...), unsigned blocks, unsigned threads, cudaStream_t stream,
                         bool chained, Arguments... arguments) {
  return launch::counted([&] {
    cudaLaunchConfig_t launch_config = {};
    launch_config.gridDim = dim3(blocks);
    launch_config.blockDim = dim3(threads);
    launch_config.stream = stream;
    cudaLaunchAttribute attribute = {};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    if (chained) {
      launch_config.attrs = &attribute;
      launch_config.numAttrs = 1;
    }
    const cudaError_t status = cudaLaunchKernelEx(&launch_config, kernel, arguments...);
    return status != cudaSuccess ? status : cudaGetLastError();
  });
}

template <class T, int P>
cudaError_t solve_with(int m, int n, int ldb, const T* dl, const T* d, const T* du, T* B, void* buffer,
                       cudaStream_t stream, bool check_dominance) {
  const PivotPlan plan = plan_pivot(m, P);
  if (plan.rows[plan.count - 1] > P) return cudaErrorNotSupported;
  BlockLevels<T> levels{};
  layout<T>(m, n, P, static_cast<unsigned char*>(buffer), &levels, dominant_reserve(m, n, sizeof(T)));
  if (m >= kStoreFactorsBelow) levels.outs[1].factor = nullptr;
  const int mode = refinement_mode();
  levels.refine = levels.top > 0 && mode != 0;
  // The first level small enough for one block, and every level above it, go to block_kernel.
  const long long block_rows = block_rows_limit();
  levels.from = levels.top;
  while (levels.from > 0 && plan.rows[levels.from - 1] <= block_rows) --levels.from;
  levels.serial = serial_level(plan, levels.from);
  // One column of a system longer than the one-block kernel's levels: where its matrix is
  // diagonally dominant (dominance_kernel), the partition solver, which does not pivot, solves it
  // into B, and the launches below return at once; elsewhere the partition solver's launches return
  // at once and B is left for them. (The one-block solve is faster than both where it holds the
  // system.)
  // IDGPU_PIVOT_REFINE=2 pivots, and refines, whatever the matrix.
  const bool dominant_first = check_dominance && n == 1 && levels.from > 0 && m <= dominant_rows_limit() &&
                              config().pivot_dominant && mode != 2;
  if (levels.refine) {
    for (int level = 1; level <= levels.top; ++level) levels.outs[level].refine = levels.flag;
  }
  if (dominant_first) {
    for (int level = 1; level <= levels.top; ++level) levels.outs[level].pivot = levels.flag + kPivotFlag;
  }
  if (levels.refine || dominant_first) {
    // IDGPU_PIVOT_REFINE=2 sets the refinement's.
    const std::size_t flags = dominant_first ? kDoneFlag + 1 : 1;
    const cudaError_t reset = cudaMemsetAsync(levels.flag, mode == 2 ? 1 : 0, flags * sizeof(int), stream);
    if (reset != cudaSuccess) return reset;
  }

  constexpr int kPer = Vector16<T>::kCount;
  // Vectors where every full chunk starts on a 16-byte boundary: the padding in front is a whole
  // number of vectors, and so is ldb. The refinement's x1 (in pBuffer, which the dispatch asks
  // only to be aligned for the element) takes the same accesses, so pBuffer must be aligned too.
  const long long padding = plan.count > 1 ? plan.rows[1] / 2 * P - m : 0;
  const bool vectors = padding % kPer == 0 && aligned16(dl) && aligned16(d) && aligned16(du) && aligned16(B) &&
                       ldb % kPer == 0 && (plan.count == 1 || aligned16(buffer));
  levels.ins[0] = LevelIn<T>{dl, d, nullptr, du, B, nullptr, ldb, 0, m, vectors};
  levels.xs[0] = B;
  levels.lds[0] = ldb;
  // Each launch checked before the next (launch::counted), so that a failure stops the sequence
  // and the dispatcher knows whether any launch of the call ran. All but the first are chained
  // (programmatic dependent launch) on sm_90 on: the solve is a chain of 5-25 small launches, each
  // waiting on the one before, and a launch's own latency is then hidden behind its predecessor.
  const bool chain = chained_launches();
  bool first = true;
  const auto next = [&] {
    const bool chained = chain && !first;
    first = false;
    return chained;
  };
  const auto reduce = [&](int level, bool rhs_only) {
    const long long chunks = plan.rows[level + 1] / 2;
    if (rhs_only) {
      return launch_level(reduce_kernel<T, P, true>, grid_for<reduce_kernel<T, P, true>>(chunks), kThreads, stream,
                          next(), levels.ins[level], levels.outs[level + 1], n);
    }
    return launch_level(reduce_kernel<T, P, false>, blocks_for(chunks), kThreads, stream, next(), levels.ins[level],
                        levels.outs[level + 1], n);
  };
  const auto finish = [&](int level, bool correction) {
    const long long chunks = plan.rows[level + 1] / 2;
    if (correction) {
      return launch_level(finish_kernel<T, P, true>, grid_for<finish_kernel<T, P, true>>(chunks), kThreads, stream,
                          next(), levels.ins[level], levels.outs[level + 1], levels.xs[level], levels.lds[level],
                          levels.ins[level].vectors, n);
    }
    return launch_level(finish_kernel<T, P, false>, blocks_for(chunks), kThreads, stream, next(), levels.ins[level],
                        levels.outs[level + 1], levels.xs[level], levels.lds[level], levels.ins[level].vectors, n);
  };
  const auto block = [&](bool correction) {
    return launch_level(block_kernel<T, P>, 1, kBlockThreads, stream, next(), levels, n, correction);
  };
  cudaError_t status = cudaSuccess;
  if (dominant_first) {
    int* pivot = levels.flag + kPivotFlag;
    status = launch_level(dominance_kernel<T>, std::min(grid_for<dominance_kernel<T>>(m), kDominanceBlocks), kThreads,
                          stream, next(), dl, d, du, static_cast<long long>(m), pivot, levels.flag + kVerdicts,
                          reinterpret_cast<unsigned*>(levels.flag + kDoneFlag));
    if (status == cudaSuccess) status = partition_solve_columns<T>(m, 1, ldb, dl, d, du, B, buffer, stream, pivot);
  }
  for (int level = 0; status == cudaSuccess && level < levels.from; ++level) status = reduce(level, false);
  if (status == cudaSuccess) status = block(false);
  if (status != cudaSuccess || levels.from == 0) return status;
  for (int level = levels.from - 1; status == cudaSuccess && level >= (levels.refine ? 1 : 0); --level) {
    status = finish(level, false);
  }
  if (status != cudaSuccess || !levels.refine) return status;
  status = launch_level(finish0_kernel<T, P>, blocks_for(plan.rows[1] / 2), kThreads, stream, next(), levels.ins[0],
                        levels.outs[1], levels.x1, levels.ldx1, B, static_cast<long long>(ldb), n);
  if (status == cudaSuccess) {
    status = launch_level(residual_kernel<T, P>, grid_for<residual_kernel<T, P>>(plan.rows[1] / 2), kThreads,
                          stream, next(), levels.ins[0], levels.outs[1], static_cast<const T*>(levels.x1),
                          levels.ldx1, n);
  }
  for (int level = 1; status == cudaSuccess && level < levels.from; ++level) status = reduce(level, true);
  if (status == cudaSuccess) status = block(true);
  for (int level = levels.from - 1; status == cudaSuccess && level >= 1; --level) status = finish(level, true);
  if (status != cudaSuccess) return status;
  return launch_level(correct_kernel<T, P>, grid_for<correct_kernel<T, P>>(plan.rows[1] / 2), kThreads, stream,
                      next(), levels.ins[0], levels.outs[1], static_cast<const T*>(levels.x1), levels.ldx1, B,
                      static_cast<long long>(ldb), n);
}

// Threads a block of batched_block_kernel: about eight level-0 chunks a thread, 64 to kBlockThreads.
// Each level above has a quarter of the chunks of the one below, so most of a block's threads wait
// at its barriers while holding their registers (Nsight Compute, H200, f32 m = 4096, 256 threads:
// 53% of the warps' cycles at a barrier); smaller blocks let more systems share a multiprocessor,
// and longer level-0 loops cost less than that. H200, gathered algos 1/2, f32, idgpu-bench,
// medians of 15, ms for m = 4096 batch 1000 (algo 1, 512 chunks) / 8192 batch 500 (algo 2) /
// 16384 batch 256 (algo 1): 256 threads 0.305 / 0.266 / 0.244, 128 0.266 / 0.244 / 0.278, 96
// 0.289 / 0.254 / 0.316, 64 0.249 / 0.276 / 0.366.
unsigned batched_threads(const PivotPlan& plan) {
  const long long chunks = plan.count > 1 ? plan.rows[1] / 2 : 1;
  const long long threads = (chunks / 8 + 31) / 32 * 32;
  return static_cast<unsigned>(std::clamp<long long>(threads, 64, kBlockThreads));
}

template <class T, int P>
cudaError_t solve_batched_with(int m, int batch, const T* dl, const T* d, const T* du, T* x, void* buffer,
                               cudaStream_t stream) {
  const PivotPlan plan = plan_pivot(m, P);
  if (plan.rows[plan.count - 1] > P) return cudaErrorNotSupported;
  BlockLevels<T> levels{};
  const std::size_t stride = layout<T>(m, 1, P, static_cast<unsigned char*>(buffer), &levels);
  const int mode = refinement_mode();
  levels.refine = levels.top > 0 && mode != 0;
  if (levels.refine) {
    for (int level = 1; level <= levels.top; ++level) levels.outs[level].refine = levels.flag;
  }
  levels.from = 0;
  levels.serial = serial_level(plan, 0);
  // Vectors as solve_with's, where every system starts on a 16-byte boundary too.
  constexpr int kPer = Vector16<T>::kCount;
  const long long padding = plan.count > 1 ? plan.rows[1] / 2 * P - m : 0;
  const bool vectors = padding % kPer == 0 && m % kPer == 0 && aligned16(dl) && aligned16(d) && aligned16(du) &&
                       aligned16(x) && (plan.count == 1 || aligned16(buffer));
  levels.ins[0] = LevelIn<T>{dl, d, nullptr, du, x, nullptr, m, 0, m, vectors};
  levels.xs[0] = x;
  levels.lds[0] = m;
  return launch::counted([&] {
    batched_block_kernel<T, P><<<static_cast<unsigned>(batch), batched_threads(plan), 0, stream>>>(
        levels, m, static_cast<long long>(stride), mode);
  });
}

// pivoting_levels for one element type: the layout carved from a host buffer, read back as
// offsets.
template <class T>
std::vector<PivotingLevelLayout> levels_of(int m, int n, std::size_t misalign) {
  const std::size_t reserve = dominant_reserve(m, n, sizeof(T));
  const std::size_t bytes = layout<T>(m, n, kRows, nullptr, nullptr, reserve);
  std::vector<unsigned char> storage(bytes + 2 * kAlign);
  const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(storage.data());
  unsigned char* base = storage.data() + ((kAlign - start % kAlign) % kAlign) + misalign;
  BlockLevels<T> levels{};
  layout<T>(m, n, kRows, base, &levels, reserve);
  const auto at = [base](const void* p) {
    return static_cast<std::size_t>(static_cast<const unsigned char*>(p) - base);
  };
  const PivotPlan plan = plan_pivot(m, kRows);
  const int serial = serial_level(plan, 1);
  const SerialFactor<T>& f = levels.serial_factor;
  std::vector<PivotingLevelLayout> out;
  for (int level = 1; level <= levels.top; ++level) {
    const LevelOut<T>& o = levels.outs[level];
    const long long pad = (o.rows + kRows - 1) / kRows * kRows - o.rows;
    out.push_back(PivotingLevelLayout{o.rows, pad, o.ld, o.ld_next, levels.ins[level].vectors, at(o.lower),
                                      at(o.diag), at(o.upper), at(o.diag_next), at(o.rhs), at(o.x), at(o.rhs_next),
                                      at(o.factor), at(o.choice), bytes, reserve, at(levels.flag),
                                      flag_bytes(reserve), serial > 0 ? plan.rows[serial] : 0,
                                      serial > 0 ? at(f.mult) : 0, serial > 0 ? at(f.inv) : 0,
                                      serial > 0 ? at(f.u1) : 0, serial > 0 ? at(f.u2) : 0,
                                      serial > 0 ? at(f.swaps) : 0});
  }
  return out;
}

}  // namespace

std::vector<PivotingLevelLayout> pivoting_levels(int m, int n, int element_bytes, std::size_t misalign) {
  switch (element_bytes) {
    case 4: return levels_of<float>(m, n, misalign);
    case 8: return levels_of<double>(m, n, misalign);
    default: return levels_of<cuDoubleComplex>(m, n, misalign);
  }
}

std::size_t pivoting_batched_buffer_bytes(int m, int batch, int element_bytes) {
  constexpr int P = kRows;
  std::size_t one = 0;
  switch (element_bytes) {
    case 4: one = layout<float>(m, 1, P, nullptr, nullptr); break;
    case 8: one = layout<double>(m, 1, P, nullptr, nullptr); break;
    default: one = layout<cuDoubleComplex>(m, 1, P, nullptr, nullptr); break;
  }
  return one * static_cast<std::size_t>(batch);
}

template <class T>
cudaError_t pivoting_solve_batched(int m, int batch, const T* dl, const T* d, const T* du, T* x, void* buffer,
                                   cudaStream_t stream) {
  if (m <= 0 || batch <= 0) return cudaSuccess;
  return solve_batched_with<T, kRows>(m, batch, dl, d, du, x, buffer, stream);
}

std::size_t pivoting_buffer_bytes(int m, int n, int element_bytes) {
  constexpr int P = kRows;
  const int columns = std::max(n, 1);
  switch (element_bytes) {
    case 4:
      return layout<float>(m, columns, P, nullptr, nullptr, dominant_reserve(m, columns, 4));
    case 8:
      return layout<double>(m, columns, P, nullptr, nullptr, dominant_reserve(m, columns, 8));
    default:
      return layout<cuDoubleComplex>(m, columns, P, nullptr, nullptr,
                                     dominant_reserve(m, columns, element_bytes));
  }
}

template <class T>
cudaError_t pivoting_solve(int m, int n, int ldb, const T* dl, const T* d, const T* du, T* B, void* buffer,
                           cudaStream_t stream, bool check_dominance) {
  if (m <= 0 || n <= 0) return cudaSuccess;
  return solve_with<T, kRows>(m, n, ldb, dl, d, du, B, buffer, stream, check_dominance);
}

#define IDGPU_INSTANTIATE_(T)                                                                                  \
  template cudaError_t pivoting_solve<T>(int, int, int, const T*, const T*, const T*, T*, void*, cudaStream_t,  \
                                         bool);                                                                 \
  template cudaError_t pivoting_solve_batched<T>(int, int, const T*, const T*, const T*, T*, void*, cudaStream_t);
IDGPU_INSTANTIATE_(float)
IDGPU_INSTANTIATE_(double)
IDGPU_INSTANTIATE_(cuComplex)
IDGPU_INSTANTIATE_(cuDoubleComplex)
#undef IDGPU_INSTANTIATE_

}  // namespace idgpu::tridiag::kernels
