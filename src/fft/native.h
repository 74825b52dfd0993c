// The native FFT solvers the plan registry (fft/plan.h) offers.
#pragma once

#include "fft/plan.h"
#include "fft/planner.h"

namespace idgpu::fft {

// 1D C2C/Z2Z with contiguous batches, every length whose prime factors are at most 13: the
// multi-pass Stockham FFT of fft/planner.h on the kernels of fft/kernels/ (stockham.cu and the
// kernels it dispatches to).
const Solver& stockham_solver();

// Whether compiled kernels run every pass of `plan` (a plan of plan_c2c_any, plan_real, plan_c2c
// or plan_c2c_layout under the GPU's limits): the check the native solver makes before it takes
// a plan with a convolution pass, which otherwise goes to the vendor. Host code only (no device
// needed).
bool compiled_kernels_serve(const FftPlan& plan);

}  // namespace idgpu::fft
