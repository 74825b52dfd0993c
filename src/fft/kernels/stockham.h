// Launch interface of the Stockham pass kernel (stockham.cu): one launch runs one pass of a
// planned 1D C2C/Z2Z transform (fft/planner.h) over the whole batch.
#pragma once

#ifndef __CUDACC_RTC__  // compiled at run time (fft/runtime_kernels.h), the kernels need PassLaunch alone
#include <cuda_runtime_api.h>
#endif

#include "fft/stockham_index.h"

namespace idgpu::fft::kernels {

struct PassLaunch {
  PassShape shape;
  int radices[kMaxStages] = {};
  int stages = 0;
  int threads_per_transform = 0;
  // A wide pass (FftPass::wide): the cap its threads were sized under (WideStages'); 0 otherwise.
  int wide_cap = 0;
  long long total = 0;         // sub-transforms over the batch
  long long blocks = 0;
  unsigned shared_bytes = 0;
  int lo_bits = 0;
  const void* stage_twiddles = nullptr;  // w_N^x, forward sign, in the pass's precision
  const void* lo_twiddles = nullptr;     // inter-pass tables (fft/twiddle.h); null in a first pass
  const void* hi_twiddles = nullptr;
  // fp32: pairs of consecutive staging slots are one 16-byte access on this side (even row
  // length, 16-byte aligned base); set by the host per launch.
  bool vector_in = false;
  bool vector_out = false;
  // The fixed-sequence kernels (stockham_pass.cuh; the general kernel ignores them): the first
  // stage reads the input (direct_in), the last writes the output (direct_out), without staging
  // the block's elements through shared memory on that side; only where direct_in_eligible and
  // direct_out_eligible say so. Set by the host per launch.
  bool direct_in = false;
  bool direct_out = false;
  // A real pass (RealStep, fft/planner.h): 1 packs R2C outputs, 2 unpacks C2R inputs, with the
  // table w_n^k, k < N, in the pass's precision (forward sign); 3 and 4, odd n (no table): loads
  // reals as (x, 0) and stores n / 2 + 1 values, or loads n / 2 + 1 values with their Hermitian
  // extension and stores real parts, the real side's distances in reals.
  // 5 and 6 (RealStep::kPairedR2C, kPairedC2R): the real step of a two-pass plan paired across
  // the block's columns (stockham_index.h, paired_frame), the table w_n^k as lo[k mod 2^b]
  // (2^b entries) then hi[k >> b], b = real_lo_bits.
  int real_step = 0;
  int real_lo_bits = 0;
  const void* real_twiddles = nullptr;
  // Steps 3 and 4 on a Bluestein convolution: the call's real rows, paired two a transform
  // (FftPass::real_rows); 0: a row a transform.
  long long real_rows = 0;
  // A convolution pass (ConvolutionStep, fft/planner.h): 2 is Bluestein's over M =
  // convolution_size points (stockham_bluestein.cuh for powers of two, convolution_log2 their
  // log, the least at or above M otherwise; stockham_bluestein_mixed.cuh for the mixed lengths of
  // fixed_radices.h), with the chirp (n entries) and the kernel's spectrum (M entries) in the
  // pass's precision, forward sign.
  int convolution = 0;
  int convolution_size = 0;
  int convolution_log2 = 0;
  const void* chirp = nullptr;
  const void* spectrum = nullptr;
  // A pass of a multi-pass Bluestein plan (BluesteinStep, fft/planner.h): 1 loads the n input
  // points times the chirp, 3 multiplies by the spectrum and runs the opposite-sign stages, 5
  // stores the n output points times the chirp (the pass kernels of stockham_pow2.cuh, compiled
  // in stockham_bluestein_steps_f32.cu / _f64.cu); n = chirp_length, the chirp and the spectrum
  // in the fields above.
  int bluestein = 0;
  long long chirp_length = 0;
  // A cluster column pass (fft/planner.h FftPass::cluster): the stage tables of its stages A and
  // B (cluster_stage_pass's), forward sign; it runs as a ClusterLaunch.
  const void* cluster_twiddles_a = nullptr;
  const void* cluster_twiddles_b = nullptr;
  const void* input = nullptr;
  void* output = nullptr;
};

// Whether the pass kernels may read `pass`'s input (direct_in) or write its output (direct_out)
// from the stages: a contiguous side (whole transforms in; sub-transforms written whole out) that
// no real step stages (R2C's pack reads the outputs in pairs, C2R's unpack the inputs; odd real
// lengths load reals), no convolution, and at least kDirectMinThreads threads per transform, so
// that a transform's threads meet at least 32 consecutive bytes in each access.
inline constexpr int kDirectMinThreads = 4;
inline bool direct_in_eligible(const PassLaunch& pass) {
  return pass.shape.sub == 1 && (pass.real_step == 0 || pass.real_step == 1) && pass.convolution == 0 &&
         pass.threads_per_transform >= kDirectMinThreads;
}
inline bool direct_out_eligible(const PassLaunch& pass) {
  return pass.shape.span == 1 && !pass.shape.straddles && (pass.real_step == 0 || pass.real_step == 2) &&
         pass.convolution == 0 &&
         pass.threads_per_transform >= kDirectMinThreads;
}

#ifndef __CUDACC_RTC__
// Launches one pass on `stream`; `inverse` selects the sign. Returns the launch's error. A pass
// that a kernel compiled for its power-of-two shape serves (stockham_pow2.cuh) goes there, a
// convolution pass to the Bluestein kernels (cudaErrorNotSupported where none serves it), a
// mixed-radix pass whose radices a fixed-sequence kernel is compiled for there, every other pass
// to the general kernel.
cudaError_t launch_pass_f32(const PassLaunch& pass, bool inverse, cudaStream_t stream);
cudaError_t launch_pass_f64(const PassLaunch& pass, bool inverse, cudaStream_t stream);
#endif

}  // namespace idgpu::fft::kernels

#ifndef __CUDACC_RTC__

namespace idgpu::fft::kernels {

// The power-of-two kernels (stockham_pow2_f32.cu, stockham_pow2_f64.cu): true, with the launch's
// status, when one served the pass; false, with nothing launched, when none is compiled for it.
bool launch_pow2_pass_f32(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status);
bool launch_pow2_pass_f64(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status);

// Whether the fp32 kernel that runs `pass` computes its inter-pass twiddles itself (the
// power-of-two later passes) rather than reading the lo/hi tables, which then need not be built.
bool computes_interpass_twiddles_f32(const PassLaunch& pass);
// Whether a power-of-two kernel is compiled for `pass` (the only kernels of the paired real steps).
bool pow2_pass_served_f32(const PassLaunch& pass);
bool pow2_pass_served_f64(const PassLaunch& pass);

// The fixed-sequence kernels (stockham_fixed_f32.cu, stockham_fixed_f64.cu; the sequences in
// fft/kernels/fixed_radices.h): true, with the launch's status, when one is compiled for the
// pass's radices; false, with nothing launched, otherwise.
bool launch_fixed_pass_f32(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status);
bool launch_fixed_pass_f64(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status);

// The passes of multi-pass Bluestein plans (PassLaunch::bluestein; stockham_bluestein_steps_f32.cu,
// stockham_bluestein_steps_f64.cu): cudaErrorNotSupported, with nothing launched, for a pass no
// kernel is compiled for.
cudaError_t launch_bluestein_step_f32(const PassLaunch& pass, bool inverse, cudaStream_t stream);
cudaError_t launch_bluestein_step_f64(const PassLaunch& pass, bool inverse, cudaStream_t stream);

// The one-pass Bluestein kernels over mixed lengths (stockham_bluestein_mixed_f32.cu, _f64.cu):
// true, with the launch's status in *status, where one is compiled for the pass (status null:
// nothing launched, the check alone); false, with nothing launched, otherwise.
bool launch_bluestein_mixed_f32(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status);
bool launch_bluestein_mixed_f64(const PassLaunch& pass, bool inverse, cudaStream_t stream, cudaError_t* status);

// The one-pass Bluestein kernels (stockham_bluestein_f32.cu, stockham_bluestein_f64.cu; the
// mixed lengths' above): cudaErrorNotSupported, with nothing launched, for a pass none serves.
cudaError_t launch_bluestein_pass_f32(const PassLaunch& pass, bool inverse, cudaStream_t stream);
cudaError_t launch_bluestein_pass_f64(const PassLaunch& pass, bool inverse, cudaStream_t stream);
// Whether one is compiled for the pass's convolution (its tables need not be set yet).
bool bluestein_pass_served_f32(const PassLaunch& pass);
bool bluestein_pass_served_f64(const PassLaunch& pass);

}  // namespace idgpu::fft::kernels

namespace idgpu::fft::kernels {

// One launch of a cluster plan (fft/stockham_index.h, kernels/stockham_cluster.cuh): the whole
// two-pass transform of every batch member in one kernel, a cluster of 2^rank_bits blocks each.
// What a cluster kernel does around the complex transform (ClusterLaunch::real_step).
inline constexpr int kClusterComplex = 0;
inline constexpr int kClusterR2C = 1;  // forward: the real step after stage B
inline constexpr int kClusterC2R = 2;  // inverse: the real step before stage A
// A cluster column pass only: an R2C plane's axis pass over its n / 2 + 1 lines whose last line
// runs packed into line 0 (PassShape::nyquist_packed; forward).
inline constexpr int kClusterPackedR2C = 3;

struct ClusterLaunch {
  int bits = 0;              // n = 2^bits
  int rank_bits = 0;         // C = 2^rank_bits blocks per cluster
  int stride_a = 0;          // shared-memory elements per stage-A column (padded)
  int stride_b = 0;          // per stage-B row
  int shift = 0;             // padding: one element every 2^shift
  int threads = 0;           // per block
  unsigned shared_bytes = 0;  // per block
  long long batch = 0;
  const void* twiddles_a = nullptr;  // stage tables of the two passes (PassLaunch::stage_twiddles)
  const void* twiddles_b = nullptr;
  const void* lo_twiddles = nullptr;  // fp64: the last pass's inter-pass tables (fft/twiddle.h)
  const void* hi_twiddles = nullptr;
  int lo_bits = 0;
  // A real plan's (FftCluster in fft/planner.h, or a real cluster column pass): kClusterComplex,
  // kClusterR2C, kClusterC2R with w_{2M}^k from real_twiddles as the paired passes' lo/hi split
  // (real_lo_bits), or kClusterPackedR2C (no tables). Distances between transforms in complex elements: n for C2C; M or M + 1
  // (cuFFT's padded layout in place) on the real side, M + 1 on the complex side.
  int real_step = 0;
  int real_lo_bits = 0;
  const void* real_twiddles = nullptr;
  long long in_dist = 0;
  long long out_dist = 0;
  // A cluster column pass (FftPass::cluster with lines; fft/stockham_index.h): the pass's N = 2^bits
  // points over `lines` (S) lines a transform, element stride S on both sides, 2^lines_log2 lines
  // a cluster, `batch` transforms in_dist / out_dist apart; a later pass's inter-pass twiddle
  // w_M^{e j} (j the line) with M = twiddle_m (0: an axis pass, none).
  int lines_log2 = 0;
  long long lines = 0;
  long long twiddle_m = 0;
  // A first pass (FftCluster::contiguous_out): line j's output contiguous at j out_line (0: the
  // column layout above).
  long long out_line = 0;
  const void* input = nullptr;
  void* output = nullptr;
};

// Whether the current device runs the cluster kernels of the precision: they are built for it
// from sm_90 code (a build for older architectures only leaves them empty).
bool cluster_kernels_usable_f32();
bool cluster_kernels_usable_f64();
// Launches the cluster kernel on `stream`; returns the launch's error (cudaErrorInvalidValue
// when none is compiled for launch.bits and launch.rank_bits).
cudaError_t launch_cluster_f32(const ClusterLaunch& launch, bool inverse, cudaStream_t stream);
// A cluster column pass's launch (lines_log2 > 0; launch_cluster_f32 / _f64 pass it on),
// compiled apart from the cluster plans' kernels.
cudaError_t launch_cluster_lines_f32(const ClusterLaunch& launch, bool inverse, cudaStream_t stream);
cudaError_t launch_cluster_lines_f64(const ClusterLaunch& launch, bool inverse, cudaStream_t stream);
cudaError_t launch_cluster_f64(const ClusterLaunch& launch, bool inverse, cudaStream_t stream);

}  // namespace idgpu::fft::kernels

namespace idgpu::fft::kernels {

// One launch of a fused plan (fft/planner.h FftFused, kernels/stockham_fused.cuh): both passes
// in one persistent kernel of `grid` blocks (out of place for a 1D plan's; in place or not for
// a multi-dimensional plan's axes).
// The kinds of a fused kernel's two passes (kernels/stockham_fused.cuh, FusedPassKinds).
enum FusedKinds : int {
  kFused1D = 0,
  kFusedAxes = 1,
  kFusedRealForward = 2,
  kFusedRealInverse = 3,
  kFusedPairedForward = 4,
  kFusedPairedInverse = 5
};

struct FusedLaunch {
  PassLaunch first;  // with their arrays (the plan's buffer turns for the two passes)
  PassLaunch last;
  int kinds = kFused1D;  // FusedKinds
  // Sub-transforms of each pass in one of the kernel's transforms (tiles: T of them, the last
  // tile of a transform possibly fewer; one fewer tiled where PassShape::nyquist_packed).
  long long first_count = 0;
  long long last_count = 0;
  FusedSchedule schedule;
  unsigned* counters = nullptr;  // 2 + schedule.batch counters, zero between launches (the kernel leaves them so)
  unsigned grid = 0;
  unsigned threads = 0;
  unsigned shared_bytes = 0;
};

// Blocks of the fused kernel for the launch's pass lengths that the current device holds at
// once; 0 when no kernel is compiled for them (the passes then run as two launches).
int fused_resident_blocks_f32(const FusedLaunch& launch);
int fused_resident_blocks_f64(const FusedLaunch& launch);
cudaError_t launch_fused_f32(const FusedLaunch& launch, bool inverse, cudaStream_t stream);
cudaError_t launch_fused_f64(const FusedLaunch& launch, bool inverse, cudaStream_t stream);

}  // namespace idgpu::fft::kernels
#endif  // __CUDACC_RTC__
