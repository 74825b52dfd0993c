// The FFT Poisson solver behind idgpuPoisson* (include/idgpu/idgpu.h): the same algorithms as the
// host reference (poisson/reference.h; J. Wu, "Optimization Techniques for Mapping Algorithms and
// Applications onto CUDA GPU Platforms and CPU-GPU Heterogeneous Platforms", PhD thesis,
// University of Maryland, 2014, chapter 3), on the device:
//
//  1. forward real-to-complex FFTs of the inner axes (x and y; x alone on an x-z or x-y grid) of
//     every plane of the outer axis, into the half spectrum [outer][columns], columns = the inner
//     modes (ky, kx), kx < nx / 2 + 1 (the library's own cuFFT plans: native where the dispatch
//     serves them natively, the fused planes among them);
//  2. along the outer axis, one kernel, one read and one write of the spectrum:
//      - periodic (kPeriodicColumns): the FFT along it, the division by the eigenvalues
//        lambda(kx) + lambda(ky) + lambda(kz) with the normalisation folded in, the inverse FFT
//        (the seed fuses the division into the last forward and first inverse FFT passes; here the
//        outer axis's forward pass, division and inverse pass are one kernel);
//      - Neumann or Dirichlet z (kZSystems): one tridiagonal system along z per column, its
//        coefficients computed from the column's lambda(kx) + lambda(ky), solved by the
//        partition solver (tridiag/kernels/kernels.h, partition_solve_shifted);
//  3. the inverse FFTs of the inner axes into u.
// Where the periodic outer axis is no power of two the kernel serves (or the grid is 1D),
// kPeriodicSpectrum runs the full-rank real FFT, a division kernel and the inverse.
#pragma once

#include <cufft.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>
#include <vector>

#include "poisson/layout.h"
#include "tridiag/kernels/kernels.h"

namespace idgpu::poisson {

// The plan object behind idgpuPoissonPlan_t.
class Solver {
 public:
  // A solver for a problem refusal() accepts; *error receives why none could be made (device
  // memory, FFT plans) and the solver is then unusable.
  Solver(const Problem& problem, std::string* error);
  ~Solver();
  Solver(const Solver&) = delete;
  Solver& operator=(const Solver&) = delete;

  const Problem& problem() const { return problem_; }
  const Layout& layout() const { return layout_; }
  std::size_t device_bytes() const { return device_bytes_; }
  cufftResult set_stream(cudaStream_t stream);
  void set_mean(double mean) { mean_ = mean; }
  // Enqueues the solve on the plan's stream; the first failure's text in *error.
  bool solve(const void* f, void* u, std::string* error) const;

 private:
  void* allocate(std::size_t bytes, std::string* error);

  Problem problem_;
  Layout layout_;
  cudaStream_t stream_ = nullptr;
  double mean_ = 0;
  cufftHandle forward_ = -1;
  cufftHandle inverse_ = -1;
  std::vector<void*> allocations_;
  std::size_t device_bytes_ = 0;
  void* spectrum_ = nullptr;
  // Tables in the precision: the columns' eigenvalues (or the z systems' diagonals), the outer
  // axis's, the three axes' (kPeriodicSpectrum), the outer FFT's stage twiddles; the Neumann
  // singular column's mean and the partition solver's scratch.
  void* column_table_ = nullptr;
  void* outer_table_ = nullptr;
  void* axis_tables_[3] = {nullptr, nullptr, nullptr};
  void* stage_twiddles_ = nullptr;
  void* shift_ = nullptr;
  void* scratch_ = nullptr;
  tridiag::kernels::ShiftedSystems systems_;
  int per_block_ = 0;
  int smem_stride_ = 0;
  int smem_shift_ = 0;
  unsigned shared_bytes_ = 0;
};

}  // namespace idgpu::poisson
