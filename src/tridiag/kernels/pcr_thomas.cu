// gtsv2_nopivot (one matrix, n columns of B) by k steps of tiled parallel cyclic reduction, then
// p-Thomas ("A Scalable Tridiagonal Solver for GPUs", Kim, Wu, Chang, Hwu, ICPP 2011). The host
// reference is reference::tiled_pcr_thomas: every elimination is its pcr_eliminate (eqs. 5-6) and
// every Thomas row its thomas_forward / thomas_backward, operand for operand, divisions as
// divisions.
//
// k steps of PCR leave row i coupled only to rows i - 2^k and i + 2^k, so the rows i = r (mod 2^k)
// form 2^k independent subsystems, already interleaved with stride 2^k (Kim et al., Sec. III);
// p-Thomas then solves each with one thread, and a warp's threads (consecutive r) read consecutive
// addresses.
//
// Choosing k (pcr_thomas_steps): the smallest of
//  - floor(log2(m / 16)): every subsystem keeps at least 16 rows (k = 0, plain Thomas in one
//    thread, below m = 32), so that p-Thomas's sequential sweeps do not degenerate into PCR;
//  - log2(2^17 / element bytes): 2^15 subsystems in f32, 2^14 in f64 and c32, 2^13 in c64. p-Thomas
//    is latency bound: it needs some 2 MB of loads in flight on an H100 (3.35 TB/s times about
//    600 ns), and with its rows loaded 4 (4-byte) or 2 (8- and 16-byte elements) ahead, 2^17 bytes
//    a row across the subsystems gives that for one column (more with more columns);
//  - what two tiled launches can do (below): 15 steps in f32, 14 in f64 and c32, 13 in c64;
// and never more than ceil(log2 m) (reference::effective_pcr_steps; the first rule implies it).
//
// Tiled PCR in at most two launches. A block owns a tile of output rows and loads a halo of
// 2^q - 1 rows (at the current stride) each side for q steps. k = 15 in one launch would need a
// halo of 32767 rows each side, and even the paper's sliding window keeps 2 (2^k - 1) rows per
// level, far beyond shared memory for k > 10. So the k steps are split, k = k1 + k2:
//  - pass 1 (stride 1): a block holds P = 8 KB / element rows of each array (2048 f32, 1024 8-byte,
//    512 c64) and does k1 <= 9 / 8 / 7 steps on a tile of consecutive rows: P - 2 (2^k1 - 1)
//    outputs, the halo at most half the tile.
//  - pass 2 (stride S = 2^k1): after pass 1 the residues mod S are independent systems, and the
//    next k2 steps are ordinary PCR on each, at strides S, 2S, ..., 2^(k2-1) S. A block holds G
//    residues (a 32-byte strip of consecutive rows: 8 f32, 4 8-byte, 2 c64; G = S where S is
//    smaller) times P / G = 256 positions, and does k2 <= 6 steps on 256 - 2 (2^k2 - 1) output
//    positions. The residue groups of one tile are neighbouring blocks, so the strips of one
//    128-byte line are read together.
// The split minimises the modelled traffic (reads (T + 2H) / T, writes 1, per pass); a k that one
// launch can do takes one. Within a block the q levels run in shared memory: each level computes
// the rows the next level needs (positions [2^(l+1) - 1, P - 2^(l+1) + 1) at level l) from the
// level before; two copies of the arrays alternate as source and destination, so a level costs
// one barrier and no register copy of the block's rows. The last level's rows, exactly the tile's
// outputs, go straight from registers to the buffer. Rows outside [0, m) are identity rows
// (a = c = d = 0, b = 1) and are never eliminated; dl[0] and du[m-1] are never read. 256 threads,
// at most 58 registers (sm_90): shared memory, 2 (3 + columns) 8 KB, decides how many blocks an SM
// holds (three of 64 KB for one column on an H100, two of 96 KB for three).
//
// Columns: a block holds the right-hand sides of up to 3 columns; k1 = a_i / b_{i-s} and
// k2 = c_i / b_{i+s} are computed once per row and level and applied to all of them. With more
// columns, more column groups (blocks) each repeat the matrix's eliminations (only the first writes
// a, b, c), reading the matrix tile again, mostly from L2 as a tile's groups are neighbours.
//
// p-Thomas, one thread per subsystem: a forward sweep computes c' once (group of columns 0, into
// the buffer's c in place; k = 0: into the buffer) and d' for 4 columns at a time (2 for c64) into
// the buffer's d in place; later groups of columns read c' back and recompute the pivot
// b - c'_{i-1} a_i. Back substitution writes x into B. B is written by this last kernel only (with
// k = 0 its d' goes to B in place: the kernel is both the first and the last); rows m..ldb-1 of B
// are never written.
//
// Bytes moved, in elements of m rows (n columns; a = (T + 2H) / T, a pass's read amplification,
// from 1.03 on short systems to 2 at the largest k; the halo rows come mostly from L2, since
// neighbouring tiles are neighbouring blocks):
//  - a pass: reads a (3 + n) m (the matrix once more per extra group of columns), writes (3 + n) m;
//  - p-Thomas: reads (3 + n) m, writes (1 + n) m (c', d'), reads (1 + n) m, writes n m, plus 4 m
//    per extra group of columns (a, b and c' forward, c' back).
// n = 1 with two passes: 2 (4 a + 4) + 9, 25 from DRAM where L2 serves the halo (33 where it does
// not), against the 5 of one read of the inputs and one write of x: the price of PCR's explicit
// passes, which the partition solver (partition.cu) does not pay. Measured on an H100 (CUDA 13.0,
// idgpu-bench, n = 1): f32 m = 2^24 3.0 ms, 0.04 of copy bandwidth (the vendor 0.91 ms, the
// partition solver 0.24); 0.28-0.54x the vendor except f64 / c32 / c64 at m = 2^16 (1.2-1.4x).
// Beyond the bytes, p-Thomas is latency bound: 2^13-2^15 threads for the whole GPU, each walking
// m / 2^k rows one after another. k, the tile sizes and the halo bound are the model's above, not
// tuned; the dispatch keeps the partition solver (src/tridiag/tuning.cpp).
//
// pBuffer (pcr_thomas_buffer_bytes): one set of a, b, c (m each) and n columns of d per pass, each
// array padded to 256 bytes (the second pass reads the first's set and writes its own: a pass reads
// its neighbours' halo and so cannot work in place); k = 0: m elements for c'. Offsets are from the
// caller's pointer, which cudaMalloc aligns to 256 bytes.
#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "core/launch.h"
#include "tridiag/kernels/kernels.h"
#include "tridiag/kernels/scalar.cuh"

namespace idgpu::tridiag::kernels {
namespace {

// --- The plan -------------------------------------------------------------------------------

constexpr int kPassThreads = 256;
constexpr int kTileArrayBytes = 8192;  // shared memory per array of a pass block: 32 bytes a thread
constexpr int kStripBytes = 32;        // a strided pass block's residues: one 32-byte sector
constexpr int kMaxPasses = 2;
constexpr int kMinSubsystemRows = 16;
constexpr long long kTargetSubsystemBytes = 1LL << 17;  // 2^k * element bytes
constexpr int kMaxBlockColumns = 3;                      // right-hand sides a pass block holds
constexpr int kThomasThreads = 128;
constexpr std::size_t kAlignment = 256;

int floor_log2(long long v) {  // v >= 1
  int log = 0;
  while ((2LL << log) <= v) ++log;
  return log;
}

int ceil_log2(long long v) {
  int log = 0;
  while ((1LL << log) < v) ++log;
  return log;
}

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// One launch of tiled PCR.
struct PassShape {
  int stride_log2 = 0;            // steps done before: the subsystems are interleaved with stride S = 2^this
  int steps = 0;                  // q
  int residues_log2 = 0;          // a block's residues G = 2^this, consecutive rows of one position
  long long tile_positions = 0;   // T: a block writes T positions and loads T + 2 (2^q - 1)
};

struct Plan {
  int steps = 0;   // k
  int passes = 0;  // 0 when k = 0
  PassShape pass[kMaxPasses];
};

int tile_rows(int element_bytes) { return kTileArrayBytes / element_bytes; }

int residues_log2(int stride_log2, int element_bytes) {
  return std::min(stride_log2, floor_log2(std::max(1, kStripBytes / element_bytes)));
}

// Positions a block holds at this stride.
long long tile_capacity(int stride_log2, int element_bytes) {
  return tile_rows(element_bytes) >> residues_log2(stride_log2, element_bytes);
}

// The most steps a launch takes on `capacity` positions: the halo, 2 (2^q - 1), at most half of them.
int max_pass_steps(long long capacity) {
  int steps = 0;
  while (2 * ((2LL << steps) - 1) <= capacity / 2) ++steps;
  return steps;
}

int max_pass_steps_at(int stride_log2, int element_bytes) {
  return max_pass_steps(tile_capacity(stride_log2, element_bytes));
}

// The most steps two launches take (the best first pass).
int most_steps(int element_bytes) {
  const int first = max_pass_steps_at(0, element_bytes);
  int best = first;
  for (int q1 = 1; q1 <= first; ++q1) best = std::max(best, q1 + max_pass_steps_at(q1, element_bytes));
  return best;
}

PassShape pass_shape(long long m, int stride_log2, int steps, int element_bytes) {
  PassShape shape;
  shape.stride_log2 = stride_log2;
  shape.steps = steps;
  shape.residues_log2 = residues_log2(stride_log2, element_bytes);
  const long long halo = (1LL << steps) - 1;
  const long long positions = ceil_div(m, 1LL << stride_log2);  // of the longest subsystem
  shape.tile_positions = std::min(tile_capacity(stride_log2, element_bytes) - 2 * halo, positions);
  return shape;
}

// Modelled traffic of a launch, in arrays of m rows: reads amplified by the halo, one write.
double pass_cost(const PassShape& shape) {
  const double halo = static_cast<double>((1LL << shape.steps) - 1);
  const double tile = static_cast<double>(shape.tile_positions);
  return (tile + 2 * halo) / tile + 1.0;
}

Plan make_plan(int m, int element_bytes) {
  Plan plan;
  plan.steps = pcr_thomas_steps(m, element_bytes);
  const int k = plan.steps;
  if (k == 0) return plan;
  if (k <= max_pass_steps_at(0, element_bytes)) {
    plan.passes = 1;
    plan.pass[0] = pass_shape(m, 0, k, element_bytes);
    return plan;
  }
  double best = std::numeric_limits<double>::infinity();
  for (int q1 = 1; q1 < k; ++q1) {
    if (q1 > max_pass_steps_at(0, element_bytes) || k - q1 > max_pass_steps_at(q1, element_bytes)) continue;
    const PassShape first = pass_shape(m, 0, q1, element_bytes);
    const PassShape second = pass_shape(m, q1, k - q1, element_bytes);
    const double cost = pass_cost(first) + pass_cost(second);
    if (cost < best) {
      best = cost;
      plan.passes = 2;
      plan.pass[0] = first;
      plan.pass[1] = second;
    }
  }
  return plan;
}

std::size_t aligned(std::size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

std::size_t array_bytes(int m, int element_bytes) {
  return aligned(static_cast<std::size_t>(m) * static_cast<std::size_t>(element_bytes));
}

// One pass's output: a, b, c and the n columns of d.
std::size_t set_bytes(int m, int n, int element_bytes) {
  return (3 + static_cast<std::size_t>(n)) * array_bytes(m, element_bytes);
}

// --- Tiled PCR ------------------------------------------------------------------------------

template <class T>
struct PassArgs {
  // Input: the caller's dl, d, du and B (first pass) or the previous pass's rows.
  const T* __restrict__ a;
  const T* __restrict__ b;
  const T* __restrict__ c;
  const T* __restrict__ d;  // column j at d + j * d_ld
  long long d_ld;
  bool first;  // the caller's arrays: dl[0] and du[m-1] are not read
  T* __restrict__ a_out;
  T* __restrict__ b_out;
  T* __restrict__ c_out;
  T* __restrict__ d_out;  // column j at d_out + j * out_ld
  long long out_ld;
  long long m;
  int n;
  int stride_log2;
  int steps;
  int residues_log2;
  int tile_positions;
  long long residue_groups;  // S / G
  int group_columns;         // columns a block holds (<= its kColumns)
  long long column_groups;
};

// One block: G residues times T + 2H positions in shared memory (residue fastest), element e at
// residue first_residue + (e mod G), position first_position + e / G. Thread t owns elements
// t, t + 256, ...: kRows of them, 32 bytes of each array. Two copies of the arrays alternate as
// source and destination of the levels, so that a level needs one barrier and no register copy
// of its rows; identity rows are written to both and never change.
template <class T, int kColumns>
__global__ void __launch_bounds__(kPassThreads) tiled_pcr_kernel(PassArgs<T> args) {
  constexpr int kRows = kTileArrayBytes / kPassThreads / static_cast<int>(sizeof(T));
  extern __shared__ __align__(16) unsigned char shared_bytes[];
  const int residues_log2 = args.residues_log2;
  const int residue_mask = (1 << residues_log2) - 1;
  const int halo = (1 << args.steps) - 1;
  const int positions = args.tile_positions + 2 * halo;
  const int elements = positions << residues_log2;
  const int copy = (3 + args.group_columns) * elements;  // one copy: a, b, c, then the columns' d
  T* const shared = reinterpret_cast<T*>(shared_bytes);

  // The residue groups of one tile are neighbouring blocks (their strips share lines), then the
  // column groups (which read the same matrix tile), then the tiles.
  long long block = blockIdx.x;
  const long long residue_group = block % args.residue_groups;
  block /= args.residue_groups;
  const long long column_group = block % args.column_groups;
  const long long tile = block / args.column_groups;
  const long long first_residue = residue_group << residues_log2;
  const long long first_position = tile * args.tile_positions - halo;
  const long long stride = 1LL << args.stride_log2;
  const int first_column = static_cast<int>(column_group) * args.group_columns;
  const int columns = min(args.group_columns, args.n - first_column);
  const long long m = args.m;
  // The row of element e, or -1 outside [0, m) (an identity row).
  auto row_of = [&](int e) -> long long {
    const long long position = first_position + (e >> residues_log2);
    if (position < 0) return -1;
    const long long row = first_residue + (e & residue_mask) + position * stride;
    return row < m ? row : -1;
  };

  unsigned inside = 0;  // bit t: element t is a row of the system
#pragma unroll
  for (int t = 0; t < kRows; ++t) {
    const int e = static_cast<int>(threadIdx.x) + t * kPassThreads;
    if (e >= elements) continue;
    const long long row = row_of(e);
    if (row >= 0) {
      inside |= 1u << t;
      shared[e] = args.first && row == 0 ? zero<T>() : args.a[row];
      shared[elements + e] = args.b[row];
      shared[2 * elements + e] = args.first && row == m - 1 ? zero<T>() : args.c[row];
#pragma unroll
      for (int j = 0; j < kColumns; ++j) {
        if (j < columns) shared[(3 + j) * elements + e] = args.d[row + (first_column + j) * args.d_ld];
      }
    } else {
#pragma unroll
      for (int at = 0; at < 2 * copy; at += copy) {
        shared[at + e] = zero<T>();
        shared[at + elements + e] = from_real<T>(typename ScalarTraits<T>::Real(1));
        shared[at + 2 * elements + e] = zero<T>();
#pragma unroll
        for (int j = 0; j < kColumns; ++j) {
          if (j < columns) shared[at + (3 + j) * elements + e] = zero<T>();
        }
      }
    }
  }
  __syncthreads();

  for (int level = 0; level < args.steps; ++level) {
    // Level l (stride 2^l positions) computes the positions that levels l+1..q-1 read:
    // [2^(l+1) - 1, positions - 2^(l+1) + 1), from level l-1's [2^l - 1, positions - 2^l + 1); at
    // the last level these are the tile's outputs, which go to the buffer.
    const int reach = 1 << (level + residues_log2);
    const int edge = (2 << level) - 1;
    const bool last = level + 1 == args.steps;
    const T* const sa = shared + (level & 1) * copy;
    const T* const sb = sa + elements;
    const T* const sc = sb + elements;
    const T* const sd = sc + elements;
    T* const next_a = shared + ((level + 1) & 1) * copy;
    T* const next_b = next_a + elements;
    T* const next_c = next_b + elements;
    T* const next_d = next_c + elements;
    // Two rows at a time: fully unrolled, the rows' shared loads hoisted together take up to 80
    // registers (sm_90, f32's 8 rows); two rows give the scheduler independent work in at most 58.
#pragma unroll 2
    for (int t = 0; t < kRows; ++t) {
      const int e = static_cast<int>(threadIdx.x) + t * kPassThreads;
      const int position = e >> residues_log2;
      if (((inside >> t) & 1u) == 0 || position < edge || position >= positions - edge) continue;
      // reference pcr_eliminate: lo = e - reach, hi = e + reach.
      const T k1 = divide(sa[e], sb[e - reach]);
      const T k2 = divide(sc[e], sb[e + reach]);
      const T a = negate(mul(sa[e - reach], k1));
      const T b = mul_sub(mul_sub(sb[e], sc[e - reach], k1), sa[e + reach], k2);
      const T c = negate(mul(sc[e + reach], k2));
      if (last) {
        const long long row = row_of(e);
        if (column_group == 0) {
          args.a_out[row] = a;
          args.b_out[row] = b;
          args.c_out[row] = c;
        }
#pragma unroll
        for (int j = 0; j < kColumns; ++j) {
          if (j < columns) {
            const T* column = sd + j * elements;
            args.d_out[row + (first_column + j) * args.out_ld] =
                mul_sub(mul_sub(column[e], column[e - reach], k1), column[e + reach], k2);
          }
        }
      } else {
        next_a[e] = a;
        next_b[e] = b;
        next_c[e] = c;
#pragma unroll
        for (int j = 0; j < kColumns; ++j) {
          if (j < columns) {
            const T* column = sd + j * elements;
            next_d[j * elements + e] = mul_sub(mul_sub(column[e], column[e - reach], k1), column[e + reach], k2);
          }
        }
      }
    }
    if (!last) __syncthreads();
  }
}

template <class Kernel>
cudaError_t allow_shared(Kernel kernel, std::size_t bytes) {
  if (bytes <= 48 * 1024) return cudaSuccess;
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
}

template <class T, int kColumns>
cudaError_t launch_pass(const PassShape& shape, PassArgs<T> args, cudaStream_t stream) {
  args.stride_log2 = shape.stride_log2;
  args.steps = shape.steps;
  args.residues_log2 = shape.residues_log2;
  args.tile_positions = static_cast<int>(shape.tile_positions);
  args.residue_groups = 1LL << (shape.stride_log2 - shape.residues_log2);
  args.group_columns = std::min(args.n, kColumns);
  args.column_groups = ceil_div(args.n, args.group_columns);
  const long long halo = (1LL << shape.steps) - 1;
  const long long elements = (shape.tile_positions + 2 * halo) << shape.residues_log2;
  const std::size_t shared =
      2 * static_cast<std::size_t>(3 + args.group_columns) * static_cast<std::size_t>(elements) * sizeof(T);
  const long long tiles = ceil_div(ceil_div(args.m, 1LL << shape.stride_log2), shape.tile_positions);
  const long long blocks = tiles * args.column_groups * args.residue_groups;
  if (blocks > INT_MAX) return cudaErrorInvalidConfiguration;
  auto kernel = tiled_pcr_kernel<T, kColumns>;
  if (const cudaError_t status = allow_shared(kernel, shared); status != cudaSuccess) return status;
  return launch::counted([&] { kernel<<<static_cast<unsigned>(blocks), kPassThreads, shared, stream>>>(args); });
}

// Blocks hold 1, 2 or 3 columns: 2 (3 + 3) 8 KB = 96 KB of shared memory at most, within every
// sm_80+ part's limit (99 KB on sm_86 and sm_89).
template <class T>
cudaError_t run_pass(const PassShape& shape, const PassArgs<T>& args, cudaStream_t stream) {
  if (args.n == 1) return launch_pass<T, 1>(shape, args, stream);
  if (args.n == 2) return launch_pass<T, 2>(shape, args, stream);
  return launch_pass<T, kMaxBlockColumns>(shape, args, stream);
}

// --- p-Thomas -------------------------------------------------------------------------------

template <class T>
struct ThomasArgs {
  const T* a;  // the last pass's rows, or the caller's dl, d, du (k = 0)
  const T* b;
  const T* c;   // read by the first group of columns
  T* cp;        // c', written by the first group of columns, read by the others (may be c itself)
  T* d;         // right-hand sides in, d' out, column j at d + j * d_ld (B itself when k = 0)
  long long d_ld;
  T* x;  // the solution: B
  long long ldb;
  long long m;
  int n;
  int steps;  // k: 2^k subsystems
};

// Thread r solves rows r, r + 2^k, ... (reference p_thomas / thomas_core): kWidth columns at a
// time, kAhead rows loaded before they are used so that a thread has several loads in flight.
template <class T>
__global__ void __launch_bounds__(kThomasThreads) p_thomas_kernel(ThomasArgs<T> args) {
  constexpr int kWidth = sizeof(T) >= 16 ? 2 : 4;
  constexpr int kAhead = sizeof(T) >= 8 ? 2 : 4;
  const long long stride = 1LL << args.steps;
  const long long system = static_cast<long long>(blockIdx.x) * kThomasThreads + threadIdx.x;
  if (system >= stride) return;
  const long long rows = (args.m - 1 - system) / stride + 1;  // system < 2^k <= m
  for (int first_column = 0; first_column < args.n; first_column += kWidth) {
    const int columns = min(kWidth, args.n - first_column);
    const bool make_cp = first_column == 0;
    T* const d = args.d + first_column * args.d_ld;
    T* const x = args.x + first_column * args.ldb;

    // Forward: denom = b - c'_{i-1} a, c' = c / denom, d' = (d - d'_{i-1} a) / denom.
    T cp_prev = zero<T>();
    T dp_prev[kWidth];
#pragma unroll
    for (int j = 0; j < kWidth; ++j) dp_prev[j] = zero<T>();
    for (long long i0 = 0; i0 < rows; i0 += kAhead) {
      T ra[kAhead], rb[kAhead], rc[kAhead], rd[kAhead][kWidth];
#pragma unroll
      for (int u = 0; u < kAhead; ++u) {
        const long long i = i0 + u;
        if (i >= rows) continue;
        const long long at = system + i * stride;
        ra[u] = i > 0 ? args.a[at] : zero<T>();
        rb[u] = args.b[at];
        rc[u] = i + 1 < rows ? (make_cp ? args.c[at] : args.cp[at]) : zero<T>();
#pragma unroll
        for (int j = 0; j < kWidth; ++j) {
          if (j < columns) rd[u][j] = d[at + j * args.d_ld];
        }
      }
#pragma unroll
      for (int u = 0; u < kAhead; ++u) {
        const long long i = i0 + u;
        if (i >= rows) continue;
        const long long at = system + i * stride;
        const T denom = mul_sub(rb[u], cp_prev, ra[u]);
        T cp = rc[u];  // the last row's c' is never used
        if (make_cp && i + 1 < rows) {
          cp = divide(rc[u], denom);
          args.cp[at] = cp;
        }
#pragma unroll
        for (int j = 0; j < kWidth; ++j) {
          if (j < columns) {
            const T dp = divide(mul_sub(rd[u][j], dp_prev[j], ra[u]), denom);
            d[at + j * args.d_ld] = dp;
            dp_prev[j] = dp;
          }
        }
        cp_prev = cp;
      }
    }

    // Back substitution: x_{last} = d'_{last}, x_i = d'_i - c'_i x_{i+1}.
    T x_next[kWidth];
#pragma unroll
    for (int j = 0; j < kWidth; ++j) x_next[j] = dp_prev[j];
    for (long long top = rows - 1; top >= 0; top -= kAhead) {
      T rcp[kAhead], rdp[kAhead][kWidth];
#pragma unroll
      for (int u = 0; u < kAhead; ++u) {
        const long long i = top - u;
        if (i < 0 || i + 1 >= rows) continue;  // the last row is x_next already
        const long long at = system + i * stride;
        rcp[u] = args.cp[at];
#pragma unroll
        for (int j = 0; j < kWidth; ++j) {
          if (j < columns) rdp[u][j] = d[at + j * args.d_ld];
        }
      }
#pragma unroll
      for (int u = 0; u < kAhead; ++u) {
        const long long i = top - u;
        if (i < 0) continue;
        const long long at = system + i * stride;
#pragma unroll
        for (int j = 0; j < kWidth; ++j) {
          if (j >= columns) continue;
          if (i + 1 < rows) x_next[j] = mul_sub(rdp[u][j], rcp[u], x_next[j]);
          x[at + j * args.ldb] = x_next[j];
        }
      }
    }
  }
}

template <class T>
cudaError_t launch_thomas(const ThomasArgs<T>& args, cudaStream_t stream) {
  const long long blocks = ceil_div(1LL << args.steps, kThomasThreads);
  return launch::counted(
      [&] { p_thomas_kernel<T><<<static_cast<unsigned>(blocks), kThomasThreads, 0, stream>>>(args); });
}

// A pass's output in the buffer, as set_bytes lays it out.
template <class T>
struct RowSet {
  T* a;
  T* b;
  T* c;
  T* d;
  long long ld;
};

template <class T>
RowSet<T> carve(unsigned char* base, int m) {
  const std::size_t array = array_bytes(m, static_cast<int>(sizeof(T)));
  return {reinterpret_cast<T*>(base), reinterpret_cast<T*>(base + array), reinterpret_cast<T*>(base + 2 * array),
          reinterpret_cast<T*>(base + 3 * array), static_cast<long long>(array / sizeof(T))};
}

}  // namespace

int pcr_thomas_steps(int m, int element_bytes) {
  if (m < 2 * kMinSubsystemRows) return 0;
  const int room = floor_log2(m / kMinSubsystemRows);
  const int target = floor_log2(std::max(1LL, kTargetSubsystemBytes / element_bytes));
  const int k = std::min({room, target, most_steps(element_bytes)});
  return std::min(k, ceil_log2(m));
}

std::size_t pcr_thomas_buffer_bytes(int m, int n, int element_bytes) {
  const Plan plan = make_plan(m, element_bytes);
  if (plan.passes == 0) return array_bytes(m, element_bytes);  // c'
  return static_cast<std::size_t>(plan.passes) * set_bytes(m, n, element_bytes);
}

template <class T>
cudaError_t pcr_thomas_solve_columns(int m, int n, int ldb, const T* dl, const T* d, const T* du, T* B, void* buffer,
                                     cudaStream_t stream) {
  const Plan plan = make_plan(m, static_cast<int>(sizeof(T)));
  auto* scratch = static_cast<unsigned char*>(buffer);
  ThomasArgs<T> thomas{};
  thomas.x = B;
  thomas.ldb = ldb;
  thomas.m = m;
  thomas.n = n;
  thomas.steps = plan.steps;
  if (plan.passes == 0) {
    thomas.a = dl;
    thomas.b = d;
    thomas.c = du;
    thomas.cp = reinterpret_cast<T*>(scratch);
    thomas.d = B;
    thomas.d_ld = ldb;
    return launch_thomas(thomas, stream);
  }
  PassArgs<T> args{};
  args.a = dl;
  args.b = d;
  args.c = du;
  args.d = B;
  args.d_ld = ldb;
  args.first = true;
  args.m = m;
  args.n = n;
  RowSet<T> out{};
  const std::size_t set = set_bytes(m, n, static_cast<int>(sizeof(T)));
  for (int pass = 0; pass < plan.passes; ++pass) {
    out = carve<T>(scratch + static_cast<std::size_t>(pass) * set, m);
    args.a_out = out.a;
    args.b_out = out.b;
    args.c_out = out.c;
    args.d_out = out.d;
    args.out_ld = out.ld;
    if (const cudaError_t status = run_pass(plan.pass[pass], args, stream); status != cudaSuccess) return status;
    args.a = out.a;
    args.b = out.b;
    args.c = out.c;
    args.d = out.d;
    args.d_ld = out.ld;
    args.first = false;
  }
  thomas.a = out.a;
  thomas.b = out.b;
  thomas.c = out.c;
  thomas.cp = out.c;  // c' over c, in place: each thread its own rows
  thomas.d = out.d;
  thomas.d_ld = out.ld;
  return launch_thomas(thomas, stream);
}

#define IDGPU_INSTANTIATE_(T)                                                                                   \
  template cudaError_t pcr_thomas_solve_columns<T>(int, int, int, const T*, const T*, const T*, T*, void*, \
                                                   cudaStream_t);
IDGPU_INSTANTIATE_(float)
IDGPU_INSTANTIATE_(double)
IDGPU_INSTANTIATE_(cuComplex)
IDGPU_INSTANTIATE_(cuDoubleComplex)
#undef IDGPU_INSTANTIATE_

}  // namespace idgpu::tridiag::kernels
