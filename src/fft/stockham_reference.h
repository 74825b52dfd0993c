// Host reference executor of a planned 1D complex-to-complex FFT (src/fft/planner.h), in double.
// It runs the plan's passes exactly as the GPU kernels (src/fft/kernels/stockham_pass.cuh) index them,
// through the same index functions (fft/stockham_index.h), the same twiddle tables
// (fft/twiddle.h) and the same buffer turns (pass_buffers), so that the CPU tests check the
// kernels' index math against an independent DFT without a GPU. Speed is not a goal. A cluster plan
// (FftPlan::cluster) runs as its kernel does (kernels/stockham_cluster.cuh): per block stage A,
// the exchange through cluster_exchange_rank / cluster_exchange_slot, per block stage B.
//
// Per pass and block: stage the block's sub-transforms into a "shared memory" array in the
// kernel's linear order (with the inter-pass twiddle lo[] hi[]), then per Stockham stage let every
// "thread" read its butterflies' inputs (twiddled from the stage table), and only then write all
// outputs back in place, as the kernel does between its two barriers; then store. Butterfly b of
// a stage goes to thread b mod threads_per_transform, slot b / threads_per_transform, as on the
// GPU. Shared memory is poisoned with NaN before each block, so a slot read before it is written
// spoils the result.
//
// Sign convention as cuFFT: sign -1 is CUFFT_FORWARD, +1 CUFFT_INVERSE, both unnormalised
// (forward then inverse gives n times the input).
#pragma once

#include <complex>
#include <cstddef>
#include <vector>

#include "fft/planner.h"
#include "fft/twiddle.h"

namespace idgpu::fft::reference {

using fft::twiddle;

// Runs `plan` on plan.batch contiguous transforms from `input` to `output` (plan.n * plan.batch
// elements each; real plans: cuFFT's layouts, the reals as pairs). `input == output` is an
// in-place execution; otherwise they must not overlap and `input` is never written, except by a
// multi-dimensional C2R plan, whose axis passes run on its input (plan_real). Intermediate passes
// use a work array of the plan's work size.
//
// A fused pair's tiles run in the fused kernel's ticket order (kTickets), or (kReversed) in an
// order the kernel allows as well and that differs from it as much as it can: every first-pass
// tile, transforms and tiles last to first, then every last-pass tile the same way. Tiles the
// kernel may run at once (of one pass of a transform, or of different transforms) then meet in
// the opposite order; any element one of them writes that another reads changes the result.
enum class TileOrder { kTickets, kReversed };
void execute(const FftPlan& plan, int sign, const std::complex<double>* input, std::complex<double>* output,
             TileOrder order = TileOrder::kTickets);

// One pass of `plan` from `from` to `to`, block by block as execute runs it (a real plan's with
// the distances of its execution: execution_pass). For the executors that run a plan's other
// passes themselves (fft/convolution_reference.h).
void run_pass(const FftPlan& plan, const FftPass& pass, int sign, const std::complex<double>* from,
              std::complex<double>* to);

// The Stockham stages of `pass.radices` (product `length`) on the first `length` elements of each
// of the first `valid` sub-transforms in `smem`, laid out by `shape` (smem_index), as a pass's
// kernel runs them: butterflies spread over pass.threads_per_transform threads, every read of a
// stage before any write, stage twiddles at table[stage_offset + stage_twiddle_index(...)]
// oriented by `sign`. For the steps that run stages of another length than the pass's size
// (fft/convolution_reference.h).
void run_step_stages(const FftPass& pass, int length, const PassShape& shape, int valid, int sign,
                     const std::vector<std::complex<double>>& table, std::size_t stage_offset,
                     std::vector<std::complex<double>>* smem);

}  // namespace idgpu::fft::reference
