// The out-of-core FFT Poisson solve behind idgpuOocPoisson* (include/idgpu/idgpu.h): the problem of
// poisson/solver.h with f and u in host memory, larger than the device where need be (J. Wu,
// "Optimization Techniques for Mapping Algorithms and Applications onto CUDA GPU Platforms and
// CPU-GPU Heterogeneous Platforms", PhD thesis, University of Maryland, 2014, chapter 4, "Out of
// Card Poisson Solver").
//
// Two ways, chosen at creation:
//  - in core, where the in-core solver (poisson/solver.h) takes the problem and its memory (a device
//    copy of the grid and the half spectrum, and the FFTs' work: in_core_bytes) fits the budget:
//    f copied in, solved in place, u copied out: one round trip;
//  - out of core otherwise: the out-of-core executor (ooc/executor.h) runs poisson_job
//    (ooc/plan.h) over the two-phase schedule of the half spectrum [nz][ny][nx / 2 + 1] (pencils
//    kept: Options::keep_pencils), through a host copy of that spectrum which the plan holds
//    (pinned where the system grants it): slabs of xy planes R2C from f into it, pencils of whole
//    z columns solved in place in it (this class is their ColumnWork), slabs C2R into u. Three
//    round trips.
// The z solve of a pencil is the in-core solver's, on its columns only: the periodic z kernel
// (kernels::PeriodicColumns: z FFT, division, inverse z FFT in one kernel) with the columns'
// eigenvalues from the pencil's first column on, where the in-core layout takes that path; else the
// pencil's C2C FFT along z (the executor's plan), the eigenvalue division of its columns
// (kernels::SpectrumScale over a pencil) and the inverse FFT; with Neumann or Dirichlet z the
// pencil's tridiagonal systems (tridiag partition_solve_shifted, the diagonal table from the
// pencil's first column on, the singular column pinned where the pencil holds it).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <string>

#include "ooc/executor.h"
#include "poisson/layout.h"
#include "poisson/solver.h"

namespace idgpu::poisson {

// Why an out-of-core problem is refused (as refusal(), but nz >= 2 and no bound on the points
// beyond each axis below 2^31), or "".
std::string ooc_refusal(const Problem& problem);

// The device bytes of the in-core path: the grid, the in-core solver's spectrum, and as much again
// for the FFTs' work areas.
long long in_core_bytes(const Problem& problem);

class OocSolver final : public ooc::ColumnWork {
 public:
  // The solver of `problem` (ooc_refusal accepts it) within `device_bytes`, or null with *error and
  // *status (kBudget: the budget is below the least chunk's).
  static std::unique_ptr<OocSolver> make(const Problem& problem, long long device_bytes,
                                         ooc::Executor::Status* status, std::string* error);
  ~OocSolver() override;
  OocSolver(const OocSolver&) = delete;
  OocSolver& operator=(const OocSolver&) = delete;

  void set_mean(double mean) { mean_ = mean; }
  int round_trips() const { return executor_ ? executor_->round_trips() : 1; }
  long long chunks() const { return executor_ ? executor_->step_count() : 1; }
  std::size_t host_bytes() const { return executor_ ? spectrum_bytes_ : 0; }
  std::string to_string() const;
  // Solves; f and u host memory (f == u allowed). False with *error.
  bool solve(const void* f, void* u, std::string* error);

  // ooc::ColumnWork, for the pencils of the out-of-core path.
  std::size_t scratch_bytes(long long width) const override;
  bool wants_fft() const override { return path_ == Path::kPeriodicSpectrum; }
  std::string enqueue(void* data, long long first, long long width, void* scratch,
                      cudaStream_t stream) const override;

 private:
  explicit OocSolver(const Problem& problem) : problem_(problem) {}
  bool make_in_core(std::string* error);
  bool make_out_of_core(long long device_bytes, ooc::Executor::Status* status, std::string* error);
  void* upload(const std::vector<double>& values, std::string* error);

  Problem problem_;
  Path path_ = Path::kPeriodicColumns;
  double mean_ = 0;
  int device_ = -1;
  // In core.
  std::unique_ptr<Solver> in_core_;
  void* grid_ = nullptr;  // device, the grid's reals
  cudaStream_t stream_ = nullptr;
  // Out of core.
  std::unique_ptr<ooc::Executor> executor_;
  void* spectrum_ = nullptr;  // host
  bool spectrum_pinned_ = false;
  std::size_t spectrum_bytes_ = 0;
  std::vector<void*> tables_;  // device
  const void* column_table_ = nullptr;  // per column: eigenvalues (periodic) or diagonals (z systems)
  const void* outer_table_ = nullptr;
  const void* axis_tables_[3] = {nullptr, nullptr, nullptr};
  const void* stage_twiddles_ = nullptr;
  ColumnBlock block_;
  int log_outer_ = 0;
  double scale_ = 1;
  Tables tables_of_;
};

}  // namespace idgpu::poisson
