#include "tridiag/tuning.h"

namespace idgpu::tridiag {
namespace {

// One row: on devices of the classes it was measured on (core/device_class.h), for this layout and
// algorithm, with an element of `element_bytes` (real or complex), the native solver wins for m
// in [min_m, max_m] when min_batch <= batch <= max_batch.
struct TuningRow {
  MeasuredClasses measured_on;
  Layout layout;
  int algo;
  int element_bytes;  // 0: any
  bool complex;
  int min_m;
  int max_m;
  long long min_batch;  // batched layouts; gtsv2 / gtsv2_nopivot rows (batch 0) use max_n instead
  int max_n;            // gtsv2 / gtsv2_nopivot: the most right-hand sides measured (0: any)
  const char* evidence;  // the measurement that chose this row
  long long max_batch = 0;  // batched layouts: the largest batch measured to win (0: any)
};
// Rows that hold on both sm_90 classes measured (H100 SXM 3352 GB/s, H200 4814 GB/s); rows where
// the two disagree name the one device.
constexpr MeasuredClasses kHopper = kH100 | kH200;
constexpr int kMaxRows = 0x7fffffff;  // the API's int m; measured up to 2^26

// Measured with idgpu-bench (IDGPU_POLICY=native, 2^24 unknowns per call, median of 10 runs,
// inputs rotated past the L2) on an NVIDIA H100 80GB HBM3 (copy 2980 GB/s), CUDA 13.0, cuSPARSE
// 12.6, with the tiled partition solver (tiles reduced to one row each, 16-byte chunk loads, the
// cyclic reductions multiplying by published reciprocals; one cooperative launch where every tile
// is resident, one streamed launch where each system's tiles are); speedup over the vendor, and the
// native side's fraction of copy bandwidth:
//   gtsv2StridedBatch:
//     f32 m=32..1024 4.1-6.6x (0.90-0.96), m=4096 5.9x (0.89), m=65536 5.1x (0.65, streamed;
//       three launches 4.0x, 0.51)
//     f64 m=32..1024 3.5-5.7x (0.97-0.99), m=4096 4.1x (0.73), m=65536 4.1x (0.60, streamed;
//       three launches 3.8x, 0.55)
//     c32 m=32..1024 3.3-4.7x (0.79-0.96), m=4096 3.6x (0.64), m=65536 3.7x (0.54)
//     c64 m=32..1024 3.1-3.9x (0.63-0.95), m=4096 3.4x (0.56, streamed; 3.0x, 0.51), m=65536 3.4x (0.52)
//     batch 1000, f32 m=32: 1.62x
//   gtsvInterleavedBatch algo 0:
//     f32 m=32..512 1.8-5.1x (0.77-0.91), m=1000/1024 8.2x/8.4x (0.63/0.68, a cluster of 8
//       blocks; one block 0.57/0.64), m=4096 25.3x (0.57 streamed; three launches 22.9x, 0.49),
//       m=65536 344x (0.48)
//     f64 m=32..512 1.8-3.1x (0.80-0.99), m=1000/1024 4.7x/4.6x (0.62/0.67; one block
//       0.59/0.62), m=4096 15.7x (0.645 streamed; 13.0x, 0.52), m=65536 200x (0.50)
//     c32 m=32..512 1.7-2.7x (0.70-0.99), m=1000/1024 4.0x/3.9x (0.53/0.57), m=4096 13.5x (0.55
//       streamed; 12.9x, 0.51), m=65536 194x (0.49)
//     c64 m=32..512 1.6-1.8x (0.69-1.00), m=1000/1024 2.3x/2.5x (0.52/0.58), m=4096 7.5x (0.54
//       streamed; 7.0x, 0.50), m=65536 101x (0.47)
//     batch 1000, f32 m=32: 5.0x
//   Both at 2^20 unknowns per call (batch 16..32768, earlier solver): native wins every case.
//   algos 1, 2 (thread-per-system LU / Givens QR): see the rows below.
//   gtsv2_nopivot, n=1, one system (2^16 in every precision and f32 2^20 as one cooperative
//   launch, the others in three):
//     f32 m=1000/2^16/2^20/2^24/2^26 2.33x/5.25x/5.34x/3.98x/4.14x (0.49 at 2^24, 0.56 at 2^26)
//     f64 2.30x/5.47x/3.39x/3.66x/3.70x, c32 1.71x/4.76x/3.06x/3.59x/3.77x,
//     c64 1.55x/4.32x/2.59x/3.19x/3.29x; m < 1000 not measured (vendor).
//     Before the reciprocals (dividing every coupling, which takes IEEE division's slow path as
//     the couplings shrink to zero): f32 1.61x/3.72x/4.08x/3.77x/4.04x; before the one launch
//     too, f32 2^16/2^20 2.24x/2.87x.
//   gtsv2_nopivot, n=16 (the columns kernel: each block eliminates the matrix once for its
//     columns, chunks of at most 8 rows), m=1000/2^20: f32 10.7x/6.0x, f64 10.5x/4.5x,
//     c32 8.6x/4.4x, c64 8.0x/3.5x; n > 16 not measured (vendor).
//   gtsv2_nopivot's other native solvers (IDGPU_TRIDIAG_SOLVER; same grid, H100, speedup over the
//     vendor, n=1, m=1000/2^16/2^20/2^24/2^26; n=16 at m=1000/2^20):
//     multi-stage Wang-Mou: f32 1.60x/2.32x/2.28x/2.22x/2.24x (0.27 of copy at 2^24), n=16 7.5x/3.9x;
//       f64 1.77x/2.72x/2.18x/2.61x/2.69x (0.38), n=16 4.0x/3.2x; c32 1.26x/2.15x/1.63x/1.80x/1.84x;
//       c64 0.71x/2.22x/1.57x/1.68x/1.71x. Slower than the partition solver everywhere but f64 at
//       m=1000 and 2^16 (0.0086 / 0.0212 ms against 0.0095 / 0.0231, separate runs): not enough to
//       route by.
//     k-step tiled PCR + p-Thomas: f32 0.41x/0.86x/0.53x/0.31x/0.28x (0.04 of copy at 2^24);
//       f64, c32, c64 0.36-0.54x except m=2^16 (1.22-1.44x); n=16 0.48-0.62x. p-Thomas has 2^13-2^15
//       threads for the whole GPU and the two PCR passes move about 25 arrays' worth.
//     So the partition solver stays the only one routed to.
//   gtsv2 (pivoting): chunks of 8 rows with two separators each (the better-conditioned of two
//     windows), one refinement step where a pivot was small, its residual in twice the working
//     precision. n=1, m=1000/2^16/2^20/2^24/2^26; dominant matrices (no refinement runs) and random
//     non-dominant ones ("nd", refined):
//       f32 2.66x/1.05x/0.89x/1.81x/2.25x (0.22/0.27 of copy at 2^24/2^26, 5 arrays counted),
//         nd 1.45x/0.65x/0.56x/0.97x/1.32x
//       f64 2.06x/0.82x/0.90x/2.51x/2.98x, nd 1.22x/0.53x/0.61x/1.46x/1.92x
//       c32 2.67x/0.90x/0.94x/2.65x/3.14x, nd 1.42x/0.54x/0.60x/1.36x/1.56x
//       c64 2.43x/0.78x/1.96x/4.89x (no 2^26: the vendor's buffer size overflows),
//         nd 1.28x/0.48x/1.37x/2.69x
//     So f32 goes native from 2^26 only (nd 2^24 0.97x). With the residual in working precision
//     the refined solves were 10-25% faster at 2^24-2^26 (f32 nd 1.09x/1.53x), but the forward
//     error of 40 of the 435 tests/gpu [pivot] cases exceeded twice the vendor's (up to 181x,
//     kappa 8e2-9e8); now 2 do, both with kappa eps > 30, where neither side has a correct digit.
//     n=16 (dominant) m=1000/2^20: f32 1.88x/1.82x, f64 1.51x/1.42x, c32 1.74x/1.50x, c64 1.43x/1.63x;
//     non-dominant n=16 not measured (vendor). Between 2^16 and 2^20 the reduced levels' launches
//     and the one-block top levels (about 50 us each, twice when refining) cost more than the
//     vendor's whole solve; one cooperative launch for every level was slower still (see
//     pivoting.cu). The accuracy: tests/gpu [pivot], every kind of matrix within twice the
//     vendor's backward and forward error. H200: see the rows.
// The same grid on an NVIDIA H200 (copy 4198 GB/s): native wins every case, strided 2.4-7.2x
// (0.38-0.91), algo 0 1.2-449x (0.40-0.99; remeasured with the cluster launch, 1.2-447x,
// 0.40-0.98: f32/f64 m=1000/1024 0.50/0.53 and 0.51/0.55 against 0.44/0.48 and 0.45/0.47 in one
// block; the streamed interleaved launch loses there and is not used, see partition.cu), gtsv2_nopivot n=1 1.50-5.23x (f32 2^20 5.23x, 2^24
// 0.44 of copy bandwidth, 2^26 0.52), n=16 2.9-10.5x (f32 m=2^20 5.7x); so these rows hold for
// both sm_90 device classes measured (kHopper), and for no other device.
// Replaced designs, for the record (H200): a thread-per-system Thomas (cuThomasBatch) spilling
// c'/x' to du/x, 1.1-1.3x at m <= 64 and 0.95-1.0x above; a strided solver staging 32 systems per
// block through shared memory, 4.6x at m=32 falling to 1.08x at m=128.
constexpr TuningRow kRows[] = {
    {kHopper, Layout::kStrided, -1, 0, false, 1, 65536, 1, 0, "H100: strided f32/f64 partition 3.5-6.6x"},
    {kHopper, Layout::kStrided, -1, 0, true, 1, 65536, 1, 0, "H100: strided c32/c64 partition 3.0-4.7x"},
    {kHopper, Layout::kInterleaved, 0, 0, false, 1, 65536, 1, 0, "H100: algo 0 f32/f64 partition 1.7-345x"},
    {kHopper, Layout::kInterleaved, 0, 8, true, 1, 65536, 1, 0, "H100: algo 0 c32 partition 1.7-194x"},
    {kHopper, Layout::kInterleaved, 0, 16, true, 1, 65536, 1, 0, "H100: algo 0 c64 partition 1.6-100x"},
    {kHopper, Layout::kSingleNopivot, -1, 0, false, 1000, kMaxRows, 0, 16,
     "H100: gtsv2_nopivot f32/f64 n<=16 2.3-10.7x"},
    {kHopper, Layout::kSingleNopivot, -1, 0, true, 1000, kMaxRows, 0, 16,
     "H100: gtsv2_nopivot c32/c64 n<=16 1.5-8.6x"},
    // gtsv2, n = 1: where native wins on dominant and refined non-dominant matrices alike. H200,
    // idgpu-bench under IDGPU_POLICY=native, medians of 15, dominant / non-dominant: m = 1000 f32
    // 2.41x / 1.35x, f64 1.86x / 1.14x, c32 2.54x / 1.36x, c64 2.35x / 1.23x; f64 2^24 2.56x /
    // 1.43x; c32 2^24 2.66x / 1.32x; c64 2^20 1.95x / 1.36x, 2^22 3.74x / 2.25x, 2^24 5.11x /
    // 2.71x; f32 2^26 2.20x / 1.20x (2^24 1.80x / 0.95x, chained launches). So the H100's rows
    // hold on the H200. Between: f32 4096 .. 2^22 1.52-0.91x dominant but 0.53-0.86x
    // non-dominant; f64 / c32 2^22 1.69x / 1.06x and 1.78x / 1.02x (ties where refined).
    // With the chunk factors stored by the reduce pass, the refinement's early exits one wave
    // wide and the reduced levels moved as vectors (pivoting.cu; H200, the same grid, one run,
    // docs/data/h200-gtsv2.csv), dominant / non-dominant: f32 4096 1.85x / 1.00x, 2^14 1.61x /
    // 0.88x, 2^16 1.32x / 0.73x, 2^18 1.21x / 0.66x, 2^20 1.13x / 0.63x, 2^22 1.67x / 0.78x,
    // 2^24 2.25x / 0.96x; f64 2^22 2.21x / 1.21x, 2^24 3.13x / 1.61x; c32 2^22 2.22x / 1.15x,
    // 2^24 3.21x / 1.47x; c64 2^20 2.16x / 1.53x. So f64 and c32 go native from 2^22 on the H200
    // (not measured on an H100 with these kernels); f32 still loses where refined up to 2^24.
    {kHopper, Layout::kSingle, -1, 0, false, 1000, 1024, 0, 1, "H100/H200: gtsv2 f32/f64 m=1000 1.2-2.7x/1.1-2.4x"},
    {kHopper, Layout::kSingle, -1, 8, true, 1000, 1024, 0, 1, "H100/H200: gtsv2 c32 m=1000 1.4-2.7x/1.4-2.5x"},
    {kHopper, Layout::kSingle, -1, 16, true, 1000, 1024, 0, 1, "H100/H200: gtsv2 c64 m=1000 1.3-2.4x/1.2-2.4x"},
    {kHopper, Layout::kSingle, -1, 4, false, 1 << 26, kMaxRows, 0, 1, "H100/H200: gtsv2 f32 m>=2^26 1.3-2.3x/1.2-2.2x"},
    {kHopper, Layout::kSingle, -1, 8, false, 1 << 24, kMaxRows, 0, 1, "H100/H200: gtsv2 f64 m>=2^24 1.5-3.0x/1.4-2.6x"},
    {kHopper, Layout::kSingle, -1, 8, true, 1 << 24, kMaxRows, 0, 1, "H100/H200: gtsv2 c32 m>=2^24 1.4-3.1x/1.3-2.7x"},
    {kHopper, Layout::kSingle, -1, 16, true, 1 << 20, kMaxRows, 0, 1, "H100/H200: gtsv2 c64 m>=2^20 1.4-4.9x/1.4-5.1x"},
    // With the reduced levels of at most 128 rows solved by LU with partial pivoting in one thread
    // (pivoting.cu, kSerialDefault; H200, the same bench, one process, dominant / non-dominant):
    // f32 2048 4.26x / 1.24x, 4096 4.15x / 1.17x (8192 3.08x / 1.01x, 2^14 3.34x / 0.99x: ties
    // where refined); f64 2048 3.92x / 1.08x (4096 0.97x refined); c32 2048 4.04x / 1.10x, 4096
    // 3.40x / 1.03x (1.00x in a second run: a tie, left to the vendor); c64 2048 0.84x refined.
    {kH200, Layout::kSingle, -1, 4, false, 1025, 4096, 0, 1, "H200: gtsv2 f32 m=1025..4096 4.2x/1.17-1.24x"},
    {kH200, Layout::kSingle, -1, 8, false, 1025, 2048, 0, 1, "H200: gtsv2 f64 m=1025..2048 3.9x/1.08x"},
    {kH200, Layout::kSingle, -1, 8, true, 1025, 2048, 0, 1, "H200: gtsv2 c32 m=1025..2048 4.0x/1.10x"},
    {kH200, Layout::kSingle, -1, 8, false, 1 << 22, kMaxRows, 0, 1, "H200: gtsv2 f64 m>=2^22 1.2-3.1x"},
    {kH200, Layout::kSingle, -1, 8, true, 1 << 22, kMaxRows, 0, 1, "H200: gtsv2 c32 m>=2^22 1.15-3.2x"},
    // Algos 1 and 2 at m = 32 with the factor in shared memory, 2^24 unknowns (batch 2^19), two
    // runs each. H100: f32/f64 LU 1.29-1.32x, QR 1.30-1.35x (0.54-0.55 of copy bandwidth, the
    // vendor 0.41-0.42); c32 LU 1.09x, QR 1.25-1.26x; c64 (device-memory path) 0.95-0.97x.
    // H200: f32 1.08x both; f64 1.00-1.02x (a tie), c32 0.83x (LU) / 0.97x (QR): vendor.
    // These H100 rows now run the kernel that recomputes U from checkpoints (the auto choice, see
    // the H200 rows below), which was not measured on an H100: on the H200 it beat the on-chip
    // kernel at m = 32 (f32 LU 1.64x against 1.09x, QR 1.52x against 1.07x) while moving fewer
    // bytes, and an H100 has less bandwidth for the same multiprocessors.
    {kH100, Layout::kInterleaved, 1, 0, false, 32, 32, 1 << 19, 0, "H100: algo 1 f32/f64 m=32 1.29-1.32x (U stored)"},
    {kH100, Layout::kInterleaved, 2, 0, false, 32, 32, 1 << 19, 0, "H100: algo 2 f32/f64 m=32 1.30-1.35x (U stored)"},
    {kH100, Layout::kInterleaved, 1, 8, true, 32, 32, 1 << 19, 0, "H100: algo 1 c32 m=32 1.09x (U stored)"},
    {kH100, Layout::kInterleaved, 2, 8, true, 32, 32, 1 << 19, 0, "H100: algo 2 c32 m=32 1.25-1.26x (U stored)"},
    // H200, one thread a system with U recomputed from checkpoints (kernels/interleaved.cu,
    // checkpoint_schedule.h; IDGPU_INTERLEAVED_PIVOTING=recompute), idgpu-bench under
    // IDGPU_POLICY=native, medians of 7, speedup over the vendor (fraction of copy bandwidth),
    // LU / QR:
    //   2^24 unknowns, m = 8 / 16 / 32 / 64 / 256 / 1024 (batch 2^21 .. 16384):
    //     f32 1.25 / 1.78 / 1.63 (0.63) / 1.55 (0.54) / 2.05 (0.50) / 2.53x;
    //         1.19 / 1.78 / 1.53 (0.60) / 1.57 (0.50) / 1.86 (0.46) / 2.37x;
    //     f64 m >= 32: 1.50 (0.62) / 1.43 (0.56) / 1.52 (0.52) / 1.84x; 1.46 / 1.41 / 1.47 / 1.72x;
    //     c32 m >= 32: 1.45 (0.59) / 1.39 (0.54) / 1.56 (0.51) / 1.79x; 1.40 / 1.34 / 1.53 / 1.89x;
    //     c64: m = 8 / 16 (QR) 1.42 / 1.31x; m >= 32 1.34 (0.55) / 1.31 (0.51) / 1.11 (0.42) /
    //         1.56x; 1.28 / 1.27 / 1.25 (0.47) / 1.42x.
    //   batch 1000, m = 256 / 512: f32 1.78 / 1.82x, 1.89 / 1.89x; f64 1.34 / 1.32x, 1.39 /
    //     1.37x; c32 1.25 / 1.26x, 1.47 / 1.47x; c64 1.12 / 1.19x, 1.05 / 1.10x (m = 512 at
    //     batch 1000 goes to the gathered batch: tuning.cpp's gathered_batch_wins).
    //   batch 4096, m = 512 / 1024: f32 1.93 / 2.25x, 1.89 / 2.18x; f64 1.57 / 1.68x, 1.58 /
    //     1.66x; c32 1.49 / 1.58x, 1.66 / 1.76x; c64 1.39 / 1.42x, 1.25 / 1.27x.
    //   f32 m = 4096: batch 4096 2.49x (the gathered batch 3.72x serves it), 16384 2.60x / 1.97x.
    // U stored (on chip to m = 32, in device memory above; the H100 rows' kernel) measured f32 LU
    // 1.09x / 0.96x / 0.92x / 0.89x / 0.86x at m = 32 / 64 / 256 / 1024 / 4096. These rows admit
    // batches from 1000 and the lengths measured; the gathered rows below (from batch 1) also
    // send one thread a system the calls gathered_batch_wins does not gather: m = 256-511 at
    // batches up to 1000 (measured here at 1000 only) and f32 m >= 4096 at batches 4097-16384
    // (measured at 16384: 2.61x / 2.40x). On an H100 neither was measured with this kernel.
    {kH200, Layout::kInterleaved, 1, 4, false, 8, 4096, 1000, 0, "H200: algo 1 f32 thread per system 1.25-2.6x"},
    {kH200, Layout::kInterleaved, 2, 4, false, 8, 4096, 1000, 0, "H200: algo 2 f32 thread per system 1.19-2.4x"},
    {kH200, Layout::kInterleaved, 1, 8, false, 32, 1024, 1000, 0, "H200: algo 1 f64 thread per system 1.3-1.8x"},
    {kH200, Layout::kInterleaved, 2, 8, false, 32, 1024, 1000, 0, "H200: algo 2 f64 thread per system 1.4-1.7x"},
    {kH200, Layout::kInterleaved, 1, 8, true, 32, 1024, 1000, 0, "H200: algo 1 c32 thread per system 1.25-1.8x"},
    {kH200, Layout::kInterleaved, 2, 8, true, 32, 1024, 1000, 0, "H200: algo 2 c32 thread per system 1.3-1.9x"},
    {kH200, Layout::kInterleaved, 1, 16, true, 32, 1024, 1000, 0, "H200: algo 1 c64 thread per system 1.1-1.6x"},
    {kH200, Layout::kInterleaved, 2, 16, true, 8, 1024, 1000, 0, "H200: algo 2 c64 thread per system 1.05-1.4x"},
    // Algos 1 and 2 from m = 256: the batch gathered into one block-diagonal system and solved by
    // gtsv2's chunked diagonal pivoting (kernels/interleaved_pivoting.cu), a non-finite check after
    // it (a batch with a NaN, Inf or singular system goes to one thread a system, so no system
    // spoils another), scratch from idgpu's own pool (core/scratch.h). The vendor's time is a
    // serial chain of m steps whatever the batch; ours grows with the unknowns, so each row stops
    // at the largest batch measured to win. H100, idgpu-bench, IDGPU_POLICY=native, medians of 7,
    // algo 1 / algo 2, this version:
    //   batch 1000: f32 m=256 1.33x, 1024 3.49x, 4096 8.72/9.10x, 65536 15.1x; f64 / c32 / c64
    //     m=4096 7.04 / 7.14 / 4.77x. f32 m=65536 batch 256 49.9x.
    //   f32 batch 4096: m=256 0.90x, 1024 2.26x, 4096 3.35x; batch 16384: m=1024 0.95x, 4096 1.09x.
    // The first version (no check, scratch in pBuffer), medians of 5:
    //   batch 1000: f32 m=256 1.40/1.48x, 512 2.29/2.38x, 1024 3.73/3.95x, 4096 9.00/9.41x,
    //     65536 15.6/16.3x; f64 m=256 1.18/1.31x, 1024 3.40/3.74x, 4096 7.30x, 65536 11.2x;
    //     c32 256 1.17/1.30x, 1024 3.43/3.75x, 4096 7.38x, 65536 11.6x; c64 256 0.98/1.11x,
    //     1024 2.78/3.06x, 4096 4.92x, 65536 6.71x.
    //   f32 batch 4096: m=256 0.96x, 1024 2.41x, 4096 3.50x; batch 16384: m=256 0.69x, 1024
    //     1.01x, 4096 1.15x; batch 65536: m=64 0.29x, m=256 0.39x. m=65536 batch 256: f32 51.8x,
    //     c64 (algo 2) 26.4x.
    // H200, this version, algo 1 / algo 2, medians of 7: batch 1000: f32 m=256 1.39/1.45x, 1024
    //   3.55/3.83x, 4096 9.27/9.57x; f64 1.14/1.27x, 3.32/3.60x, 7.69/8.32x; c32 1.22/1.32x,
    //   3.35/3.64x, 7.79/8.42x; c64 0.96/1.10x, 2.82/3.11x, 5.36/5.88x. f32 m=65536 batch 256
    //   56.1/59.1x; batch 4096: m=256 0.94/0.98x, 1024 2.36/2.45x, 4096 3.67/3.82x; batch 16384:
    //   m=1024 1.01/1.02x, 4096 1.18x; batch 65536: m=64 0.91/0.88x, 256 0.34x. Every row below
    //   holds there as measured on the H100 (the same bounds win, the bounds' next steps lose or
    //   tie), so the rows are both classes'.
    {kHopper, Layout::kInterleaved, 1, 4, false, 256, 1023, 1, 0, "H100/H200: algo 1 f32 gathered m=256..1023 1.4-3.7x",
     1000},
    {kHopper, Layout::kInterleaved, 2, 4, false, 256, 1023, 1, 0, "H100/H200: algo 2 f32 gathered m=256..1023 1.5-4.0x",
     1000},
    {kHopper, Layout::kInterleaved, 1, 4, false, 1024, 4095, 1, 0, "H100/H200: algo 1 f32 gathered m=1024 2.4-3.7x", 4096},
    {kHopper, Layout::kInterleaved, 2, 4, false, 1024, 4095, 1, 0, "H100/H200: algo 2 f32 gathered m=1024 4.0x", 4096},
    {kHopper, Layout::kInterleaved, 1, 4, false, 4096, kMaxRows, 1, 0, "H100/H200: algo 1 f32 gathered m>=4096 1.15-52x",
     16384},
    {kHopper, Layout::kInterleaved, 2, 4, false, 4096, kMaxRows, 1, 0, "H100/H200: algo 2 f32 gathered m>=4096 9.4-16x",
     16384},
    {kHopper, Layout::kInterleaved, 1, 8, false, 256, kMaxRows, 1, 0, "H100/H200: algo 1 f64 gathered 1.2-11x", 1000},
    {kHopper, Layout::kInterleaved, 2, 8, false, 256, kMaxRows, 1, 0, "H100/H200: algo 2 f64 gathered 1.3-3.7x", 1000},
    {kHopper, Layout::kInterleaved, 1, 8, true, 256, kMaxRows, 1, 0, "H100/H200: algo 1 c32 gathered 1.2-12x", 1000},
    {kHopper, Layout::kInterleaved, 2, 8, true, 256, kMaxRows, 1, 0, "H100/H200: algo 2 c32 gathered 1.3-3.7x", 1000},
    {kHopper, Layout::kInterleaved, 1, 16, true, 1024, kMaxRows, 1, 0, "H100/H200: algo 1 c64 gathered 2.8-6.7x", 1000},
    {kHopper, Layout::kInterleaved, 2, 16, true, 256, kMaxRows, 1, 0, "H100/H200: algo 2 c64 gathered 1.1-26x", 1000},
};

}  // namespace

bool native_wins(const Problem& problem, DeviceClass device, const char** reason) {
  const MeasuredClasses classes = classes_of(device);
  if (classes == 0) {
    *reason = kUnmeasuredDevice;
    return false;
  }
  for (const TuningRow& row : kRows) {
    if ((row.measured_on & classes) == 0 || row.layout != problem.layout ||
        (row.algo >= 0 && row.algo != problem.algo) ||
        (row.element_bytes != 0 && row.element_bytes != problem.element_bytes) || row.complex != problem.complex ||
        problem.m < row.min_m || problem.m > row.max_m || problem.batch < row.min_batch ||
        (row.max_batch > 0 && problem.batch > row.max_batch) ||
        (row.max_n > 0 && problem.n > row.max_n)) {
      continue;
    }
    return true;
  }
  *reason = "the vendor is faster here on this device class (tuning table)";
  return false;
}

// The gathered batch against one thread a system with U recomputed from checkpoints, H200,
// idgpu-bench under IDGPU_POLICY=native, medians of 7-9, speedups over the vendor, gathered /
// thread per system (docs/data/h200-interleaved-algos12.csv), f32 LU:
//   m = 256:  batch 1000 1.59 / 1.78, 4096 1.05 / 1.72*;
//   m = 512:  batch 1000 2.58 / 1.82, 4096 1.67 / 1.93;
//   m = 1024: batch 1000 3.87 / 1.77*, 4096 2.50 / 2.25, 16384 1.02 / 2.53;
//   m = 4096: batch 1000 9.84 / 2.34, 4096 3.72 / 2.49, 16384 1.19 / 2.60; m = 65536 batch 256
//   56.2 / 2.41.
// (* measured only with a build whose kernel held 167 registers; at m = 4096, batch 1000 that
// build gave 2.20x where the final one gives 2.34x.)
// QR (the rotation by reciprocal square roots): f32 m = 512 batch 1000 2.72 / 1.89, 4096 1.77 /
// 1.89; m = 256 batch 1000: f64 1.50 / 1.39, c32 1.37 / 1.47, c64 1.15 / 1.05.
// LU at m = 256, batch 1000: f64 / c32 / c64 gathered 1.14 / 1.22 / 0.96 (earlier H200 figures,
// tuning rows above) against 1.34 / 1.25 / 1.12 one thread a system.
// A thread's chain of m steps, with the loads of a segment in flight at a time, is the time where
// few systems run; the gathered solve's time grows with the unknowns instead.
bool gathered_batch_wins(const Problem& problem) {
  const int m = problem.m;
  const long long batch = problem.batch;
  const bool f64 = problem.element_bytes == 8 && !problem.complex;
  const bool c64 = problem.element_bytes == 16;
  if (problem.algo == 2 && (f64 || c64) && m >= 256 && batch <= 1000) return true;
  return (m >= 512 && batch <= 1000) || (m >= 1024 && batch <= 4096);
}

// One block a system (pivoting_solve_batched: every level, the top solve and the refinement of a
// system in one launch) against the batch as one system level by level (about 25 launches). H100,
// idgpu-bench, algo 1, medians of 7, level by level / one block a system, ms:
//   f32 batch 256: m = 4096 0.171 / 0.104, 16384 0.354 / 0.266;
//   f32 batch 1000: m = 256 0.115 / 0.117, 1024 0.171 / 0.175, 4096 0.354 / 0.337, 16384 1.024 /
//     1.005, 65536 3.617 / 3.632;
//   f32 batch 4096: m = 256 0.174 / 0.422, 1024 0.354 / 0.620, 4096 1.029 / 1.250; batch 16384 and
//     65536 lose 1.3-6x;
//   f64 / c32 / c64 m = 4096 batch 1000: 0.517 / 0.743, 0.535 / 0.897, 0.903 / 1.508 (their
//     kernels hold 218-255 registers: one block a multiprocessor).
// With blocks of about eight level-0 chunks a thread (batched_threads in kernels/pivoting.cu; H200,
// medians of 15, level by level / one block a system, ms): f32 batch 1000: m = 4096 0.252 (one
// block, IDGPU_POLICY=auto), 8192 0.480 / 0.473, 16384 0.868 / 0.937; f32 m = 4096 batch 2000
// 0.477 / 0.485, batch 4096 0.861 / 0.953; f64 / c32 m = 4096 batch 1000 0.399 / 0.438, 0.426 /
// 0.448 (docs/data/h200-batched-block-threads.csv).
// A block's levels are a serial chain, so the one-block solve wins only where few systems leave
// the level-by-level launches with little to spread: f32, m = 4096-8192 at batches up to 1000,
// m up to 16384 at batches up to 256 (measured).
bool gathered_one_block_a_system(int m, int batch, int element_bytes, int configured) {
  if (configured == 0 || configured == 1) return configured == 1;
  return element_bytes == 4 && m >= 4096 && ((m <= 8192 && batch <= 1000) || (m <= 16384 && batch <= 256));
}

}  // namespace idgpu::tridiag
