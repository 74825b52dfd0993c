// Host reference implementations of the tridiagonal algorithms the native GPU kernels use, in
// double and std::complex<double>. They exist so that CPU tests can validate the algorithms (and,
// later, the GPU kernels' index math) in CI without a GPU. Speed is not a goal; clarity and a
// well-defined order of operations are.
//
// Conventions follow cuSPARSE: a system of size m has lower diagonal dl, diagonal d and upper
// diagonal du, all of length m, with dl[0] and du[m-1] ignored (treated as 0, never read: they may
// hold anything, NaN included); the right-hand side x is overwritten by the solution.
//
// The algorithms come from:
//  - "A Scalable Tridiagonal Solver for GPUs" (Kim, Wu, Chang, Hwu; ICPP 2011): k steps of
//    parallel cyclic reduction (PCR) split one system into 2^k interleaved subsystems, then one
//    Thomas solve per subsystem ("p-Thomas"); the tiled PCR with sub-tiles and a buffered sliding
//    window that caches the dependencies between sub-tiles.
//  - the cuThomasBatch / cuThomasVBatch paper (Valero-Lara, Martinez-Perez, Sirvent, Martorell,
//    Pena): one Thomas solve per system on the full-interleaved layout, and variable-size batches
//    padded to the largest system.
//  - LAPACK's xGTSV (Gaussian elimination with partial pivoting, second superdiagonal fill-in),
//    reimplemented from its description; Givens QR.
//
// Every solver returns 0, or the 1-based index of the first zero pivot (exactly zero, as LAPACK's
// INFO); partition(), whose divisors are not rows of the system, returns how many were zero. The
// non-pivoting solvers (Thomas, PCR, partition) do not stop there: like the GPU kernels they model,
// they carry on with IEEE arithmetic (inf/NaN), and the return value only reports it. The pivoting
// solvers and the oracle stop, as xGTSV does, leaving x partly updated.
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace idgpu::tridiag::reference {

// ---------------------------------------------------------------------------------------------
// Thomas (no pivoting), single and batched
// ---------------------------------------------------------------------------------------------
// The order of operations is the one of "A Scalable Tridiagonal Solver for GPUs", eqs. 1-4:
//   denom_i = d_i - c'_{i-1} dl_i,  c'_i = du_i / denom_i,  x'_i = (x_i - x'_{i-1} dl_i) / denom_i,
//   x_{m-1} = x'_{m-1},  x_i = x'_i - c'_i x_{i+1}
// with the divisions done as divisions (no reciprocal), so a GPU kernel written the same way and
// compiled without FMA contraction can be compared bit for bit. The coefficients are not modified
// (c' lives in scratch).
template <class T>
int thomas(int m, const T* dl, const T* d, const T* du, T* x);

// gtsv2StridedBatch's layout: system j starts at j*stride (stride >= m); element i of system j is
// at j*stride + i. Rows between m and stride are never read nor written.
// Returns the number of systems that met a zero pivot.
template <class T>
int thomas_strided(int m, int batch, int stride, const T* dl, const T* d, const T* du, T* x);

// gtsvInterleavedBatch's layout (cuThomasBatch's "Full-Interleaved"): element i of system j at
// i*batch + j. Returns the number of systems that met a zero pivot.
template <class T>
int thomas_interleaved(int m, int batch, const T* dl, const T* d, const T* du, T* x);

// ---------------------------------------------------------------------------------------------
// Parallel cyclic reduction and p-Thomas
// ---------------------------------------------------------------------------------------------
// One PCR elimination at stride s ("A Scalable Tridiagonal Solver for GPUs", eqs. 5-6):
//   k1 = a_i / b_{i-s},  k2 = c_i / b_{i+s}
//   a'_i = -a_{i-s} k1,  b'_i = b_i - c_{i-s} k1 - a_{i+s} k2,  c'_i = -c_{i+s} k2,
//   d'_i = d_i - d_{i-s} k1 - d_{i+s} k2
// Rows outside [0, m) are identity rows (a = c = d = 0, b = 1), as a GPU kernel pads its halo.

// The number of PCR steps that change anything: a step at stride s >= m couples no rows, so
// effective_pcr_steps(m, k) = min(k, ceil(log2 m)). Every function below clamps k with it.
int effective_pcr_steps(int m, int steps);

// k steps of PCR in place (a = lower, b = diagonal, c = upper, d = right-hand side), strides
// 1, 2, ..., 2^(k-1). a[0] and c[m-1] are ignored on input and written as 0. Afterwards row i reads
//   a_i x_{i-2^k} + b_i x_i + c_i x_{i+2^k} = d_i
// with a_i = 0 for i < 2^k and c_i = 0 for i + 2^k >= m: the rows i = r (mod 2^k) form 2^k
// independent tridiagonal subsystems, already interleaved with stride 2^k.
template <class T>
void pcr_steps(int m, int steps, T* a, T* b, T* c, T* d);

// k PCR steps, then Thomas on each of the min(2^k, m) strided subsystems ("p-Thomas"). With k = 0
// this is thomas(); with 2^k >= m every subsystem has one equation.
template <class T>
int pcr_thomas(int m, int steps, const T* dl, const T* d, const T* du, T* x);

// What the tiled PCR did, to check its data movement against the paper's claims.
struct TiledPcrStats {
  std::int64_t tiles = 0;
  std::int64_t sub_tiles = 0;
  std::int64_t loads = 0;         // input rows read (rows in [0, m) only; the halo counts)
  std::int64_t eliminations = 0;  // PCR eliminations of rows in [0, m), all levels
  std::int64_t cached_rows = 0;   // rows kept across a sub-tile boundary, all levels (max seen)
  std::int64_t peak_window_rows = 0;  // the most rows held in the window at once, all levels
};

// Tiled PCR ("A Scalable Tridiagonal Solver for GPUs", section III.A): the m output rows are cut
// into tiles of `tile` rows, each independent (one GPU thread block, the paper's Fig. 11(b)).
// Within a tile, sub-tiles of `sub_tile` rows are processed left to right in a sliding window: a
// lead-in loads the halo of 2^k - 1 rows on each side, and for each PCR level l < k the window
// keeps the last 2 * 2^l rows as the dependency of the next sub-tile, so within a tile every input
// row is loaded once and every intermediate row eliminated once (cache 2 f(k), f(k) = 2^k - 1).
// Any tile >= 1 and sub_tile >= 1 work (the paper's sub-tile is c * 2^k). Not in place: tiles read
// the halo of their neighbours. The result equals pcr_steps() bit for bit (same elimination code).
// The per-level windows model the dependency caching; the GPU's single shared array with its
// top/middle/bottom buffers and padding is a layout choice this reference does not model.
template <class T>
void tiled_pcr_steps(int m, int steps, int tile, int sub_tile, const T* a, const T* b, const T* c,
                     const T* d, T* a_out, T* b_out, T* c_out, T* d_out, TiledPcrStats* stats = nullptr);

// tiled_pcr_steps() then p-Thomas; gives the same x as pcr_thomas(), bit for bit.
template <class T>
int tiled_pcr_thomas(int m, int steps, int tile, int sub_tile, const T* dl, const T* d, const T* du, T* x,
                     TiledPcrStats* stats = nullptr);

// ---------------------------------------------------------------------------------------------
// The partition solver (the GPU kernel of src/tridiag/kernels/partition.cu)
// ---------------------------------------------------------------------------------------------
// The system is cut into chunks of L = rows_per_chunk consecutive rows (L >= 2); rows >= m of the
// last chunk are identity rows (a = c = d = 0, b = 1). A chunk's last row is its separator, the
// L-1 others its interior. The forward sweep over the interior, with c'_{-1} = d'_{-1} = 0 and
// g'_{-1} = 1 (g' carries the left separator E_{k-1}):
//   inv = 1 / (b_i - a_i c'_{i-1}),  c'_i = c_i inv,  d'_i = (d_i - a_i d'_{i-1}) inv,
//   g'_i = -(a_i g'_{i-1}) inv,      so that x_i = d'_i - c'_i x_{i+1} + g'_i E_{k-1}.
// The first interior row as alpha + beta E_{k-1} + gamma E_k, by the backward recurrence from
// (d'_{L-2}, g'_{L-2}, -c'_{L-2}): alpha = d'_i - c'_i alpha, beta = g'_i - c'_i beta,
// gamma = -(c'_i gamma). The separator row s of chunk k then reads, in the separators alone,
//   lower = a_s g'_{L-2},  diag = b_s - a_s c'_{L-2} + c_s beta_{k+1},  upper = c_s gamma_{k+1},
//   rhs = d_s - a_s d'_{L-2} - c_s alpha_{k+1}
// (the next chunk's terms are absent for the last chunk): one reduced row per chunk.
// The reduced system is solved in one "block" when its chunk count padded to a power of two is at
// most max_block_chunks: parallel cyclic reduction over the padded chunks (padding chunks are all
// identity rows), every row of a step computed from the previous step's rows, then E_k = rhs / diag.
// Otherwise the level is cut into tiles of tile_chunks chunks (L * tile_chunks rows), each reduced
// to one row of the next level in the tiles' last rows (their separators E_t): the tile's inner
// chunk separators S_0..S_{C-2} form a tridiagonal system whose first row also holds E_{t-1} and
// whose last E_t (the last chunk's separator, an identity row); cyclic reduction with two more
// right-hand sides gives S_j = p_j + q_j E_{t-1} + r_j E_t, substituted into the tile's first
// interior row (alpha, beta, gamma) and its separator row (lower, diag, rhs; upper the separator's
// c): seven values, the next tile's terms added when the row is loaded. The next level is solved
// the same way, recursively; a level with one chunk always fits, so the recursion ends. Then each
// tile repeats its sweep and its cyclic reduction with E_{t-1} in the right-hand side and E_t
// known, and back-substitutes per chunk: x_sep = S_k, x_i = d'_i - c'_i x_{i+1} + g'_i S_{k-1}
// (E_{-1} = 0). tile_chunks = 1 reduces every chunk to its own row.
// Every operation is the kernel's, in its order and with its operand order (a - b*c as the
// kernel's mul_sub, 1/x then products as its reciprocal), so a wrong index or coefficient in either
// shows on the CPU. It is not bit-exact with the GPU: complex division differs (cuCdiv's scaling)
// and nvcc may contract to FMA. The GPU uses L = 4-16 and max_block_chunks = 512 (strided) or
// 16-64 (interleaved: 8-32 systems per block, by element size), tile_chunks = 64 (strided) or 4
// (interleaved, of 32 systems), and caps its plan at 7 reduced levels; this reference does not
// cap. max_block_chunks >= 1, tile_chunks >= 1; m >= 0.
struct PartitionStats {
  int levels = 0;               // reduced levels (0: the system's chunks fit one block)
  std::vector<int> level_rows;  // rows of each reduced level, level 1 first (ceil(rows / (L tile_chunks)))
  int block_rows = 0;           // rows of the level the block solved (m when levels == 0)
  int block_chunks = 0;         // the block's chunks, padding included (a power of two)
};

template <class T>
int partition(int m, int rows_per_chunk, int max_block_chunks, const T* dl, const T* d, const T* du, T* x,
              PartitionStats* stats = nullptr, int tile_chunks = 1);

// ---------------------------------------------------------------------------------------------
// Wang-Mou divide and conquer, in multi-stage form
// ---------------------------------------------------------------------------------------------
// The tridiagonal solver of Dieguez et al.'s MS-ID-TS (Wang and Mou's divide and conquer, no
// pivoting: diagonally dominant systems). Every equation is kept normalised as
//   x_i + a'_i x_{first-1} + c'_i x_{last+1} = d'_i
// over its block [first, last]: it couples only the two unknowns just outside the block. Level t
// merges blocks of 2^(t-1) rows pairwise (low digits first, no bit reversal): the left block's
// last equation and the right block's first one, a 2 x 2 system with determinant
// 1 - c'_mid a'_{mid+1}, give x_mid and x_{mid+1} in the merged block's outside unknowns, which
// are substituted into every equation of both halves. After ceil(log2 m) levels the block is the
// system, whose outside unknowns do not exist, and x_i = d'_i. Non-powers of two leave the last
// block short. The levels are grouped into stages as the GPU's kernels would run them (the first
// stage `first_stage_levels` levels, each later one `later_stage_levels`), which changes nothing
// numerically; WangMouStats records the split. Returns the number of zero determinants.
struct WangMouStats {
  int levels = 0;
  int stages = 0;
  std::vector<int> levels_per_stage;
};
template <class T>
int wang_mou(int m, int first_stage_levels, int later_stage_levels, const T* dl, const T* d, const T* du, T* x,
             WangMouStats* stats = nullptr);

// The multi-stage form the GPU runs (kernels/wang_mou.cu), for one right-hand side. Stage 1 cuts
// the m rows into tiles of `tile_rows` rows (a power of two >= 4) and merges each tile completely,
// levels 1 .. ceil(log2 tile_rows), as wang_mou() does inside it; each tile is then one block whose
// rows all read x_i + a'_i x_{first-1} + c'_i x_{last+1} = r'_i. Only a merge's interface rows (the
// left block's last and the right block's first) enter its coefficients, and the interface rows of
// every later merge are tile boundaries, so the later levels need only each tile's first and last
// rows: they form the next stage's list (2 rows per tile, 1 for a last tile of 1 row), whose
// consecutive pairs are already merged blocks. That list is tiled and merged the same way from
// level 2 on, recursively, until one tile holds it and is merged completely: its rows have no
// outside unknowns left, x = r'. Going back down, every tile is merged again from its inputs
// (identical arithmetic, so identical coefficients) and each row substitutes the two outside
// unknowns, now solved: x_i = r'_i - a'_i x_{first-1} - c'_i x_{last+1} (0 where outside the
// system). The merge arithmetic is wang_mou()'s, operation for operation; what differs is the
// substitution that replaces the merges above the tile for its interior rows.
struct WangMouTiledStats {
  std::vector<long long> list_rows;  // rows of each stage's list: m, then the boundary lists
  int tiles = 0;                     // tiles merged on the way up, every stage (each merged twice)
};
template <class T>
int wang_mou_tiled(int m, int tile_rows, const T* dl, const T* d, const T* du, T* x,
                   WangMouTiledStats* stats = nullptr);

// ---------------------------------------------------------------------------------------------
// Pivoting solvers
// ---------------------------------------------------------------------------------------------
// Gaussian elimination with partial (row) pivoting as LAPACK's xGTSV does it: at step i rows i and
// i+1 are swapped when |dl_{i+1}| > |d_i| (for complex, |re| + |im| as LAPACK's CABS1), which fills
// in a second superdiagonal du2, and nothing is done when dl_{i+1} = 0. U has diagonals
// (d, du, du2); then back substitution.
template <class T>
int lu_partial_pivot(int m, const T* dl, const T* d, const T* du, T* x);

// QR by Givens rotations: rotation i combines rows i and i+1 to zero the subdiagonal entry, R is
// upper triangular with two superdiagonals; Q^H is applied to x on the fly, then back
// substitution. For complex the rotation is [c s; -conj(s) c] with c real.
template <class T>
int givens_qr(int m, const T* dl, const T* d, const T* du, T* x);

// Diagonal pivoting (the tridiagonal Bunch-Kaufman variant of Erway and Marcia that SPIKE uses in
// Chang, Stratton, Kim and Hwu, "A Scalable, Numerically Stable, High-performance Tridiagonal
// Solver using GPUs", SC'12): at row k, with sigma the largest modulus among b_k, c_k, a_{k+1},
// b_{k+1}, c_{k+1}, a_{k+2}, a 1 x 1 pivot b_k when |b_k| sigma >= kappa |a_{k+1}| |c_k|
// (kappa = (sqrt 5 - 1) / 2), else the 2 x 2 block [b_k c_k; a_{k+1} b_{k+1}]; no row
// interchanges, so a partition's elimination never leaves it. Returns 0 or the 1-based row of an
// exactly singular pivot block.
template <class T>
int diagonal_pivoting(int m, const T* dl, const T* d, const T* du, T* x);

// SPIKE over `partitions` consecutive partitions (at least 2 rows each; clamped to m / 2): each
// partition solves its block by diagonal pivoting for its right-hand side and its two spikes
// (the columns coupling it to the neighbours' last and first unknowns), the 2 p x 2 p reduced
// system in the partitions' first and last unknowns is solved by dense partial pivoting, and every
// partition recovers x = y - w x_before - v x_after. Then `refinements` steps of iterative
// refinement (r = b - A x solved the same way, added to x). Returns 0, the 1-based row of a
// singular pivot block inside a partition, or m + the reduced system's singular column.
//
// SPIKE needs every partition block nonsingular, which a nonsingular matrix does not promise (a
// singular one is reported), and its error grows with the partitions' condition, not the matrix's:
// on random non-dominant systems it reached 244x (exact zeros on the diagonal) and 1.2e8x (tiny
// ones) the backward error of LU with partial pivoting without refinement, 380x with one step,
// and at most 0.39x with two (tests/cpu/tridiag, 12 seeds).
template <class T>
int spike_diagonal_pivoting(int m, int partitions, const T* dl, const T* d, const T* du, T* x, int refinements = 0);

// Chunked diagonal pivoting: the algorithm of the native gtsv2 kernel (one matrix, `columns`
// right-hand sides, column j at x + j ldb, ldb >= m; rows m .. ldb-1 of each column are never read
// nor written), which this reference executes on the CPU. A level of M rows is cut into
// K = ceil(M / P) chunks of P = rows_per_chunk consecutive rows (P >= 2), counted from the end so
// that only chunk 0 is short: chunk k's last row s_k = M - 1 - (K - 1 - k) P is its separator, rows
// [max(0, s_k + 1 - P), s_k) its interior (n_k rows; n_k = 0 only for chunk 0 when M % P == 1).
// (The kernel pads chunk 0 in front with identity rows, which couple to nothing and pivot 1 x 1, so
// the real rows' elimination is the same.) Each interior block (its own first a and last c taken
// as 0) is solved by diagonal pivoting, as above, for columns + 2 right-hand sides: y_j (column j's
// rhs), w = a_first e_first and v = c_{s_k - 1} e_last, so that
// x_i = y_i - w_i x_{s_{k-1}} - v_i x_{s_k}.
// Substituting the interior rows next to each separator (the last one L of chunk k, the first one
// F of chunk k + 1) into the separator row s (a_s, b_s, c_s, d_s) leaves the Schur complement in
// the separators, one tridiagonal row per chunk:
//   lower_k = -a_s w_L (a_s when n_k = 0; 0 for k = 0),  upper_k = -c_s v_F (c_s when n_{k+1} = 0;
//   0 for the last chunk),  diag_k = b_s - a_s v_L - c_s w_F,  rhs_k = d_s - a_s y_L - c_s y_F
// (a term whose interior is empty or absent is left out). That reduced system of K rows is solved
// the same way, recursively (same P), until a level has M <= P rows, which one diagonal pivoting
// solves whole. Then each interior block is solved again, not rebuilt from y, w and v (the kernel's
// second pass keeps none of them): diagonal pivoting for the `columns` right-hand sides, the first
// row's minus a_first x_{s_{k-1}} (k > 0) and the last row's minus c_{s_k - 1} x_{s_k}, with the
// separators' values from the reduced solution. The pivot choices depend on the matrix alone, so
// both passes over a block pivot alike, and every column is solved as it would be alone.
//
// Like SPIKE it needs every interior block nonsingular, which a nonsingular matrix does not
// promise (with a zero diagonal every interior of odd order, P - 1 for an even P, is singular), and
// its error follows the blocks' conditioning, not the matrix's: on random non-dominant systems
// (P = 8, 16, m <= 4099) its backward error reached 8.1e4 (uniform), 1.9e5 (exact zeros on the
// diagonal) and 8e14 (tiny ones) times LU with partial pivoting's plus eps, without refinement;
// with iterative refinement, all but one of 18,576 tiny-zero systems met 2 eta(LU) + 16 eps after
// two steps, all of 7,896 after three (tests/cpu/tridiag).
//
// Returns 0, or, when a pivot block is exactly singular, the 1-based row of the input system
// where that block starts; a block of a reduced level is reported by the input row of the
// separator its first row stands for. The first singular block in row order of the first level
// that meets one is reported, and x is then left unchanged. columns >= 0 (0, like m = 0, reads
// nothing and returns 0); dl[0] and du[m-1] are never read.
//
// Which rows of a chunk are separators:
//   kOne        the chunk's last row, as above (the GPU kernel's first design).
//   kTwoChosen  two per chunk of at least 3 rows (the GPU kernel's), which makes every interior P - 2 rows:
//               the last row and either the row before it (window A, the interior rows
//               [first, s_k - 1)) or the chunk's first row (window B, [first + 1, s_k)), whichever
//               window's diagonal pivoting has the larger smallest pivot relative to the entries
//               around it (B only when strictly larger; A without comparing where each of its
//               pivots is at least half the entries around it). The separators of a level, in row order,
//               then stand for a tridiagonal reduced system as above, with an interior block
//               between two separators possibly empty (a direct coupling). The short chunk 0
//               chooses as if padded in front with identity rows: window A, or its whole interior
//               with one separator (B); of 2 rows, both are separators. Full chunks of 2 rows keep
//               one. An interior of odd order is never asked of a zero diagonal, and the
//               choice steers around the other ill-conditioned windows; a window singular both
//               ways is still possible, and reported.
//               Measured with this reference (double, P = 8, random non-dominant systems of 65536
//               rows, 300 uniform and 300 with 5% of the diagonal exactly zero, against LU with
//               partial pivoting's backward error eta(LU)): with one refinement step, kOne met
//               2 eta(LU) + 8 eps except where an interior was exactly singular (10 of the 300
//               with zeros), kTwoChosen in all 600, at most 1.0 eta(LU) + eps. Without refinement
//               kOne missed it in 29 of the 590 it solved (up to 236x), kTwoChosen in 2 of 600
//               (up to 43x).
// gtsvInterleavedBatch algos 1 and 2 on long systems (kernels/interleaved_pivoting.cu) solve the
// batch as one block-diagonal system: gather_interleaved builds it from the interleaved arrays
// (element i of system j at i*batch + j) with system j's rows from row j*m and its first lower and
// last upper entries zero, whatever the caller left there (the systems never couple); the solve
// is chunk_pivoting's (kTwoChosen) plus one refinement step, and x of system j is rows
// [j*m, (j+1)*m). Returns m*batch rows (dl[0] and du[last] zero too).
template <class T>
struct Gathered {
  std::vector<T> dl, d, du, b;
};
template <class T>
Gathered<T> gather_interleaved(int m, int batch, const T* dl, const T* d, const T* du, const T* b);

// serial_rows: the first reduced level of at most this many rows is solved by LU with partial
// pivoting (lu_partial_pivot, column by column), and no level above it is formed, as the GPU
// kernel's serial solve does (0: none; the levels go down to one chunk). Its singular pivot is
// reported as a reduced level's singular block is.
struct ChunkPivotingStats {
  int levels = 0;               // reduced levels (0: the system is one chunk)
  std::vector<int> level_rows;  // rows of each reduced level, level 1 first
  int serial_rows = 0;          // rows of the level solved by partial pivoting (0: none)
};
enum class ChunkSeparators { kOne, kTwoChosen };
template <class T>
int chunk_pivoting(int m, int rows_per_chunk, int columns, int ldb, const T* dl, const T* d, const T* du, T* x,
                   ChunkPivotingStats* stats = nullptr, ChunkSeparators separators = ChunkSeparators::kOne,
                   int serial_rows = 0);

// ---------------------------------------------------------------------------------------------
// The oracle
// ---------------------------------------------------------------------------------------------
// An independent oracle: general band LU with partial pivoting (max modulus) in long double
// (complex<long double>), O(m). Written as a general band solver (kl = ku = 1 here), not as a
// tridiagonal one. On x86-64 long double has a 64-bit significand (eps 1.1e-19); where long double
// is double (MSVC) the oracle is only as precise as the solvers it judges.
template <class T>
int dense_solve(int m, const T* dl, const T* d, const T* du, T* x);

// The same in a full m x m matrix, O(m^3): cross-checks the banded oracle (keep m <= ~500).
template <class T>
int dense_solve_full(int m, const T* dl, const T* d, const T* du, T* x);

// ||A||_inf ||A^-1||_inf computed in long double (m band solves, O(m^2)); +inf when singular.
template <class T>
double condition_number_inf(int m, const T* dl, const T* d, const T* du);

// ---------------------------------------------------------------------------------------------
// Variable-size batches (cuThomasVBatch)
// ---------------------------------------------------------------------------------------------
// How padding rows are treated; both give the same solution rows, bit for bit.
enum class PaddingMode {
  // "No Computing Padding": system j stops at its own size; padding rows are never read nor
  // written (x's padding keeps whatever it held).
  kSkip,
  // "Computing Padding": every system runs to the largest size, as uniform GPU threads do; each
  // padding row is replaced by an identity row (selected, never multiplied, so NaN in the padding
  // cannot leak), and dl/du coupling into the padding is treated as 0. x's padding is written 0.
  kCompute,
};

// Interleaved layout padded to rows = max(sizes): element i of system j at i*batch + j; system j
// has sizes[j] >= 0 equations, and rows i >= sizes[j] are padding that never influences a
// solution whatever they hold. Returns the number of systems that met a zero pivot.
template <class T>
int thomas_var_batch(int batch, const int* sizes, const T* dl, const T* d, const T* du, T* x,
                     PaddingMode mode = PaddingMode::kSkip);

// ---------------------------------------------------------------------------------------------
// Test helpers
// ---------------------------------------------------------------------------------------------
template <class T>
struct System {
  int m = 0;
  std::vector<T> dl, d, du, b;  // dl[0] and du[m-1] hold NaN: a solver that reads them fails
};

// Uniform in [-1, 1) from the raw 64-bit output (std::uniform_real_distribution's results differ
// between standard libraries; these do not, so a seed reproduces everywhere).
double uniform_pm1(std::mt19937_64& rng);
template <class T>
T random_value(std::mt19937_64& rng);  // complex: both parts uniform in [-1, 1)

// Strictly row diagonally dominant: |d_i| = (1 + margin) (|dl_i| + |du_i|) + margin with a random
// sign (complex: random phase). The setting of the papers' experiments (cuThomasBatch forces
// |b_i| > |a_i| + |c_i|), where no-pivoting algorithms are stable.
template <class T>
System<T> random_dominant_system(int m, std::mt19937_64& rng, double margin = 0.5);

// Not diagonally dominant: off-diagonals uniform in [-1, 1), and each diagonal entry is exactly 0
// with probability zero_fraction, tiny * uniform with probability tiny_fraction, else uniform.
// The right-hand side is b = A x_t for a random x_t with entries of modulus <= 1, so the solution
// is O(1) and a tiny pivot costs Thomas about eps / tiny in backward error (with a random b the
// solution would be O(1 / tiny) and hide the damage). Partial pivoting and QR do not care.
template <class T>
System<T> random_nondominant_system(int m, std::mt19937_64& rng, double zero_fraction, double tiny_fraction,
                                    double tiny);

// ||A||_inf from the three diagonals (dl[0], du[m-1] ignored).
template <class T>
double norm_inf(int m, const T* dl, const T* d, const T* du);

// Normwise backward error ||A x - b||_inf / (||A||_inf ||x||_inf + ||b||_inf), in long double;
// +inf when x is not finite.
template <class T>
double backward_error(int m, const T* dl, const T* d, const T* du, const T* x, const T* b);

// Varah's bound for a strictly row diagonally dominant A: ||A^-1||_inf <= 1 / min_i (|d_i| -
// |dl_i| - |du_i|), so cond_inf(A) <= ||A||_inf / that minimum. +inf when A is not dominant.
template <class T>
double dominant_condition_bound(int m, const T* dl, const T* d, const T* du);

// ||x - y||_inf / ||y||_inf (+inf when x is not finite; ||x||_inf when y is 0).
template <class T>
double relative_error(int m, const T* x, const T* y);

}  // namespace idgpu::tridiag::reference
