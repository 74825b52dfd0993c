// Host reference executor of a planned 1D complex-to-complex FFT (src/fft/planner.h), in double.
// It runs the plan's passes exactly as the GPU kernels will index them, so that the CPU tests can
// check the plan's index math (strides, sub-transform bases, twiddle exponents, Stockham stage
// order) against an independent DFT without a GPU. Speed is not a goal.
//
// Per pass: blocks of transforms_per_block sub-transforms (over the whole batch); per
// sub-transform, load its elements with the pass's input stride and base, multiply by the
// inter-pass twiddle, run the pass's Stockham stages (radix-r butterflies with the stage twiddle,
// ping-pong between two buffers, no digit reversal), store with the output stride and base. A
// stage's butterflies are dealt to threads_per_transform "threads" round-robin, as a kernel's
// threads would take them.
//
// Sign convention as cuFFT: sign -1 is CUFFT_FORWARD, +1 CUFFT_INVERSE, both unnormalised
// (forward then inverse gives n times the input).
#pragma once

#include <complex>

#include "fft/planner.h"

namespace idgpu::fft::reference {

// exp(sign 2 pi i e / d), computed in double with the exponent reduced exactly first: e mod d, then
// the quarter turn q = floor(4 e / d) in integers, so that only an angle in [0, pi/2) reaches
// cos/sin and quarter, half and full turns are exact. d >= 1, d < 2^61.
std::complex<double> twiddle(long long e, long long d, int sign);

// Runs `plan` on plan.batch contiguous transforms from `input` to `output` (plan.n * plan.batch
// elements each; they must not overlap). sign: -1 forward, +1 inverse. Intermediate passes go
// through a scratch array of the plan's work size, ping-ponging with `output` so that the last
// pass writes `output`; `input` is never written.
void execute(const FftPlan& plan, int sign, const std::complex<double>* input, std::complex<double>* output);

}  // namespace idgpu::fft::reference
