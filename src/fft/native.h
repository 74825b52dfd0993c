// The native FFT solvers the plan registry (fft/plan.h) offers.
#pragma once

#include "fft/plan.h"

namespace idgpu::fft {

// 1D C2C/Z2Z with contiguous batches, every length whose prime factors are at most 13: the
// multi-pass Stockham FFT of fft/planner.h on the kernels of fft/kernels/ (stockham.cu and the
// kernels it dispatches to).
const Solver& stockham_solver();

}  // namespace idgpu::fft
