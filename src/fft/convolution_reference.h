// Host reference executor of the plans of plan_c2c_any (fft/planner.h), in double: the
// Stockham plans, and those with convolution steps (Rader, Bluestein; fft/convolution.h), run as
// their kernels are to run them. A pass without a step runs through reference::execute as a
// one-pass plan (its transform length, its sign: pass_sign); a pass with a step runs block by
// block like the Stockham passes (fft/stockham_reference.h): its sub-transforms staged into a
// NaN-poisoned "shared memory" through the pass's index functions (fft/stockham_index.h) and the
// steps' (fft/convolution_index.h), its stages by run_step_stages, its tables from step_tables,
// and the buffers in plan_turns order (a NaN-poisoned work area).
//
// Sign convention as cuFFT's: -1 forward, +1 inverse, both unnormalised.
#pragma once

#include <complex>

#include "fft/planner.h"

namespace idgpu::fft::reference {

// Runs `plan` on plan.batch contiguous transforms of plan.n points from `input` to `output`
// (`input == output`: in place; otherwise they must not overlap and `input` is not written).
void execute_any(const FftPlan& plan, int sign, const std::complex<double>* input, std::complex<double>* output);

}  // namespace idgpu::fft::reference
