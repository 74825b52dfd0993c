// The index arithmetic of one Stockham pass, shared by the GPU kernel (src/fft/kernels) and the
// host executor that mirrors it (src/fft/stockham_reference.cpp), so that a CPU test of the host
// executor is a test of the kernel's addressing. (Not of the fixed-sequence kernels' row-padded
// exchanges between stages, exchange_write_slot / exchange_read_slot below: the host executor
// exchanges its stages unpadded, and a CPU test checks those two maps against each other.) See
// the pass mapping in fft/planner.h.
//
// A block serves `per_block` (T) consecutive sub-transforms g0 .. g0+T-1 of a pass, where the
// sub-transforms of the whole batch are numbered g = batch * S + id (S = n / N sub-transforms per
// transform, id = j + L k). The block stages them through shared memory: element e of its
// sub-transform tr sits at tr * smem_stride + e + (e >> shift) (the padding keeps the strided
// accesses of the butterflies off one bank), and both global sides are walked in a linear order q
// chosen so that consecutive q are consecutive addresses:
//  - contiguous side (the input of a single pass, S = 1; the output of a first pass, L = 1): the T
//    sub-transforms are one run of T N elements, q -> (tr = q / N, e = q % N);
//  - column side (every other case, T divides S and L, or an axis pass's T lines straddle two
//    transforms: PassShape::straddles): rows of T consecutive elements, q -> (tr = q % T, e = q / T).
#pragma once

#if defined(__CUDACC__)
#define IDGPU_HD __host__ __device__ __forceinline__
#else
#define IDGPU_HD inline
#endif

namespace idgpu::fft {

// The elements one thread keeps in registers: a stage of radix r gives each thread at most
// kMaxElementsPerThread / r butterflies.
inline constexpr int kMaxElementsPerThread = 16;
// The shared buffers' padding: one element every 2^smem_padding_shift(element bytes), 16 for
// 8-byte (fp32 complex) elements and 8 for 16-byte ones (FftPass::smem_shift; the fixed-sequence
// kernels compile it in, kernels/stockham_pass.cuh).
IDGPU_HD constexpr int smem_padding_shift(int element_bytes) { return element_bytes >= 16 ? 3 : 4; }
// A shift past every index a shared buffer holds (they stay below 2^30): e >> kUnpaddedShift is 0,
// a buffer without padding; kernels that compile the shift in drop the padding's arithmetic.
inline constexpr int kUnpaddedShift = 30;
// One transform a thread (the thread layout): a single mixed-radix pass (on a kernel compiled at
// run time, FftPass::runtime_kernel) short enough that a thread holds its N elements in registers
// (N x element bytes <= kThreadTransformBytes: fp32 N <= 64, fp64 N <= 32) runs all of its stages
// there, with no exchange and no barrier between stages (kernels/stockham_pass.cuh's
// ThreadStages). The block's T transforms (one a thread, at most kThreadTransformThreads) are
// staged through shared memory on both sides, every load in flight before the first store, element
// e of transform tr at tr * thread_transform_stride(N) + e: an odd stride, so that the 8- or
// 16-byte accesses of a phase's lanes, one transform each, fall on distinct banks. The layout is
// marked by its shift, which pads nothing (e >> kThreadShift is 0, as with kUnpaddedShift).
inline constexpr int kThreadShift = 31;
inline constexpr int kThreadTransformBytes = 512;
inline constexpr int kThreadTransformThreads = 256;
IDGPU_HD constexpr int thread_transform_stride(int size) { return size | 1; }
IDGPU_HD constexpr bool thread_layout(int shift) { return shift == kThreadShift; }
// Butterflies a thread takes in a stage of radix r: as many as fill its 16 elements, except one
// for the large odd radices, whose direct DFTs need the rest of the registers.
IDGPU_HD constexpr int butterflies_per_thread(int radix) { return radix >= 7 && radix % 2 == 1 ? 1 : kMaxElementsPerThread / radix; }
// Butterflies a thread takes in a stage of `butterflies` radix-r butterflies run by `threads`
// threads: butterflies_per_thread(r), or more where the threads are fewer than that needs (a fixed
// sequence's widened stages, sequence_threads).
IDGPU_HD constexpr int stage_butterflies_per_thread(int radix, int butterflies, int threads) {
  const int needed = (butterflies + threads - 1) / threads;
  return needed > butterflies_per_thread(radix) ? needed : butterflies_per_thread(radix);
}
// Threads a transform of the radices' product takes in a pass of a fixed sequence
// (kernels/fixed_radices.h) under a block's `max_threads`: enough for butterflies_per_thread(r)
// butterflies a thread in every stage, as every pass takes; where that is more than max_threads,
// each stage whose butterflies need more than max_threads takes as many a thread as max_threads
// threads need (stage_butterflies_per_thread), so that the sequence stays one pass. fp64 (512
// threads): 3850, 4004 and 4095 take two radix-7 butterflies a thread (550, 572, 585 threads
// otherwise), 6561 = 9^4 two radix-9 ones (729 -> 365 threads), 10000 = 16 x 5^4 two radix-16 and
// four radix-5 ones (667 -> 500). H200, Z2Z at 2^25 points a call, against the two passes they
// took before: 3850 2.76 -> 0.55 ms, 4004 1.98 -> 0.47, 4095 2.72 -> 0.48, 6561 1.70 -> 0.47
// (ptxas, sm_90: 98-122 registers, no spills), 10000 2.17 -> 0.62 (128 registers, 164 B of
// spills). Only such single passes widen (FftPass::widened_limit); other passes take
// butterflies_per_thread's threads (the general kernel has no wider stages).
IDGPU_HD constexpr int sequence_threads(const int* radices, int stages, int max_threads) {
  int size = 1;
  for (int st = 0; st < stages; ++st) size *= radices[st];
  int plain = 1;
  int widened = 1;
  for (int st = 0; st < stages; ++st) {
    const int butterflies = size / radices[st];
    const int per_thread = butterflies_per_thread(radices[st]);
    const int wide = stage_butterflies_per_thread(radices[st], butterflies, max_threads);
    const int threads = (butterflies + per_thread - 1) / per_thread;
    const int wide_threads = (butterflies + wide - 1) / wide;
    plain = threads > plain ? threads : plain;
    widened = wide_threads > widened ? wide_threads : widened;
  }
  return plain <= max_threads ? plain : widened;
}

// The wide layout (FftPass::wide; kernels/stockham_pass.cuh's WideStages): a single mixed-radix
// pass on a kernel compiled at run time whose transform takes about N / E threads, E the
// elements a thread keeps (DeviceLimits::wide_elements), every stage's butterflies spread over
// them (sequence_threads under the cap wide_thread_cap(N, E), at most kWideThreads), in blocks of
// at most kWideThreads threads. butterflies_per_thread's rule gives a length with a radix-7, 9, 11
// or 13 stage N / r threads (n = 3780: 540 threads, 64 registers each under the kernels' bound of
// 1024 threads, one block an SM, 0.29 of the DRAM's throughput on an H200, where the vendor's
// kernel takes 27 elements a thread, 140 threads, four blocks an SM, 0.71); the planner takes the
// wide layout only for such passes (planner.cpp's wide_cap says which, and what it measured).
inline constexpr int kWideThreads = 256;
IDGPU_HD constexpr int wide_thread_cap(int size, int elements) { return (size + elements - 1) / elements; }

// Stages of one pass, at most (3^8 = 6561 has 8; 2 x 3^8 has 9).
inline constexpr int kMaxStages = 16;

// The planner's split of a power-of-two length 2^bits into Stockham stages (fft/planner.cpp):
// ceil(bits / 4) stages with the bits spread evenly, the larger stages first (2^7 = 16 * 8,
// 2^9 = 8 * 8 * 8). The kernels compiled for fixed powers of two (kernels/stockham_pow2.cuh) take
// their stages from here too, so a plan and its kernel agree.
IDGPU_HD constexpr int pow2_stages(int bits) { return (bits + 3) / 4; }
IDGPU_HD constexpr int pow2_stage_bits(int bits, int stage) {
  return bits / pow2_stages(bits) + (stage < bits % pow2_stages(bits) ? 1 : 0);
}

// Cluster plans (kernels/stockham_cluster.cuh): a power-of-two transform n = 2^bits, 2^14..2^16
// in fp32 and fp64 (a real plan's half also 2^17: 16 blocks of 512 threads, below), runs in one
// kernel as a thread-block cluster of C = n / 4096 blocks of 256 threads, one transform per cluster; its two passes (sizes NA = 2^cluster_bits_a, stage A, and
// NB = n / NA, stage B) exchange through distributed shared memory instead of device memory.
// Measured on an H100 against the two-pass plan and against blocks of 512 and 128 threads: 256
// threads (4 blocks per SM in fp32, 2 in fp64) overlap the blocks' load, exchange and store
// phases best; 2^17 (C = 16 at 512 threads, or C = 8 at 1024) lost to two passes; fp64 2^13 in
// a single pass beat a cluster of 2.
// A real plan's half (below) goes one bit further: 2^17 as 16 blocks of 512 threads (the
// largest cluster sm_90 allows; cluster_rank_bits stops at 4), where the two-pass real plans
// move the data twice: on an H100, R2C / C2R n = 2^18 at 0.44-0.45 of copy bandwidth against
// the two passes' 0.30 (ptxas, sm_90: 64 / 112 B of spills a thread in fp32 C2R / R2C).
inline constexpr int kClusterMinBits = 14;
inline constexpr int kClusterMaxBits = 16;
inline constexpr int kClusterRealMaxBits = 17;
inline constexpr int kClusterThreadsLog2 = 8;
inline constexpr int kClusterMaxRankBits = 4;
IDGPU_HD constexpr int cluster_bits_a(int bits) { return (bits + 1) / 2; }
IDGPU_HD constexpr int cluster_rank_bits(int bits) {
  return bits - 4 - kClusterThreadsLog2 < kClusterMaxRankBits ? bits - 4 - kClusterThreadsLog2 : kClusterMaxRankBits;
}
// Block `rank` of the cluster runs stage A on the TA = NB / C columns n1 = rank TA + tr (elements
// x[n1 + NB n2]) and stage B on the TB = NA / C rows k2 = rank TB + tr of the intermediate
// Y[n1, k2] (output X[k2 + NA k1]). Stage A's output Y[n1, k2] goes to block k2 / TB, into row
// k2 mod TB of its stage-B buffer at column n1 (padded as every buffer: smem_index).
IDGPU_HD int cluster_exchange_rank(int k2, int rows_b_log2) { return k2 >> rows_b_log2; }  // host mirror
IDGPU_HD int cluster_exchange_slot(int k2, int n1, int rows_b_log2, int stride_b, int shift) {
  return (k2 & ((1 << rows_b_log2) - 1)) * stride_b + n1 + (n1 >> shift);
}
// Cluster column passes (FftPass::cluster with lines_log2 > 0; kernels/stockham_cluster.cuh,
// stockham_cluster_lines): a column pass (column in and out, element stride S = sub = span) of
// N = 2^bits points, whose single-block tiles hold so few lines that its rows are 16-32 bytes
// (T = 4 lines of 4096 points already take 128 KB of shared memory), runs as a cluster of C
// blocks per T = 2^lines_log2 adjacent lines, N split NA x NB as a cluster plan's: rows of T
// lines (128 bytes: 16 fp32 or 8 fp64 lines, cluster_column_lines_log2) on both sides. C = 2^cluster_rank_bits(bits + lines_log2):
// the cluster holds T N points, 16 a thread in blocks of 256 threads (512 at 2^13; up to 16 blocks).
// Block `rank` runs stage A on the T TA columns (line l, n1 = rank TA + c), lanes tr = l + T c,
// and stage B on the T TB rows (line l, k2 = rank TB + r), lanes tr = l + T r. The exchange lays
// a block's rows out line-innermost, element n1 of line l of its row r at (r NB + n1) T + l
// (cluster_lines_slot), so that the 32 lanes of a warp, T lines of consecutive n1, store one
// contiguous run into distributed shared memory; stage B reads its elements from there into
// registers before its own padded buffers (T TB of stride_b) take the same memory.
// A first pass (column in, each line's output contiguous: FftCluster::contiguous_out) splits N as
// NA = N / 16 and NB = 16 (cluster_first_bits_a), so that a block's TB = NA / C >= 16 rows k2 are
// consecutive outputs k2 + NA k1 of each line: 128-byte runs. Its stage B is one radix-16
// butterfly a thread (lanes tr = l + T r, exchange rows as above), whose outputs are staged in
// the same memory rows-innermost, one padding element a line (cluster_rows_slot: output k1 of
// line l for row r at l (NB TB + 1) + k1 TB + r), and stored from there in runs of TB.
inline constexpr int kClusterColumnMinBits = 11;
inline constexpr int kClusterColumnMaxBits = 13;
// Lines a cluster: 128-byte rows, 16 fp32 or 8 fp64 lines.
IDGPU_HD constexpr int cluster_column_lines_log2(int element_bytes) { return element_bytes > 8 ? 3 : 4; }
IDGPU_HD int cluster_lines_slot(int k2, int n1, int line, int rows_b_log2, int bits_b, int lines_log2) {
  return ((((k2 & ((1 << rows_b_log2) - 1)) << bits_b) + n1) << lines_log2) + line;
}
IDGPU_HD constexpr int cluster_first_bits_a(int bits) { return bits - 4; }
IDGPU_HD int cluster_rows_slot(int k2, int n1, int line, int rows_b_log2, int bits_b) {
  return line * ((1 << (bits_b + rows_b_log2)) + 1) + (n1 << rows_b_log2) + (k2 & ((1 << rows_b_log2) - 1));
}

// Real cluster plans (a 1D R2C / C2R of n = 2 M reals whose half M is a cluster length): the
// cluster transforms the M complex values z[m] = x[2m] + i x[2m+1], and the real step pairs
// Z[k] with Z[M - k] (RealStep in fft/planner.h). Output k = k2 + NA k1 of stage B pairs with
// cluster_real_partner's row and element (k2 = 0: row 0, element (NB - k1) mod NB; else row
// NA - k2, element NB - 1 - k1). C2R, before stage A: input m pairs with X[M - m] (m = 0:
// X[M]), read from device memory. R2C, after stage B: the exchange gives every block its rows
// paired (cluster_paired_row) so that each row's partner is in the same block.
IDGPU_HD void cluster_real_partner(int k2, int k1, int bits_a, int bits_b, int* partner_k2, int* partner_k1) {
  if (k2 == 0) {
    *partner_k2 = 0;
    *partner_k1 = ((1 << bits_b) - k1) & ((1 << bits_b) - 1);
  } else {
    *partner_k2 = (1 << bits_a) - k2;
    *partner_k1 = (1 << bits_b) - 1 - k1;
  }
}
// An R2C cluster's rows: block `rank` holds the H = TB / 2 rows p = rank H + r (r < H, rows
// 0 .. NA / 2 - 1 over the cluster) in its rows r, and their partners NA - p in its rows
// TB - 1 - r (ascending); p = 0 pairs with itself, and its partner's place (block 0, row TB - 1)
// takes row NA / 2, which pairs with itself too. So row r of a block pairs with its row TB - 1 - r
// (cluster_paired_partner_row; rows 0 and TB - 1 of block 0 with themselves), and the real step
// needs no second exchange. TB >= 2.
IDGPU_HD void cluster_paired_row(int k2, int rows_log2, int bits_a, int* rank, int* row) {
  const int half = 1 << (rows_log2 - 1);  // H
  const int middle = 1 << (bits_a - 1);   // NA / 2
  if (k2 < middle) {
    *rank = k2 >> (rows_log2 - 1);
    *row = k2 & (half - 1);
  } else if (k2 == middle) {
    *rank = 0;
    *row = 2 * half - 1;
  } else {
    const int p = (1 << bits_a) - k2;
    *rank = p >> (rows_log2 - 1);
    *row = 2 * half - 1 - (p & (half - 1));
  }
}
// The row k2 that block `rank` holds in its row `row` (cluster_paired_row's inverse).
IDGPU_HD int cluster_paired_k2(int rank, int row, int rows_log2, int bits_a) {
  const int half = 1 << (rows_log2 - 1);
  if (row < half) return rank * half + row;
  const int p = rank * half + (2 * half - 1 - row);
  return p == 0 ? 1 << (bits_a - 1) : (1 << bits_a) - p;
}
IDGPU_HD int cluster_paired_partner_row(int rank, int row, int rows_log2) {
  const int last = (1 << rows_log2) - 1;
  return rank == 0 && (row == 0 || row == last) ? row : last - row;
}

// Paired passes (below): of C = sub columns, the column that holds place tr (< 2 half) of a group whose primary columns
// are j0 .. j0 + half - 1.
IDGPU_HD long long paired_group_column(long long sub, long long j0, int half, int tr) {
  if (tr < half) return j0 + tr;
  const long long column = sub - j0 - half + 1 + (tr - half);
  return column == sub ? sub / 2 : column;
}
// Real cluster column passes (a two-pass real plan's paired pass, RealStep::kPairedR2C /
// kPairedC2R, as a cluster column pass): the cluster's T lines are a paired group of columns
// (paired_group_column with half = T / 2, j0 a multiple of T / 2), so that line l's partner is
// line T - 1 - l (columns 0 and S / 2: itself) and every pair of points the real step combines
// is in one cluster.
//  - C2R (the first pass, contiguous out): stage A forms Z[m] from X[m] and X[M - m], both read
//    from device memory (the partner's row by another block of the same cluster at about the same
//    time: the L2 serves the second read), as the C2R cluster kernel does.
//  - R2C (the last pass, column out): output k2 + NA k1 of a column c >= 1 pairs with the
//    partner column's NA - 1 - k2 + NA (NB - 1 - k1); its exchange gives block `rank` the rows
//    p = rank H + r in its rows r < H and NA - 1 - p in rows TB - 1 - r (cluster_mirror_row, H =
//    TB / 2), so that row r's partner is row TB - 1 - r of the partner line in the same block.
//    Column 0 (line 0 of the group j0 = 0) pairs with itself as a real cluster plan's transform
//    does (cluster_real_partner), its rows by cluster_paired_row.
// Packed cluster column passes (an R2C plane's axis pass over S = n / 2 + 1 lines, FftPass::
// nyquist_packed, S - 1 a multiple of T): lines 0 and S - 1 are real after the rows' R2C, so the
// first cluster loads them as one line z = a + i b in its line 0 and the clusters tile the S - 1
// others; line 0's rows pair as a real cluster plan's transform's (cluster_paired_row), so that
// A[k] = (Z[k] + conj Z[N-k]) / 2 (line 0) and B[k] = (Z[k] - conj Z[N-k]) / 2i (line S - 1) are
// formed from the block's own buffers.
IDGPU_HD long long cluster_paired_column(long long sub, long long j0, int line, int lines_log2) {
  return paired_group_column(sub, j0, 1 << (lines_log2 - 1), line);
}
IDGPU_HD int cluster_paired_line(long long sub, long long column, int line, int lines_log2) {
  return column == 0 || 2 * column == sub ? line : (1 << lines_log2) - 1 - line;
}
IDGPU_HD void cluster_mirror_row(int k2, int rows_log2, int bits_a, int* rank, int* row) {
  const int half = 1 << (rows_log2 - 1);
  const bool low = k2 < (1 << (bits_a - 1));
  const int p = low ? k2 : (1 << bits_a) - 1 - k2;
  *rank = p >> (rows_log2 - 1);
  *row = low ? p & (half - 1) : 2 * half - 1 - (p & (half - 1));
}
// The row k2 that block `rank` holds in its row `row` (cluster_mirror_row's inverse).
IDGPU_HD int cluster_mirror_k2(int rank, int row, int rows_log2, int bits_a) {
  const int half = 1 << (rows_log2 - 1);
  if (row < half) return rank * half + row;
  return (1 << bits_a) - 1 - (rank * half + 2 * half - 1 - row);
}

// Fused plans (kernels/stockham_fused.cuh): the two passes of a power-of-two plan, out of place,
// in one persistent kernel. The first pass writes its intermediate into the output, the last pass
// transforms it there in place, and the intermediate of a transform is read back while it is still
// in the L2 cache, so device memory sees about one read and one write per element instead of
// two of each. The blocks take tiles (one block's work of either pass) by ticket from one
// counter, in the order of this schedule: with `lag` D, step s = 0, 1, ... holds the first-pass
// tiles of transform s (if s < batch) followed by the last-pass tiles of transform s - D (if
// s >= D). A last-pass tile of transform t waits until the first-pass tiles of t are done; those
// all hold smaller tickets, so they are taken by running blocks that wait on nothing: the kernel
// needs no co-resident grid and cannot deadlock. D trades the time a last-pass tile may wait
// against the L2 footprint (about D transforms of intermediate in flight).
struct FusedSchedule {
  long long batch = 0;
  int first_tiles = 0;  // first-pass blocks per transform
  int last_tiles = 0;   // last-pass blocks per transform
  int lag = 1;          // D >= 1
};
IDGPU_HD long long fused_tickets(const FusedSchedule& s) {
  return s.batch * (static_cast<long long>(s.first_tiles) + s.last_tiles);
}
// The tile of ticket `ticket` (< fused_tickets): pass 0 (first) or 1 (last), its transform, and
// the tile's block index within that transform.
IDGPU_HD void fused_tile(const FusedSchedule& s, long long ticket, int* pass, long long* transform, int* tile) {
  const long long a = s.first_tiles;
  const long long b = s.last_tiles;
  const long long lead = s.lag < s.batch ? s.lag : s.batch;
  if (ticket < lead * a) {  // steps 0 .. D-1: first-pass tiles only
    *pass = 0;
    *transform = ticket / a;
    *tile = static_cast<int>(ticket % a);
    return;
  }
  long long rest = ticket - lead * a;
  const long long middle = (s.batch - lead) * (a + b);
  if (rest < middle) {  // steps D .. batch-1: first pass of s, then last pass of s - D
    const long long step = rest / (a + b);
    const long long within = rest % (a + b);
    *pass = within < a ? 0 : 1;
    *transform = within < a ? lead + step : step;
    *tile = static_cast<int>(within < a ? within : within - a);
    return;
  }
  rest -= middle;  // steps batch .. batch+D-1: last-pass tiles only
  *pass = 1;
  *transform = s.batch - lead + rest / b;
  *tile = static_cast<int>(rest % b);
}

// What the index functions need of a pass.
//
// The same shape serves the passes of multi-dimensional and strided plans (fft/planner.h): an
// axis of length N whose elements are S apart (S the product of the inner axes' lengths, or the
// caller's stride), over S adjacent lines, is a pass with sub = span = S over a "transform" of
// n = N S elements, without the inter-pass twiddle (twiddled = false): a block reads and writes
// rows of T adjacent lines. A single pass (sub = span = 1) may have transforms in_dist and
// out_dist elements apart instead of N (a real transform's half-length complex view, the
// advanced layout's distances).
struct PassShape {
  long long n = 0;     // transform length
  long long sub = 0;   // S = n / N
  long long span = 1;  // L
  int size = 0;        // N
  int per_block = 0;   // T
  int smem_stride = 0; // shared-memory elements per sub-transform (padded)
  int shift = 0;       // padding: one element every 2^shift
  int size_log2 = -1;       // log2 N when N is a power of two, else -1
  int per_block_log2 = -1;  // log2 T when T is a power of two, else -1
  bool twiddled = true;     // a later pass (span > 1) applies w_{L N}^{e j} on load; not an axis pass
  long long in_dist = 0;    // sub == 1: elements between consecutive transforms' inputs (n when 0)
  long long out_dist = 0;   // span == 1: between consecutive sub-transforms' outputs (N when 0)
  long long out_group = 0;  // sub > 1: between consecutive transforms' first outputs (0: span == 1,
                            // sub x the distance above, the runs following on; span > 1, n)
  long long in_group = 0;   // sub > 1: between consecutive transforms' first inputs (0: n)
  // An axis pass (twiddled = false, span = sub or 1) whose T lines a block need not divide S:
  // block g0 .. g0+T-1 (T <= S) may run from the end of one transform's lines into the start of
  // the next's (block_frame's split and jumps). The planner sets it where no divisor of S gives
  // 64-byte rows (an odd S such as PyTorch's 129 lines of a 256^3 rfftn), so the rows are T
  // lines all the same.
  bool straddles = false;
  // FftPass::nyquist_packed (a forward pass): the block of line 0 (j0 = 0) runs line 0 and
  // line S - 1 as one complex line in its lane tr = 0, and the pass has S - 1 lines to tile.
  bool nyquist_packed = false;
};

// Lines of a pass that its blocks or tiles take: S, or S - 1 with the last line packed into
// the first (PassShape::nyquist_packed).
IDGPU_HD long long tiled_lines(const PassShape& s, long long lines) { return s.nyquist_packed ? lines - 1 : lines; }

IDGPU_HD long long input_distance(const PassShape& s) { return s.in_dist > 0 ? s.in_dist : s.n; }
IDGPU_HD long long input_group(const PassShape& s) { return s.in_group > 0 ? s.in_group : s.n; }
IDGPU_HD long long output_distance(const PassShape& s) { return s.out_dist > 0 ? s.out_dist : s.size; }
IDGPU_HD bool inter_pass_twiddled(const PassShape& s) { return s.twiddled && s.span > 1; }

IDGPU_HD int smem_index(const PassShape& s, int tr, int e) { return tr * s.smem_stride + e + (e >> s.shift); }

// What a block computes once (in 64 bits) so that each element costs 32-bit arithmetic only:
// the global offsets of its first sub-transform's element 0 on both sides, and the j of the
// inter-pass twiddle w_{L N}^{e j} of that sub-transform (the block's others follow as j0 + tr,
// since T divides L).
struct BlockFrame {
  long long in_base = 0;
  long long out_base = 0;
  long long j0 = 0;
  // A straddling block (PassShape::straddles): its sub-transforms from `split` on belong to the
  // next transform, whose elements lie in_jump / out_jump further than the first transform's
  // would continue (the gap between two transforms' lines). No straddle: split past every
  // sub-transform (INT_MAX), jumps 0. A jump is meant for valid sub-transforms only (callers
  // test tr < valid first): past the last transform it may not fit the int it is cast to.
  int split = 0x7fffffff;
  long long in_jump = 0;
  long long out_jump = 0;
};

IDGPU_HD BlockFrame block_frame(const PassShape& s, long long g0) {
  BlockFrame frame;
  if (s.sub == 1) {
    frame.in_base = g0 * input_distance(s);
    frame.out_base = g0 * output_distance(s);
    return frame;
  }
  const long long batch = g0 / s.sub;
  const long long id0 = g0 % s.sub;
  frame.in_base = batch * input_group(s) + id0;
  if (s.straddles && id0 + s.per_block > s.sub) {
    // Sub-transform tr >= split is line tr - split of transform batch + 1: on the input at
    // (batch + 1) group + tr - split = in_base + tr + (group - S), and so on the output.
    frame.split = static_cast<int>(s.sub - id0);
    frame.in_jump = input_group(s) - s.sub;
    if (s.span == 1) {
      frame.out_jump = s.out_group > 0 ? s.out_group - s.sub * output_distance(s) : 0;
    } else {
      frame.out_jump = (s.out_group > 0 ? s.out_group : s.n) - s.sub;  // span = sub
    }
  }
  if (s.span == 1) {
    // T divides sub, or the block straddles (above): its first sub-transform's transform.
    frame.out_base = s.out_group > 0 ? batch * s.out_group + id0 * output_distance(s) : g0 * output_distance(s);
  } else {
    frame.j0 = id0 % s.span;
    frame.out_base = batch * (s.out_group > 0 ? s.out_group : s.n) + frame.j0 + s.span * s.size * (id0 / s.span);
  }
  return frame;
}

// Offsets from the frame's bases of element e of sub-transform tr (input) and of its output
// element p: below n on a column side, below T N on a contiguous one.
IDGPU_HD int input_step(const PassShape& s, int tr, int e) {
  return s.sub == 1 ? tr * static_cast<int>(input_distance(s)) + e : tr + e * static_cast<int>(s.sub);
}
IDGPU_HD int output_step(const PassShape& s, int tr, int p) {
  return s.span == 1 ? tr * static_cast<int>(output_distance(s)) + p : tr + p * static_cast<int>(s.span);
}
// What a straddling block adds to those offsets for its sub-transform tr (0 unless tr >= split).
IDGPU_HD int input_jump(const BlockFrame& f, int tr) { return tr >= f.split ? static_cast<int>(f.in_jump) : 0; }
IDGPU_HD int output_jump(const BlockFrame& f, int tr) { return tr >= f.split ? static_cast<int>(f.out_jump) : 0; }

// Paired passes of a multi-pass real transform (RealStep::kPairedR2C, kPairedC2R in fft/planner.h):
// the pass of the complex transform of M = n / 2 points whose sub-transforms hold the points
// Z[k] at k = c + C e (C = sub columns, c the column, e < N): the last pass (C = L), whose
// outputs are final, or the first (C = n / N), whose inputs are. The real step combines Z[k]
// with Z[M - k] = Z[(C - c) + C (N - 1 - e)]: column C - c's element N - 1 - e (c >= 1), or
// column 0's element N - e mod N (c = 0). A block takes P = per_block columns of one transform,
// P / 2 "primary" ones c = j0 .. j0 + P/2 - 1 (j0 a multiple of P / 2 below C / 2) and their
// partners C - j0 - P/2 + 1 .. C - j0 in ascending order, except that the partner of column 0,
// itself, is replaced by column C / 2, whose partner is itself too. Every column of a transform
// is then in exactly one block (C / P blocks a transform; P divides C), every pair of points
// the step combines is in one block, and a block writes exactly the elements it reads (and, in
// the block of j0 = 0 of an R2C, X[M]): the pass may run in place.
struct PairedFrame {
  long long in_base = 0;   // the transform's first element on each side
  long long out_base = 0;
  long long j0 = 0;        // the block's first primary column
};
IDGPU_HD PairedFrame paired_frame(const PassShape& s, long long g0) {
  PairedFrame frame;
  const long long transform = g0 / s.sub;
  frame.in_base = transform * input_group(s);
  frame.out_base = transform * (s.out_group > 0 ? s.out_group : s.n);
  frame.j0 = (g0 % s.sub) / 2;
  return frame;
}
// The column of the block's sub-transform tr (< P).
IDGPU_HD long long paired_column(const PassShape& s, long long j0, int tr) {
  return paired_group_column(s.sub, j0, s.per_block / 2, tr);
}
// The block's sub-transform and element that hold Z[M - k] for element e of sub-transform tr
// (in column `column`): sub-transform paired_partner_tr, element paired_partner_e of the
// column's flip (N for column 0, N - 1 for the others), so that a kernel forms the first two
// once per sub-transform.
IDGPU_HD int paired_partner_tr(const PassShape& s, long long column, int tr) {
  return column == 0 || 2 * column == s.sub ? tr : s.per_block - 1 - tr;
}
IDGPU_HD int paired_partner_flip(const PassShape& s, long long column) { return column == 0 ? s.size : s.size - 1; }
IDGPU_HD int paired_partner_e(const PassShape& s, int flip, int e) { return flip - e == s.size ? 0 : flip - e; }
IDGPU_HD void paired_partner(const PassShape& s, long long column, int tr, int e, int* partner_tr, int* partner_e) {
  *partner_tr = paired_partner_tr(s, column, tr);
  *partner_e = paired_partner_e(s, paired_partner_flip(s, column), e);
}

// Linear staging order: q -> (tr, e) for a contiguous or a column side (shifts for powers of two).
IDGPU_HD void staging_slot(const PassShape& s, bool contiguous, int q, int* tr, int* e) {
  if (contiguous) {
    if (s.size_log2 >= 0) {
      *tr = q >> s.size_log2;
      *e = q & (s.size - 1);
    } else {
      *tr = q / s.size;
      *e = q - *tr * s.size;
    }
  } else {
    if (s.per_block_log2 >= 0) {
      *tr = q & (s.per_block - 1);
      *e = q >> s.per_block_log2;
    } else {
      *e = q / s.per_block;
      *tr = q - *e * s.per_block;
    }
  }
}

// Butterfly b of a stage of radix r and span l (the product of the pass's earlier radices) in a
// sub-transform of length N: reads b + t N / r, writes j + l r k + p l (b = j + l k), and
// multiplies input t by w_{l r}^{t j}.
IDGPU_HD int stage_write_base(int b, int span, int radix) { return b % span + span * radix * (b / span); }
// The same for powers of two, from logarithms: span = 2^span_log2, radix = 2^radix_log2.
IDGPU_HD int stage_write_base_pow2(int b, int span_log2, int radix_log2) {
  return (b & ((1 << span_log2) - 1)) + ((b >> span_log2) << (span_log2 + radix_log2));
}

// The stage twiddles of a pass, stage after stage: stage s (span l, radix r) holds w_{l r}^{t j}
// for t in [1, r), j in [0, l) at offset_s + (t - 1) l + j, with offset_0 = 0 and
// offset_{s+1} = offset_s + (r - 1) l (N - 1 entries in all). Consecutive butterflies have
// consecutive j, so a warp's twiddle loads are consecutive addresses, not a stride of N / (l r).
IDGPU_HD int stage_twiddle_index(int offset, int span, int t, int j) { return offset + (t - 1) * span + j; }
IDGPU_HD int next_stage_twiddle_offset(int offset, int span, int radix) { return offset + (radix - 1) * span; }

// The exchanges of a fixed-sequence pass (kernels/stockham_pass.cuh, FixedStages), whose shape
// has no padding (kUnpaddedShift): the buffer between stage k (span l, radix r) and stage k + 1
// (span l r) lays element e = j + p l + q l r (j < l, p < r) at j + p l + q (l r + c), rows of
// l r elements each followed by c padding elements. Stage k then writes its butterfly b = j + q l
// at one base plus p l, and stage k + 1 reads its butterfly b' at b' + c (b' / (l r)) plus
// t (N / r' + c N / (r' l r)) (l r divides N / r'): every offset a compile-time constant, where
// the padded layout e + (e >> shift) costs a shift and two adds an access. The first stage reads
// without padding, and the last writes so (its row is the whole N): the unpadded layout the
// staging copies use. exchange_write_slot and exchange_read_slot are those two maps, the kernel's
// and its CPU test's.
IDGPU_HD int exchange_write_slot(int b, int p, int span, int radix, int padding) {
  return b % span + (span * radix + padding) * (b / span) + p * span;
}
IDGPU_HD int exchange_read_slot(int b, int t, int span, int butterflies, int padding) {
  return b + padding * (b / span) + t * (butterflies + padding * (butterflies / span));
}
//
// Both sides of an exchange give consecutive lanes consecutive b of one sub-transform (a single
// pass's lanes; a pass over lines interleaves its lines' lanes, which the model leaves out), i.e.
// runs of `run` elements (l for the writes, l r for the reads) whose starts are `stride` = l r + c
// apart. A phase of W = 128 / element bytes lanes (pass_smem_stride) takes as many wavefronts as
// the most lanes on one bank group (address mod W); exchange_wavefronts counts them over the
// aligned phases of the first `count` lanes (a sample: at most the first 16 W of them).
IDGPU_HD constexpr int exchange_wavefronts(int run, int stride, int lanes, int count) {
  int total = 0;
  for (int b0 = 0; b0 < count; b0 += lanes) {
    int on_group[32] = {};
    int most = 0;
    for (int b = b0; b < b0 + lanes && b < count; ++b) {
      const int group = (b % run + (b / run) * stride) % lanes;
      most = ++on_group[group] > most ? on_group[group] : most;
    }
    total += most;
  }
  return total;
}
// The row padding c in [0, W) of the exchange after a stage of span l and radix r, followed by
// one of radix r_next, in a sub-transform of `size`: the fewest wavefronts of its writes and reads
// together, the smallest c among equals. 8 x 5 x 5 x 5 in fp32 gets c = 1, 0, 0: rows of 9 after
// the radix-8 stage, whose stride-8 writes would put 8 lanes of a phase on one bank pair.
IDGPU_HD constexpr int exchange_padding(int span, int radix, int radix_next, int size, int element_bytes) {
  if (element_bytes < 4 || element_bytes > 32) return 0;  // complex elements are 8 or 16 bytes
  const int lanes = 128 / element_bytes;
  const int row = span * radix;
  const int writes = size / radix < 16 * lanes ? size / radix : 16 * lanes;
  const int reads = size / radix_next < 16 * lanes ? size / radix_next : 16 * lanes;
  int best = 0;
  int best_cost = 0;
  for (int c = 0; c < lanes; ++c) {
    const int cost = exchange_wavefronts(span, row + c, lanes, writes) + exchange_wavefronts(row, row + c, lanes, reads);
    if (c == 0 || cost < best_cost) {
      best = c;
      best_cost = cost;
    }
  }
  return best;
}
// The shared-memory elements a sub-transform of a fixed sequence takes: the largest exchange,
// N + c (N / (l r) - 1) (its last row needs no padding after it).
IDGPU_HD constexpr int fixed_sequence_extent(const int* radices, int stages, int element_bytes) {
  int size = 1;
  for (int st = 0; st < stages; ++st) size *= radices[st];
  int extent = size;
  int span = 1;
  for (int st = 0; st + 1 < stages; ++st) {
    const int row = span * radices[st];
    const int c = exchange_padding(span, radices[st], radices[st + 1], size, element_bytes);
    const int needed = size + c * (size / row - 1);
    extent = needed > extent ? needed : extent;
    span = row;
  }
  return extent;
}

}  // namespace idgpu::fft
