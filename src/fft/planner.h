// The pass planner of the native 1D complex-to-complex FFT: turns a length n into the global-memory
// passes of a multi-stage Index-Digit / Stockham FFT, each pass one kernel launch.
//
// The algorithm is the multi-stage strategy of "Solving Large Problem Sizes of Index-Digit
// Algorithms on GPU: FFT and Tridiagonal System Solvers" (Dieguez et al.): a transform that fits
// one block's shared memory runs in one kernel; a larger one is split into as few kernels as
// possible, each kernel doing a block of consecutive Stockham stages in shared memory and the
// launch boundary acting as the global barrier. Mixed radices (2^a 3^b 5^c 7^d 11^e 13^f) and the
// per-pass sizing follow "Auto-tuning of Fast Fourier Transform on Graphics Processors"
// (Dotsenko et al.): one pass = read, global twiddle, a block of sub-FFTs done as register
// butterflies exchanged through shared memory, write.
//
// Pass mapping (the (p, s, l) of the paper, generalised to mixed radices). Write n = N_1 N_2 ... N_P
// (pass sizes, in execution order) and L_i = N_1 ... N_{i-1} (L_1 = 1, the length already
// transformed before pass i). Pass i performs n / N_i independent sub-transforms of length N_i:
//
//   sub-transform id = j + L_i k,   j in [0, L_i),  k in [0, n / (L_i N_i))
//   input   element t (t < N_i):  in [id + t (n / N_i)]                     (stride n / N_i)
//   twiddle on load:              exp(sign 2 pi i  t j / (L_i N_i))           (inter-pass, j > 0 only)
//   output  element p (p < N_i):  out[j + L_i N_i k + p L_i]                  (stride L_i)
//
// This is exactly a radix-N_i Stockham autosort stage over the whole array (read stride n / r,
// write stride L, twiddle w_{L r}^{t j}), so the passes need no separate digit reversal and the
// last pass writes natural order. The first pass reads columns (consecutive ids are consecutive
// addresses: coalesced) and writes each sub-transform contiguously; the last pass (L_P N_P = n)
// reads and writes with the same stride n / N_P. Inside a pass, the length-N_i sub-transform is
// itself a sequence of Stockham stages with the pass's radices, ping-ponging between two
// shared-memory buffers. Batches are contiguous: transform b starts at b n.
//
// Sizing rules (Dieguez et al., premise 1: minimise the number of kernels):
//  - A pass keeps its sub-transforms in shared memory, one padded buffer each (see
//    fft/stockham_index.h): every stage reads its butterflies' inputs into registers, the block
//    synchronises, and the outputs are written back in place. A length N fits a block when its
//    padded buffer fits the shared memory and its threads the block (below); fp32 goes to 2^14
//    in one pass, fp64 to 2^13.
//  - The number of passes is the smallest P for which n factors into P sizes that all fit; among
//    those factorizations the most balanced one is taken (sizes as close to n^(1/P) as possible).
//  - A pass's length is factored into radices, the largest first: the power-of-two part into
//    ceil(a/4) stages of 16, 8, 4 (bits spread evenly, e.g. 2^7 = 16 * 8, 2^9 = 8 * 8 * 8), then
//    one stage per factor 13, 11, 7, 5, 3, pairs of 3 taken as one stage of 9.
//  - A thread keeps kMaxElementsPerThread (16) elements: floor(16 / r) butterflies of a radix-r
//    stage (one for the odd radices from 7). threads_per_transform is the fewest threads that
//    cover every stage that way (N / 16 for powers of two); the kernels allow 1024 threads per
//    block in fp32, 512 in fp64. A single pass of a fixed sequence that needs more than that
//    widens the stages that need it to more butterflies a thread (FftPass::widened_limit); such a
//    pass is not planned as an axis of a multi-dimensional transform (not measured).
//  - transforms_per_block T: a single pass takes as many transforms as make a block of about 256
//    threads. Other passes read (and, after the first, write) rows of T consecutive elements, so
//    T divides S (and L): the largest such T with at most 512 threads, half the shared memory
//    (two blocks per SM) and 128-byte rows; in fp32, 4 lines (32 bytes) where that T is 5-7
//    lines (rows straddling 32-byte sectors) and 4 divides S; where that leaves rows shorter than
//    one 32-byte sector, the largest T up to one sector within the full block and shared memory.
//    Where no
//    divisor of S gives rows of 64 bytes (an odd S such as a real plan's n / 2 + 1 columns, or
//    PyTorch's 129 lines), an axis pass takes T a power of two (128-byte rows or 256 threads)
//    whose blocks may straddle two transforms' lines (PassShape::straddles: S = 129 gets rows
//    of 16 lines); other passes the smallest larger divisor that fits the block.
//  - Run-time kernels (DeviceLimits::runtime_sequences, fft/runtime_kernels.h): a mixed-radix
//    pass whose radices no compiled fixed-sequence kernel has is sized as if one were compiled
//    (row layout, widened single passes) and runs on that kernel compiled at run time with NVRTC;
//    the solver plans again without them while they are not loaded. A 1D plan's single
//    mixed-radix pass of at most 64 (fp32) / 32 (fp64) points takes one transform a thread
//    instead, on a run-time kernel even where a compiled sequence has its radices
//    (DeviceLimits::thread_transforms, the thread layout of fft/stockham_index.h).
//  - Cluster plans (sm_90 on; fft/stockham_index.h): powers of two 2^14..2^16 (a real plan's
//    half also 2^17, 16 blocks of 512 threads) are planned as two passes NA x NB that one kernel runs, a thread-block cluster per transform exchanging the
//    intermediate through distributed shared memory. Device memory then sees one read and one
//    write, as a single pass, with four or two blocks per SM where a single 2^14 pass (fp32)
//    held one; the passes stay valid for the host executor and describe the same arithmetic.
//    Tried and dropped for the two-pass powers of two above the fused range: four passes whose
//    pairs ran as cluster kernels of 16 (fp32) / 8 (fp64) consecutive sub-transforms, so that
//    every access is a 128-byte row where a pass of 2^11..2^13 points per block reads rows of
//    16-32 bytes. On an H100 (2^26 points per call, fp32 2^22..2^26) they ran at 0.17-0.23 of
//    copy bandwidth against the vendor's 0.27-0.40 and the two passes' 0.21-0.36: each kernel
//    stalled on its exchange (lanes across sub-transforms store 8 bytes each into different
//    rows of distributed shared memory), the cluster barriers and the load/store queue (LG
//    throttle). Even with the exchange's stores made lane-contiguous (wrong values, timing
//    only), a relaxed first barrier and rows of 64 bytes in 256-thread blocks, they reached
//    0.83-0.91x the vendor at fp32 2^22..2^24, 1.16x and 1.07x at 2^25 and 2^26, 0.73-0.80x
//    in fp64: one such kernel moves data at about half of copy bandwidth.
//  - Cluster column passes (sm_90 on; fft/stockham_index.h, plan_cluster_columns): a pass
//    of 2^11..2^13 points over lines (a two-pass plan's first and last pass, an outer axis)
//    holds 1-4 lines a block (16-32-byte rows, one block of 1024 threads per SM). It runs
//    instead as the cluster kernel over 16 (fp32) or 8 (fp64) lines a cluster (128-byte rows),
//    each line's transform split over the cluster's blocks as a cluster plan's; a first pass (each line's
//    output contiguous) splits N / 16 x 16 and stages its outputs into runs of 16-32. Measured
//    on an H100 in one build against IDGPU_FFT_CLUSTER_COLUMNS=0, 2^26 points a call:
//     - last passes and outer axes alone, two runs: C2C 2^22..2^26 from 0.90, 0.84, 0.85, 0.98,
//       0.80x the vendor to 0.93-0.94, 0.87, 0.91, 1.05-1.06, 1.01-1.03x; 2048^2 0.97 -> 1.02x,
//       4096^2 0.94-0.95 -> 1.06x, 8192^2 0.85 -> 1.17-1.18x. Rows of 8 lines (clusters of 8
//       blocks) tied with 16 (0.90-1.19x); 32 lines (blocks of 512-1024 threads) lost (8192^2
//       1.04x, 2^26 0.94x);
//     - the first passes too, three runs: 2^22..2^26 0.99, 0.99-1.00, 1.02-1.03, 1.22,
//       1.15-1.18x (0.40-0.31 of copy bandwidth). A first version laid the exchange rows out
//       rows-innermost, so that stage B's lanes (rows fastest) stored their runs straight to
//       device memory; stage A's stores into distributed shared memory then scattered (a lane a
//       line, 257 elements apart): 0.68-0.92x. The exchange as the last pass's (a warp's stores
//       one contiguous run) and the outputs staged through the block's own shared memory gave
//       the figures above;
//     - fp64 (8 lines, each twiddle from its own double sincospi), three runs: Z2Z 2^21..2^25
//       from 0.82, 0.84, 0.91, 0.88, 0.78x to 0.86-0.87, 0.91, 1.08-1.09, 1.06-1.07,
//       0.99-1.00x (2^21's first pass of 2^10 stays a pass kernel's); 2048^2 0.95 -> 0.98x,
//       4096^2 1.17 -> 1.24-1.25x, 8192 x 4096 0.87 -> 1.18-1.20x;
//     - two-pass real plans (plan_real, halves from 2^22), the paired pass with its real step
//       (real cluster column passes in fft/stockham_index.h), three runs at 2^26 / 2^25 reals:
//       R2C 2^23..2^27 from 0.59-0.89x to 1.16-1.33x, C2R 0.77-0.93x to 1.07-1.24x, D2Z
//       2^23..2^26 0.82-0.88x to 1.08-1.20x, Z2D 2^23..2^25 0.87-0.89x to 1.02-1.16x (0.24-0.34 of copy
//       bandwidth, the vendor's 0.20-0.28);
//     - an R2C plane's outer axis over its n / 2 + 1 lines, line n / 2 packed into line 0 (packed
//       cluster column passes in fft/stockham_index.h), three runs: R2C 2048^2, 4096^2, 8192^2
//       from 0.93, 0.63, 0.56x to 1.01-1.02, 0.99-1.00, 0.99x; D2Z 2048^2 0.95 -> 0.95x, 4096^2
//       0.83 -> 1.08-1.09x. C2R keeps its odd line count: packing its lines 0 and n / 2 is exact
//       only for Hermitian input.
//  - Fused plans (fft/stockham_index.h, FusedSchedule): the other two-pass powers of two, out of
//    place, run both passes in one persistent kernel of fused_threads-thread blocks, so that the
//    intermediate a first pass writes into the output is read back from the L2 cache. Each
//    pass's T is then fused_threads / threads_per_transform.
//  - Fused axes (plan_c2c, plan_real; FusedKind): the two innermost axes of a 2D/3D plan, square
//    powers of two of 128..1024 a side, run in the same kernel, the planes of those axes its
//    transforms: whole rows first (a real plan's real pass), then T adjacent columns of the same
//    plane while the plane is in the L2 (C2R: the columns first). Device memory sees one read
//    and one write for both axes (a 3D plan's outermost axis is a pass of its own).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "fft/descriptor.h"
#include "fft/stockham_index.h"

namespace idgpu::fft {

// What the planner needs to know of a device, passed in (not read from one) so that CPU tests can
// plan for a device they do not have.
struct DeviceLimits {
  std::size_t shared_bytes_per_block = 0;  // dynamic shared memory a block may use (opt-in maximum)
  int max_threads_per_block = 0;
  int registers_per_thread = 0;  // 32-bit registers a thread may use
  bool clusters = false;         // thread-block clusters with distributed shared memory (sm_90 on)
  int multiprocessors = 0;       // SMs; 0 when unknown
  bool fused = false;            // two-pass plans may run as one fused kernel (FftFused)
  // Convolution passes (plan_c2c_any) of Bluestein's only, over a power of two or a mixed length
  // with a compiled kernel (bluestein_mixed_kernel): what the compiled kernels run
  // (kernels/stockham_bluestein.cuh, stockham_bluestein_mixed.cuh). Rader's p - 1 points and the
  // other 2^a 3^b 5^c paddings are then left out. The host executor runs every plan either way.
  bool convolution_powers_of_two = false;
  // The longest power of two (log2) a cluster plan takes: kClusterMaxBits for complex plans; a
  // real plan's half one more (kClusterRealMaxBits, fft/stockham_index.h).
  int cluster_max_bits = kClusterMaxBits;
  // Passes of 2^11..2^13 points over lines may run as cluster column passes (FftPass::cluster): the
  // device has clusters and their kernels (independent of `clusters`, which the native side
  // leaves off for the axes of multi-dimensional plans).
  bool cluster_columns = false;
  // A tuning aid (IDGPU_FFT_COLUMN_LINES): the lines (transforms per block) of every pass over
  // lines that size_pass sizes, where that many fit a block (threads and shared memory) and either
  // divide the lines or, in an axis pass, are a power of two whose blocks may straddle two
  // transforms' lines; 0, or a count that does not fit, keeps the sizing rules' choice.
  int column_lines = 0;
  // An odd real pass over a Bluestein convolution takes two rows a transform (FftPass::real_rows):
  // twice the rows a convolution, but a row's rounding error then follows the larger of its pair
  // (the vendor's follows each row), and a zero row comes back as the other's rounding, not zeros.
  // Off unless asked for (IDGPU_FFT_PAIR_REAL_ROWS).
  bool pair_odd_real_rows = false;
  // Mixed-radix passes whose radices no compiled fixed-sequence kernel has (kernels/
  // fixed_radices.h) are planned for one compiled at run time (fft/runtime_kernels.h,
  // FftPass::runtime_kernel): the row-padded layout, and a single pass too long for the block
  // widens its stages, as a compiled sequence's. Off: such passes run the general kernel.
  bool runtime_sequences = false;
  // With runtime_sequences, a single mixed-radix pass (a 1D C2C / Z2Z plan's, no real step)
  // short enough for one thread's registers (kThreadTransformBytes) takes the thread layout
  // (fft/stockham_index.h): one transform a thread, `thread_transforms` threads a block, or the
  // planner's choice where it is 1 (IDGPU_FFT_THREAD_TRANSFORMS); 0: the row layout.
  int thread_transforms = 0;
  // With runtime_sequences, a single mixed-radix pass (a 1D C2C / Z2Z plan's, no real step) on a
  // run-time kernel whose row-layout transform takes more than half the block limit in threads
  // takes the wide layout (FftPass::wide; planner.cpp's wide_cap): about N / E threads a
  // transform, E = wide_elements in fp32 and half of it (at least 4) in fp64; 0 off
  // (IDGPU_FFT_WIDE_ELEMENTS).
  int wide_elements = 0;

  // sm_90 (H100 SXM): 227 KB of shared memory per block, 1024 threads, 255 registers per thread,
  // clusters, 132 SMs, fused plans.
  static DeviceLimits h100() {
    DeviceLimits limits{227 * 1024, 1024, 255, true, 132, true};
    limits.cluster_columns = true;
    return limits;
  }
};

// The real-data step a single pass of a real transform does in shared memory, around its
// complex transform of M = n / 2 points (fft/stockham_index.h, real_step_*):
//  - kPackR2C (R2C, after the transform): the input's n reals read as M complex values
//    z[m] = x[2m] + i x[2m+1], Z = DFT_M(z), and the n / 2 + 1 outputs
//    X[k] = (Z[k] + conj Z[M-k]) / 2 - i w^k (Z[k] - conj Z[M-k]) / 2, w = exp(-2 pi i / n);
//  - kUnpackC2R (C2R, before the transform): the n / 2 + 1 inputs X combined into
//    Z[k] = (X[k] + conj X[M-k]) + i w^-k (X[k] - conj X[M-k]), then z = IDFT_M(Z), whose M
//    complex values are the n reals x[2m] + i x[2m+1] (unnormalised, as cuFFT's).
// One read and one write of the data, as a complex pass of n / 2 points. Odd n (no half-length
// packing): the pass is the complex transform of n points,
//  - kOddR2C: the n reals loaded as (x, 0), the first n / 2 + 1 outputs stored;
//  - kOddC2R: the n / 2 + 1 inputs X loaded with their Hermitian extension X[n-k] = conj X[k]
//    (k >= 1), the real parts of the n outputs stored (X[0]'s imaginary part drops out, as in
//    cuFFT's);
// with the real side's distances in reals (not complex elements).
// An even n whose half takes two passes (plan_real, rank 1) runs the same steps in the pass that
// meets the complex side, with the points paired across the block's columns (stockham_index.h,
// paired_frame): kPairedR2C in the last pass, after its stages (R2C's post-processing on the
// final Z, written as X); kPairedC2R in the first pass, before its stages (C2R's pre-processing
// of X into Z). Their w_n^k (k < n / 2) come from two tables, lo[k mod 2^b] hi[k >> b]
// (b = FftPass::real_lo_bits). Still one read and one write of the data a pass.
enum class RealStep : int { kNone = 0, kPackR2C = 1, kUnpackC2R = 2, kOddR2C = 3, kOddC2R = 4, kPairedR2C = 5, kPairedC2R = 6 };
inline bool paired_real_step(RealStep step) { return step == RealStep::kPairedR2C || step == RealStep::kPairedC2R; }

// Lengths with a prime factor above 13 (plan_c2c_any; the algorithms, tables and index maps in
// fft/convolution.h and fft/convolution_index.h). A pass's DFT of its `size` N points may be done
// in shared memory as a cyclic convolution of `convolution_size` points, whose forward FFT, pointwise
// product with a kernel spectrum and inverse FFT run the pass's `radices` twice (the transform's
// sign, then the opposite), between a load and a store that keep the pass's addressing:
//  - kRader (N prime, N - 1 13-smooth): convolution of N - 1 points; element e loads into slot
//    rader_input_slot and output k stores from rader_output_slot (N + 1 slots);
//  - kBluestein (any N): convolution of M >= 2N - 1 points (2^a 3^b 5^c); the N points loaded
//    times the chirp, slots N .. M - 1 zeroed, the outputs stored times the chirp (M slots).
enum class ConvolutionStep : int { kNone = 0, kRader = 1, kBluestein = 2 };

// A pass's part in a multi-pass Bluestein plan, whose padded length M takes P >= 2 passes: the
// passes of the forward M-point plan (sizes N_1 .. N_P) and of the inverse one (N_P .. N_1),
// the forward last and inverse first passes fused, 2P - 1 passes on M-point transforms:
//  - kChirpLoad: the forward plan's first pass, loading the n input points times the chirp
//    (padded positions n .. M - 1 are zeros, never read);
//  - kForward: a forward pass in between (the transform's sign);
//  - kSpectrum: the forward plan's last pass, its outputs times the kernel spectrum, then the
//    inverse plan's first pass on the same points (opposite sign), written as that pass writes;
//  - kInverse: an inverse pass in between (opposite sign);
//  - kChirpStore: the inverse plan's last pass (opposite sign), storing the n output points times
//    the chirp.
enum class BluesteinStep : int { kNone = 0, kChirpLoad = 1, kForward = 2, kSpectrum = 3, kInverse = 4, kChirpStore = 5 };

// A cluster plan's kernel (fft/stockham_index.h, kernels/stockham_cluster.cuh): the plan's two
// passes (sizes NA, NB) in one launch of batch clusters of 2^rank_bits blocks. A 1D real plan of
// n = 2 M reals (plan_real, M = 2^14..2^17 where the limits allow clusters) is one too: its
// passes are the two-pass real plan's (the real step paired in R2C's last, C2R's first), which
// the kernel runs as its stages with the real step across the cluster's blocks.
// A column pass may run as that kernel over lines too (FftPass::cluster, lines_log2 > 0; cluster
// column passes in fft/stockham_index.h): its N = NA NB points split over the cluster's blocks,
// 2^lines_log2 adjacent lines a cluster.
struct FftCluster {
  int rank_bits = 0;
  int lines_log2 = 0;  // a cluster column pass's lines a cluster; 0 for a cluster plan
  // A cluster column pass that is a first pass (each line's output contiguous), split N / 16 x 16
  // (cluster_first_bits_a in fft/stockham_index.h); stride_b unused (stage B in registers).
  bool contiguous_out = false;
  int stride_a = 0;  // shared-memory elements per stage-A column, padded as a column pass's
  int stride_b = 0;  // per stage-B row
  int threads = 0;   // per block: n / (16 C)
  std::size_t shared_bytes = 0;
};

// One kernel launch of the multi-pass FFT; see the mapping at the top of this file.
struct FftPass {
  long long size = 0;               // N_i: length of each sub-transform
  std::vector<int> radices;         // its Stockham stages inside the block; product == size
  long long span_before = 1;        // L_i: product of the sizes of the earlier passes
  long long sub_transforms = 0;     // n / N_i per transform of the batch
  long long in_stride = 0;          // n / N_i: distance between a sub-transform's input elements
  long long out_stride = 0;         // L_i: distance between its output elements
  int threads_per_transform = 0;
  // Where positive, the cap under which the pass's stages widen: the block limit (512 in fp64)
  // for a single pass of a fixed sequence whose stages need more threads than that at
  // butterflies_per_thread(r), or a wide pass's cap (`wide` below); the pass takes
  // sequence_threads(radices, widened_limit) threads, each stage
  // stage_butterflies_per_thread(r, N / r, threads) butterflies a thread (fft/stockham_index.h;
  // only its fixed kernel, or its WideStages kernel, runs it). 0: butterflies_per_thread(r) a
  // thread in every stage.
  int widened_limit = 0;
  // The wide layout (fft/stockham_index.h): a single pass on a run-time kernel whose threads were
  // sized under the cap widened_limit = wide_thread_cap(N, E) (DeviceLimits::wide_elements), its
  // blocks at most kWideThreads threads.
  bool wide = false;
  // A mixed-radix pass planned for a fixed-sequence kernel compiled at run time
  // (DeviceLimits::runtime_sequences): its layout and threads are a compiled sequence's.
  bool runtime_kernel = false;
  int transforms_per_block = 0;
  int smem_stride = 0;              // shared-memory elements per sub-transform, padded
  // One padding element every 2^smem_shift; kUnpaddedShift: none, a fixed sequence's row layout
  // (fixed_sequence_rows below), smem_stride then at least its extent.
  int smem_shift = 0;
  std::size_t shared_bytes = 0;     // per block: smem_stride x element x transforms_per_block
  long long blocks = 0;             // grid size for the whole batch
  int twiddle_lo_bits = 0;          // inter-pass twiddles w_M^e = lo[e mod 2^bits] hi[e >> bits]
  // What the pass runs over, where it is not the plan's 1D transform (multi-dimensional and
  // strided plans, see plan_c2c): `transforms` transforms of `transform_n` elements (0: the
  // plan's batch and n), the pass an axis pass without inter-pass twiddle (twiddled = false,
  // sub_transforms = span_before = the axis's element stride), and for a single pass the
  // distances between transforms (0: n).
  long long transform_n = 0;
  long long transforms = 0;
  bool twiddled = true;
  long long in_dist = 0;
  long long out_dist = 0;
  // A first pass over lines (sub_transforms > 1, span_before = 1) that writes each sub-transform
  // as a run out_dist apart: the elements between consecutive transforms' runs (0: the runs of
  // every transform follow on, sub_transforms x out_dist).
  long long out_group = 0;
  // A pass over lines whose transforms' inputs are in_group elements apart (0: transform_n), and,
  // after the first pass, whose outputs are out_group apart (0: transform_n): a multi-pass real
  // plan's intermediates (n / 2 + 1 or n / 2 complex elements a transform; execution_pass).
  long long in_group = 0;
  // An axis pass whose blocks of transforms_per_block lines may straddle two transforms
  // (PassShape::straddles in fft/stockham_index.h; size_pass decides).
  bool straddles = false;
  // The axis pass of a fused R2C plane (fuse_passes, FusedKind::kRealForward): its first and
  // last lines, columns 0 and n / 2 of the plane's n / 2 + 1, are real sequences after the
  // rows' R2C, so they run as one complex line a + i b in the lane of line 0
  // (PassShape::nyquist_packed), and the pass's tiles cover n / 2 lines instead of n / 2 + 1:
  // no tile of one line. The line's transform Z splits as A[k] = (Z[k] + conj Z[N-k]) / 2 and
  // B[k] = (Z[k] - conj Z[N-k]) / 2i, the partners through shared memory. Set on FftFused's
  // passes only (a forward pass; C2R pairs measured slower with it, see fuse_passes).
  bool nyquist_packed = false;
  RealStep real_step = RealStep::kNone;
  int real_lo_bits = 0;  // a paired real step's table split (RealStep)
  // An odd real pass over a Bluestein convolution (kOddR2C / kOddC2R with ConvolutionStep::
  // kBluestein) under DeviceLimits::pair_odd_real_rows: the rows paired, rows 2t and 2t + 1 one complex transform t (R2C: z = x_a + i x_b,
  // X_a[k] = (Z[k] + conj Z[n-k]) / 2, X_b[k] = (Z[k] - conj Z[n-k]) / 2i; C2R: Z = X_a + i X_b
  // over the Hermitian extensions, x_a = Re z, x_b = Im z), so that one convolution serves two
  // rows; `transforms` is then ceil(real_rows / 2), and the last transform of an odd count has
  // no second row (zeros in, nothing out). 0: a row a transform.
  long long real_rows = 0;
  // Prime factors above 13 (ConvolutionStep, BluesteinStep above): the pass's convolution, its
  // length (`radices` factor it instead of `size`) and Rader's generator of (Z/N)^*; its part in a
  // multi-pass Bluestein plan, and there the true length n the chirps run over.
  ConvolutionStep convolution = ConvolutionStep::kNone;
  long long convolution_size = 0;
  int rader_generator = 0;
  BluesteinStep bluestein = BluesteinStep::kNone;
  long long chirp_length = 0;
  // A cluster column pass (fft/stockham_index.h): the pass runs as the cluster kernel over
  // lines, the same arithmetic as its stages (the host executor runs it either way); set by
  // the planner on passes of 2^11..2^13 points over lines where the limits allow clusters.
  std::optional<FftCluster> cluster;

  bool has_twiddle() const { return twiddled && span_before > 1; }
};

// The pairs of passes a fused kernel runs (kernels/stockham_fused.cuh):
//  - k1D: a 1D two-pass power of two, out of place (in place its passes run as two launches);
//  - kAxes: a 2D/3D C2C plan's two innermost axes, square powers of two of 128..1024 a side: a
//    single pass over whole rows, then an untwiddled column pass;
//  - kRealForward / kRealInverse: a 2D/3D real plan's real pass and the axis next to it, the
//    plane square as above (R2C: the real pass, then the columns of its n / 2 + 1 outputs; C2R:
//    those columns, then the real pass).
// The multi-dimensional kinds run in place or not; their kernel's transforms are the planes of
// the two axes (every transform's: batch x the outer axes' product of them), and a 3D plan's
// outermost axis is a launch of its own before (C2R) or after them. The real kinds' kernels for
// 128^2, 512^2 and 1024^2 need more registers than the pass kernels' (fused_threads below).

//  - kRealPairedForward / kRealPairedInverse: a two-pass real 1D plan's passes (plan_real), the
//    paired real step in the last (R2C) or first (C2R) pass: k1D's kernel with that pass's tiles
//    taking paired columns; C2R out of place only, R2C in place too (fused_in_place).
enum class FusedKind : int { k1D = 0, kAxes = 1, kRealForward = 2, kRealInverse = 3, kRealPairedForward = 4, kRealPairedInverse = 5 };
// Whether a fused pair runs fused in place too: the multi-dimensional kinds, and a two-pass R2C
// (input -> a temporary array -> input); the other 1D kinds run their passes as two launches in
// place.
inline bool fused_in_place(FusedKind kind) {
  return kind == FusedKind::kAxes || kind == FusedKind::kRealForward || kind == FusedKind::kRealInverse ||
         kind == FusedKind::kRealPairedForward;
}

// A fused pair's kernel: the plan's passes first_pass and first_pass + 1 in one persistent launch
// whose blocks of `threads` threads take the tiles of both passes in FusedSchedule order.
// `passes` are those two passes as that kernel runs them: the same sizes, radices, strides and
// twiddles, with transforms per block (and so shared memory and block counts) chosen so that both
// fill a block of `threads`. A tile is T consecutive sub-transforms of one of the kernel's
// transforms, which has first_count (last_count) of them; its last tile may have fewer. A pass
// with FftPass::nyquist_packed tiles first_count - 1 (last_count - 1) of them.
struct FftFused {
  FusedKind kind = FusedKind::k1D;
  std::size_t first_pass = 0;
  int threads = 0;
  std::size_t shared_bytes = 0;  // the larger of the two passes'
  int first_tiles = 0;           // tiles of the first pass per transform
  int last_tiles = 0;            // of the last pass
  long long first_count = 0;     // sub-transforms of the first pass per transform
  long long last_count = 0;
  long long transforms = 0;      // the kernel's transforms (its schedule's batch)
  long long transform_n = 0;     // elements of each (on the complex side)
  std::vector<FftPass> passes;
};

struct FftPlan {
  Kind kind = Kind::kC2C;  // R2C / C2R: `n` is the innermost axis's real length (plan_real)
  long long n = 0;
  long long batch = 1;
  Precision precision = Precision::kSingle;
  std::size_t element_bytes = 0;
  std::vector<FftPass> passes;
  // The work area the plan asks for: none up to two passes, n * batch elements from three (see
  // pass_buffers). An in-place two-pass execution needs the same, and is served only where the
  // caller's or the plan's work area is there.
  std::size_t work_bytes = 0;
  // Set when the two passes run as one cluster kernel (powers of two whose single pass would
  // leave one block per SM, or that take two passes; on devices with clusters).
  std::optional<FftCluster> cluster;
  // Set when two of the passes may run as one fused kernel (FusedKind).
  std::optional<FftFused> fused;
  // Multi-dimensional plans (plan_c2c, plan_real): every pass is an axis pass or a single pass,
  // whose blocks write only the elements they read, so every pass may run in place: the first
  // reads the input and writes the output, the others run on the output (C2R: plan_buffers).
  // `dims` are the axes, outermost first (rank 1: {n}).
  bool passes_in_place = false;
  std::vector<long long> dims;

  long long pass_transforms(const FftPass& pass) const { return pass.transforms > 0 ? pass.transforms : batch; }

  std::string to_string() const;  // one line per pass, for logs and tests
};

// Either a plan or the reason there is none.
struct FftPlanResult {
  std::optional<FftPlan> plan;
  std::string reason;
};

// Which buffer a pass reads and writes. Only the last pass may run in place (its blocks read and
// write the same elements); every other pass writes a buffer it does not read. Out of place, two
// passes need no scratch (input -> output -> output); in place, or with three passes or more, the
// work area takes the turns the output cannot.
// Plans whose passes all run in place (passes_in_place: multi-dimensional and multi-dimensional
// real ones) have their own turns (plan_buffers).
enum class Buffer { kInput, kOutput, kWork };
struct PassBuffers {
  Buffer from;
  Buffer to;
};
std::vector<PassBuffers> pass_buffers(std::size_t passes, bool in_place);
// The buffer turns of `plan` (passes_in_place plans: input -> output, then output -> output;
// multi-dimensional C2R: input -> input, the last pass input -> output).
std::vector<PassBuffers> plan_buffers(const FftPlan& plan, bool in_place);

// The shared-memory layout of a sub-transform of length `size` (see fft/stockham_index.h): the
// padding shift, and the padded length (the least stride that holds it).
int smem_shift(std::size_t element_bytes);
int smem_stride(long long size, int shift);
// The stride of a pass with `per_block` sub-transforms of `threads` threads each per block: the
// padded length rounded up so that the lanes of one shared-memory wavefront (128 bytes) fall on
// distinct banks, for the kernels' thread layouts (across sub-transforms in a column pass, along
// them in a single pass).
int pass_smem_stride(long long size, int shift, std::size_t element_bytes, long long per_block, long long threads,
                     bool column);
// A pass that a fixed-sequence kernel serves (kernels/fixed_radices.h: its radices one of the
// sequences there, no convolution, Bluestein step or cluster) lays its buffer out as that kernel
// does: no padding shift (kUnpaddedShift), rows padded between its stages, at least
// fixed_sequence_extent elements a sub-transform (fft/stockham_index.h); or, for the complex
// passes of the sequences listed there per precision, the padded layout of the other kernels.
// size_pass plans the row layout where fixed_sequence_rows says so and one sub-transform's buffer
// fits the block; relayout_fixed_pass re-plans a sized pass whose real step changed that answer
// (where its block still fits). fixed_sequence_buffer is the row layout's extent (0 for passes of
// no fixed sequence), pass_buffer_elements the elements a sub-transform's buffer holds before its
// stride is rounded (the extent for a pass with that layout, its size otherwise).
long long fixed_sequence_buffer(const FftPass& pass, std::size_t element_bytes);
bool fixed_sequence_rows(const FftPass& pass, std::size_t element_bytes);
void relayout_fixed_pass(FftPass* pass, std::size_t element_bytes, std::size_t shared_bytes);
long long pass_buffer_elements(const FftPass& pass, std::size_t element_bytes);

// The index shape of one of the plan's passes (fft/stockham_index.h).
PassShape pass_shape(const FftPlan& plan, const FftPass& pass);

// The single pass of `size` points whose stages a cluster kernel's stage A or B runs (its stage
// twiddle table is that pass's): the stages of a cluster column pass of NA NB points.
FftPass cluster_stage_pass(long long size);
// Sets FftPass::cluster on the passes of `plan` that run as cluster column passes under
// `limits` (fft/stockham_index.h): 2^kClusterColumnMinBits..2^kClusterColumnMaxBits
// points, column in, and column out (sub = span: a two-pass plan's last pass, an axis pass) or
// each line's output contiguous (span = 1, the default distances: a two-pass plan's first
// pass), T lines (cluster_column_lines_log2) dividing S, not straddling, no real or convolution
// step, not in a fused pair, the cluster's buffers within a block and its grid within 2^31 - 1
// blocks.
void plan_cluster_columns(FftPlan* plan, const DeviceLimits& limits);

// Threads per block of a fused plan's kernel: 512 in fp32 and 256 in fp64, so that both leave
// about 70 KB of shared memory per block (64 / 128 registers per thread allow two blocks per SM).
// The largest batch fused: its kernel keeps a 4-byte counter per transform with the plan. The
// largest transform fused: its intermediate must stay in the L2 cache (50 MB on an H100) for a
// few transforms at once; on an H100, 2^22 fp32 (32 MB) and above measured slower fused than as
// two launches.
// A real pair (FusedKind::kRealForward / kRealInverse) on a plane of other than 256 a side takes
// half as many threads a block: its kernel holds more registers (96 fp32, 168 fp64;
// kernels/stockham_fused.cuh, fused_registers), where 64 / 128 spilled 400-850 B a thread. On an
// H100 that lifted them from 0.67-0.85x the vendor to 0.71-0.95x (fp32) and 0.75-1.27x (fp64);
// the 256^2 pair, which does not spill, measured faster with the full block (fp32 R2C 1.11x
// against 1.02x).
inline constexpr bool fused_real_wide_registers(long long plane_side) { return plane_side != 256; }
inline constexpr int fused_threads(std::size_t element_bytes, FusedKind kind = FusedKind::k1D,
                                   long long plane_side = 0) {
  const bool real = kind == FusedKind::kRealForward || kind == FusedKind::kRealInverse;
  return (element_bytes > 8 ? 256 : 512) / (real && fused_real_wide_registers(plane_side) ? 2 : 1);
}
inline constexpr long long kFusedMaxBatch = 1LL << 20;
inline constexpr std::size_t kFusedMaxBytes = std::size_t{16} << 20;
// The planes of a multi-dimensional plan's fused axes whose kernels are compiled
// (kernels/stockham_fused.cuh): square, 2^7 .. 2^10 points a side (at most kFusedMaxBytes).
// 2048^2 fp32 (32 MB) measured slower fused than as two launches on an H100 (0.90x the vendor
// against 0.96x; the columns' tiles write rows of 32 bytes, and two planes in flight overflow
// the L2).
inline constexpr int kFusedAxesMinLog = 7;
inline constexpr int kFusedAxesMaxLog = 10;

// The lag D of a fused plan's schedule (FusedSchedule) for a kernel of `resident_blocks` blocks
// at once on a device with `l2_bytes` of L2 cache, in [1, the kernel's transforms]:
//  - long enough that a transform's first-pass tiles are done when its last-pass tiles are handed
//    out: between the two, D (a + b) - b tickets (a, b tiles per transform) should cover the
//    resident blocks;
//  - short enough that the intermediates in flight, about D transforms, keep to a quarter of the
//    L2. Measured on an H100 (50 MB L2), fp32, lags 1..9: 2^17 best at 9, 2^18 at 5, 2^19 at 3,
//    2^20 at 1 (1.27x, 1.19x, 1.15x, 1.07x the vendor); fp64 2^17 at 4-5, 2^19 and 2^20 at 1.
int fused_lag(const FftPlan& plan, long long resident_blocks, std::size_t l2_bytes);

// Most threads per block the kernels are built for, by element size.
int kernel_max_threads(std::size_t element_bytes);

// The radices the planner may use, largest first.
inline constexpr int kFftRadices[] = {16, 13, 11, 9, 8, 7, 5, 4, 3, 2};

// Bytes of one complex element of the precision; 0 for precisions the native FFT does not serve.
std::size_t complex_element_bytes(Precision precision);

// Whether every prime factor of n (n >= 1) is at most 13: the lengths plan_c2c_1d plans.
bool smooth13(long long n);

// Plans `batch` contiguous complex-to-complex transforms of length n. No plan (with the reason)
// when n < 2, n has a prime factor other than 2, 3, 5, 7, 11, 13, the precision is not fp32/fp64,
// a radix does not fit the register budget, or the limits cannot hold even one radix.
FftPlanResult plan_c2c_1d(long long n, long long batch, Precision precision, const DeviceLimits& limits);

// Plans `batch` contiguous complex-to-complex transforms of rank 1..3 (dims outermost first, as
// cuFFT's n[]; the innermost contiguous). Rank 1 is plan_c2c_1d. Rank 2 and 3 take one pass per
// axis, innermost first: the innermost axis a batch of single passes (dims[r-1] contiguous
// points each), every outer axis k an axis pass of length dims[k] whose elements are
// S = dims[k+1] ... dims[r-1] apart, over S adjacent lines at once (rows of T lines per block:
// whole 32-128-byte rows, no transposition), each pass one read and one write of the data. No
// plan (with the reason) where an axis does not fit one pass.
FftPlanResult plan_c2c(int rank, const long long* dims, long long batch, Precision precision,
                       const DeviceLimits& limits);

// Plans `batch` 1D complex-to-complex transforms of length n in the advanced data layout (element
// e of transform b at input[b idist + e istride], output[b odist + e ostride]) where it is one
// the pass kernels index, n in one pass:
//  - unit strides, distances >= n (transforms padded or spaced apart): plan_c2c_1d's single pass
//    with those distances (in_dist, out_dist);
//  - input stride S >= 2, distance 1, S transforms (a transform along the outer axis of an
//    [n][S] array: PyTorch's FFT along a non-last dimension, CuPy's axes=): plan_c2c's axis pass
//    over S adjacent lines, rows of T lines a block, no transposition; its output either in the
//    same layout (stride S, distance 1) or each transform contiguous (stride 1, distance >= n),
//    the addressing of a multi-pass plan's first pass.
// No plan (with the reason) for any other layout, for n taking more than one pass, or for a
// side whose extent passes 2^31 elements.
FftPlanResult plan_c2c_strided(long long n, long long batch, long long istride, long long idist, long long ostride,
                               long long odist, Precision precision, const DeviceLimits& limits);

// Plans the S = `lines` transforms of rank 1..3 (dims outermost first) along the outer axes of an
// [dims][S] array: element i of transform s at s + S i (i the element's row-major index), as
// PyTorch's fftn over leading dimensions and CuPy's axes= pass them (cuFFT's advanced layout with
// stride S and distance 1). Every axis is an axis pass over adjacent lines, rows of T lines a
// block, no transposition, each pass one read and one write; passes after the first run in place
// on the output. The output either in the same layout, or (contiguous_out) each transform
// contiguous, `odist` apart: the first pass then stores each line's run along the innermost axis
// there (FftPass::out_group), and the outer axes run as plan_c2c's on a batch of S; for rank 2
// and 3 odist must be the transform's size. No plan (with the reason) where an axis takes more
// than one pass or a side passes 2^31 elements.
FftPlanResult plan_c2c_lines(int rank, const long long* dims, long long lines, bool contiguous_out, long long odist,
                             Precision precision, const DeviceLimits& limits);

// The C2C/Z2Z advanced layouts the native passes serve, from a descriptor: rank 1 as
// plan_c2c_strided, rank 2 and 3 as plan_c2c_lines (the input [dims][S] with S transforms at
// distance 1; the output the same, or each transform contiguous). No plan (with the reason)
// for any other layout.
FftPlanResult plan_c2c_layout(const Descriptor& descriptor, const DeviceLimits& limits);
// Whether the descriptor's layout is such lines (the batch S >= 2 transforms at distance 1 of a
// [dims][S] input), and whether the output is each transform contiguous rather than the same
// layout. The output's distance is not checked here (plan_c2c_lines does).
bool lines_layout(const Descriptor& descriptor, bool* contiguous_out);

// Plans `batch` real-to-complex (kind R2C) or complex-to-real (C2R) transforms of rank 1..3 in
// cuFFT's default layout (dims outermost first; the innermost, of length n, the real one):
//  - the real pass: every row of n reals of every transform (rows = batch x the outer axes'
//    product) as one complex transform of n / 2 points with the real step (RealStep) in shared
//    memory (odd n: of n points, kOddR2C / kOddC2R). Distances between rows, in complex elements
//    of the pass (half the real distance): the complex side n / 2 + 1, the real side n / 2 out of
//    place and n / 2 + 1 in place (cuFFT's padded layout); odd n in reals, n and n + 1; set per
//    execution by real_pass_for;
//  - rank 2 and 3: an axis pass per outer axis (as plan_c2c's) on the complex side
//    [outer axes][n / 2 + 1], in place: R2C runs the real pass first (input -> output) and the
//    axes on the output; C2R runs the axes first, in place on its input (so that, as cuFFT's
//    multi-dimensional C2R, it overwrites its input out of place too), then the real pass into
//    the output. One read and one write of the data a pass; no work area.
//  - rank 1, even n whose half takes two passes, or whose half is a cluster length where the
//    limits allow clusters (then one cluster kernel runs both passes: FftCluster): the two
//    passes of the complex transform of n / 2 points (plan_c2c_1d's split; in fp64 fused where
//    it fuses and no cluster serves it, as
//    FusedKind::kRealPairedForward / kRealPairedInverse), the real step paired into the one
//    that meets the complex side (RealStep::kPairedR2C in the last pass, kPairedC2R in the
//    first); the intermediate out of place in the output (R2C: n / 2 + 1 complex values a
//    transform, its last pass then in place there; C2R: the n reals), in place in a temporary
//    array of n / 2 a transform from the stream-ordered scratch pool (execution_pass). Two reads
//    and two writes of the data (a cluster plan: one of each, no intermediate), no work area.
//    Passes of 2^11..2^13 points (halves from 2^22) are cluster column passes, the paired one
//    with its real step (plan_cluster_columns once the step is set).
//    (An R2C intermediate in the scratch pool out of
//    place too, n / 2 a transform so that every row sits on the 32-byte sectors, measured
//    slower on an H200: R2C 2^18..2^26 0.53-0.89x against C2R's 0.74-1.06x there, where on an
//    H100 with the intermediate in the output R2C ran at 0.83-1.04x. Its last pass then writes
//    the output's rows, off the sectors in every other transform, without having read them.)
// No plan (with the reason) for n < 3, where the real pass's length (n / 2, odd n: n) or an outer
// axis does not fit one pass (rank 1, even n: two passes), or where a paired pass's columns are
// odd.
FftPlanResult plan_real(Kind kind, int rank, const long long* dims, long long batch, Precision precision,
                        const DeviceLimits& limits);
// Rank 1: plan_real(kind, 1, &n, ...).
FftPlanResult plan_real_1d(Kind kind, long long n, long long batch, Precision precision, const DeviceLimits& limits);

// Why a plan's launches do not fit a grid (at most 2^31 - 1 blocks, in x), empty where they do:
// a pass over many short lines (an axis pass of few lines a block over a large batch) can pass it
// below the sizes the kernels index.
std::string grid_refusal(const FftPlan& plan);

// Pass `index` of `plan` with the distances of an execution in place or not: a real plan's real
// pass as real_pass_for makes it, a multi-pass real plan's passes with the groups of their
// intermediates (R2C: the real input n / 2 complex values a transform, n / 2 + 1 in place, into
// an intermediate of n / 2 + 1 in the output, or of n / 2 in a temporary array in place, then
// into n / 2 + 1; C2R: n / 2 + 1 into n / 2, then n / 2 into n / 2, or n / 2 + 1 in place),
// every other pass as planned.
FftPass execution_pass(const FftPlan& plan, std::size_t index, bool in_place);
// The same for `pass`, the plan's pass `index` as some kernel runs it (a fused one's).
FftPass execution_pass(const FftPlan& plan, std::size_t index, FftPass pass, bool in_place);

// The index of a real plan's real pass, and that pass with its distances for an execution in
// place or not.
std::size_t real_pass_index(const FftPlan& plan);
FftPass real_pass_for(const FftPlan& plan, bool in_place);
// The same for `pass`, the plan's real pass as some kernel runs it (a fused one's).
FftPass real_pass_for(const FftPlan& plan, FftPass pass, bool in_place);

// Plans `batch` contiguous complex-to-complex transforms of any length n >= 2 (fp32, fp64):
//  - n 13-smooth: plan_c2c_1d's plan;
//  - otherwise the cheaper of two plans, counted in passes over device memory (each pass one
//    read and one write of the data; fft/planner.h premise 1), equal counts going to the first:
//     (a) "mixed": the 13-smooth part of n in plan_c2c_1d's fewest passes, and one pass per prime
//         factor p > 13 (with multiplicity), a Rader pass where p - 1 is 13-smooth and p + 1
//         slots fit a block, else a one-pass Bluestein convolution where one fits. It
//         transforms n points exactly, where Bluestein transforms M >= 2n - 1 points twice.
//     (b) Bluestein over the whole length: one pass (ConvolutionStep::kBluestein) where its M
//         fits a block, else the 2P - 1 passes of BluesteinStep over M-point transforms, with a
//         work area of two M x batch arrays.
//    M is the 2^a 3^b 5^c length >= 2n - 1 (up to the next power of two) with the fewest passes,
//    then the fewest stage points M x stages (each stage reads and writes M elements of shared
//    memory). This rule is untimed: a measured table is to replace it. Under
//    limits.convolution_powers_of_two, M is the next power of two or a mixed length with a
//    compiled one-pass kernel (bluestein_mixed_kernel), and no pass is Rader's.
// The plan's `reason` says which was chosen and what the other would have taken. No plan (with
// the reason) for the cases plan_c2c_1d declines other than the prime factors, where no candidate
// fits the limits, or above kMaxAnyLength.
FftPlanResult plan_c2c_any(long long n, long long batch, Precision precision, const DeviceLimits& limits);
// Whether a one-pass Bluestein kernel is compiled for the mixed convolution length m in the
// precision of `element_bytes` (8: fp32, 16: fp64; IDGPU_FFT_BLUESTEIN_MIXED_F32 / _F64 in
// fft/kernels/fixed_radices.h).
bool bluestein_mixed_kernel(long long m, std::size_t element_bytes);
// Its longest length with a prime factor above 13 (factored by trial division; Bluestein's
// 2n - 1 and its tables' exponents far from overflow).
inline constexpr long long kMaxAnyLength = 1LL << 40;

// The Bluestein padded length of a plan (the passes' transform length), 0 where it is none.
long long bluestein_padded_length(const FftPlan& plan);
// Whether a multi-pass Bluestein plan keeps one M-point intermediate a transform rather than two:
// its three passes (M in two passes a side) run the spectrum pass in place and the last pass on
// its output as fft/convolution_index.h's turned_input_position lays it out; longer plans
// alternate between the work area's two halves.
bool bluestein_one_buffer(const FftPlan& plan);

// The sign a pass of a plan runs with, for a transform of sign `sign`: the opposite for the
// inverse half of a multi-pass Bluestein plan (kInverse, kChirpStore).
int pass_sign(const FftPass& pass, int sign);

// Which buffer each pass reads and writes, and where in it (elements from its start). As
// plan_buffers, except for multi-pass Bluestein plans: their M-point intermediates fit neither
// the n-point input nor output, so the passes after the first read, and those before the last
// write, the two halves of the work area (M x batch elements each) in turn.
struct PassTurn {
  Buffer from;
  Buffer to;
  std::size_t from_offset = 0;
  std::size_t to_offset = 0;
};
std::vector<PassTurn> plan_turns(const FftPlan& plan, bool in_place);

}  // namespace idgpu::fft
