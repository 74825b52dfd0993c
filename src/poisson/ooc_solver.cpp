#include "poisson/ooc_solver.h"

#include <cuComplex.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <limits>
#include <vector>

#include "core/device.h"
#include "core/device_scope.h"
#include "core/log.h"
#include "fft/planner.h"
#include "fft/stockham_index.h"
#include "fft/twiddle.h"
#include "poisson/kernels/kernels.h"
#include "tridiag/kernels/kernels.h"

namespace idgpu::poisson {
namespace {

// The device's memory sub-buffers: cudaMalloc's alignment.
constexpr std::size_t kAlignment = 256;

long long real_bytes(const Problem& p) { return p.fp64 ? 8 : 4; }
long long complex_bytes(const Problem& p) { return 2 * real_bytes(p); }
long long half_of(const Problem& p) { return p.nx / 2 + 1; }

std::string cuda_text(const std::string& what, cudaError_t status) {
  cudaGetLastError();
  return "out-of-core Poisson: " + what + ": " + cudaGetErrorString(status);
}

template <class Real>
std::vector<unsigned char> converted(const std::vector<double>& values) {
  std::vector<unsigned char> bytes(values.size() * sizeof(Real));
  Real* out = reinterpret_cast<Real*>(bytes.data());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<Real>(values[i]);
  return bytes;
}

}  // namespace

std::string ooc_refusal(const Problem& p) {
  if (p.nx < 2) return "nx must be at least 2";
  if (p.ny < 1) return "ny must be at least 1";
  if (p.nz < 2) return "nz must be at least 2 (a single plane fits the in-core solver)";
  constexpr long long kIntMax = std::numeric_limits<int>::max();
  if (p.nx > kIntMax || p.ny > kIntMax || p.nz > kIntMax) return "each axis must be below 2^31";
  if (p.z != Boundary::kPeriodic && p.z != Boundary::kNeumann && p.z != Boundary::kDirichlet) {
    return "unknown z boundary";
  }
  long long elements = 0, bytes = 0;
  if (__builtin_mul_overflow(p.nx + 2, p.ny, &elements) || __builtin_mul_overflow(elements, p.nz, &elements) ||
      __builtin_mul_overflow(elements, real_bytes(p), &bytes)) {
    return "the grid's bytes overflow";
  }
  const auto positive_finite = [](double value) { return std::isfinite(value) && value > 0; };
  if (!positive_finite(p.hx) || !positive_finite(p.hy) || !positive_finite(p.hz)) {
    return "spacings must be positive and finite";
  }
  return {};
}

long long in_core_bytes(const Problem& p) {
  const long long grid = p.nx * p.ny * p.nz * real_bytes(p);
  const long long spectrum = half_of(p) * p.ny * p.nz * complex_bytes(p);
  return grid + 2 * spectrum;
}

std::unique_ptr<OocSolver> OocSolver::make(const Problem& problem, long long device_bytes,
                                           ooc::Executor::Status* status, std::string* error) {
  *status = ooc::Executor::Status::kFailed;
  std::unique_ptr<OocSolver> solver(new OocSolver(problem));
  const bool in_core = refusal(problem).empty() && in_core_bytes(problem) <= device_bytes;
  // Out of core, the executor first (make_out_of_core): a budget too small is refused before the
  // device is touched, as the out-of-core FFT plans refuse it.
  if (in_core ? !solver->make_in_core(error) : !solver->make_out_of_core(device_bytes, status, error)) {
    return nullptr;
  }
  *status = ooc::Executor::Status::kOk;
  return solver;
}

OocSolver::~OocSolver() {
  if (device_ < 0) return;
  DeviceScope scope(device_);
  executor_.reset();
  in_core_.reset();
  if (stream_ != nullptr) {
    cudaStreamSynchronize(stream_);
    cudaStreamDestroy(stream_);
  }
  if (grid_ != nullptr) cudaFree(grid_);
  for (void* table : tables_) cudaFree(table);
  if (spectrum_ != nullptr) {
    if (spectrum_pinned_) {
      cudaFreeHost(spectrum_);
    } else {
      std::free(spectrum_);
    }
  }
  cudaGetLastError();
}

bool OocSolver::make_in_core(std::string* error) {
  if (const cudaError_t got = cudaGetDevice(&device_); got != cudaSuccess) {
    device_ = -1;
    *error = cuda_text("no current device", got);
    return false;
  }
  std::string why;
  in_core_ = std::make_unique<Solver>(problem_, &why);
  if (!why.empty()) {
    *error = "out-of-core Poisson, in core: " + why;
    return false;
  }
  const auto bytes = static_cast<std::size_t>(problem_.nx * problem_.ny * problem_.nz * real_bytes(problem_));
  if (const cudaError_t got = cudaMalloc(&grid_, bytes); got != cudaSuccess) {
    grid_ = nullptr;
    *error = cuda_text("device memory (" + std::to_string(bytes) + " bytes)", got);
    return false;
  }
  if (const cudaError_t got = cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking); got != cudaSuccess) {
    stream_ = nullptr;
    *error = cuda_text("stream", got);
    return false;
  }
  if (const cufftResult set = in_core_->set_stream(stream_); set != CUFFT_SUCCESS) {
    *error = "out-of-core Poisson: cufftSetStream: cuFFT status " + std::to_string(static_cast<int>(set));
    return false;
  }
  return true;
}

void* OocSolver::upload(const std::vector<double>& values, std::string* error) {
  const std::vector<unsigned char> bytes = problem_.fp64 ? converted<double>(values) : converted<float>(values);
  void* memory = nullptr;
  if (const cudaError_t got = cudaMalloc(&memory, bytes.size()); got != cudaSuccess) {
    *error = cuda_text("device memory for a table", got);
    return nullptr;
  }
  tables_.push_back(memory);
  if (const auto got = static_cast<cudaError_t>(copy_to_device(memory, bytes.data(), bytes.size()));
      got != cudaSuccess) {
    *error = cuda_text("table upload", got);
    return nullptr;
  }
  return memory;
}

bool OocSolver::make_out_of_core(long long device_bytes, ooc::Executor::Status* status, std::string* error) {
  const Problem& p = problem_;
  const Layout layout = layout_of(p);  // nz >= 2: the outer axis is z
  path_ = layout.path;
  scale_ = layout.scale;
  ooc::Executor::Request request;
  request.problem = ooc::three_d(p.nz, p.ny, half_of(p), static_cast<int>(complex_bytes(p)));
  request.kind = ooc::Executor::Kind::kPoisson;
  request.real_length = p.nx;
  request.columns = this;
  // The executor first: a budget too small is refused before any table or host memory.
  executor_ = ooc::Executor::make(request, device_bytes, status, error);
  if (executor_ == nullptr) return false;
  *status = ooc::Executor::Status::kFailed;
  if (const cudaError_t got = cudaGetDevice(&device_); got != cudaSuccess) {
    device_ = -1;
    *error = cuda_text("no current device", got);
    return false;
  }

  switch (path_) {
    case Path::kPeriodicColumns: {
      const Tables tables = tables_of(p, layout);
      column_table_ = upload(tables.column_eigenvalues, error);
      outer_table_ = upload(tables.outer_eigenvalues, error);
      fft::FftPass pass;
      pass.size = layout.outer;
      for (int stage = 0; stage < fft::pow2_stages(layout.log_outer); ++stage) {
        pass.radices.push_back(1 << fft::pow2_stage_bits(layout.log_outer, stage));
      }
      std::vector<double> flat;
      for (const std::complex<double>& value : fft::pass_twiddles(pass, false, p.fp64)) {
        flat.push_back(value.real());
        flat.push_back(value.imag());
      }
      stage_twiddles_ = upload(flat, error);
      block_ = column_block(layout.log_outer, p.fp64);
      log_outer_ = layout.log_outer;
      break;
    }
    case Path::kPeriodicSpectrum:
      // The general path's axes' eigenvalues; the pencils' z FFTs are the executor's plans.
      axis_tables_[0] = upload(eigenvalues(p.nx, p.hx, half_of(p)), error);
      axis_tables_[1] = upload(p.ny > 1 ? eigenvalues(p.ny, p.hy, p.ny) : std::vector<double>{0.0}, error);
      axis_tables_[2] = upload(eigenvalues(p.nz, p.hz, p.nz), error);
      break;
    case Path::kZSystems:
      tables_of_ = tables_of(p, layout);
      column_table_ = upload(tables_of_.diagonal, error);
      break;
  }
  if (!error->empty()) return false;

  spectrum_bytes_ = static_cast<std::size_t>(half_of(p) * p.ny * p.nz * complex_bytes(p));
  if (cudaHostAlloc(&spectrum_, spectrum_bytes_, cudaHostAllocDefault) == cudaSuccess) {
    spectrum_pinned_ = true;
  } else {
    cudaGetLastError();
    spectrum_ = std::malloc(spectrum_bytes_);
    if (spectrum_ == nullptr) {
      *error = "out-of-core Poisson: no host memory for the half spectrum (" + std::to_string(spectrum_bytes_) +
               " bytes)";
      return false;
    }
    log::plan().info("out-of-core Poisson: the half spectrum ({} bytes) could not be pinned; it is staged instead",
                     spectrum_bytes_);
  }
  return true;
}

std::string OocSolver::to_string() const {
  if (!executor_) {
    return "in core: one round trip of " + std::to_string(problem_.nx * problem_.ny * problem_.nz * real_bytes(problem_)) +
           " bytes";
  }
  return "out of core: " + executor_->schedule().to_string() + "; 3 round trips through " +
         std::to_string(spectrum_bytes_) + (spectrum_pinned_ ? " pinned" : " pageable") + " host bytes";
}

std::size_t OocSolver::scratch_bytes(long long width) const {
  if (path_ != Path::kZSystems) return 0;
  const std::size_t partition = tridiag::kernels::partition_buffer_bytes(
      static_cast<int>(problem_.nz), static_cast<int>(width), true, static_cast<int>(complex_bytes(problem_)));
  return kAlignment + partition;  // the singular column's mean, then the partition solver's buffer
}

std::string OocSolver::enqueue(void* data, long long first, long long width, void* scratch,
                               cudaStream_t stream) const {
  const Problem& p = problem_;
  const bool fp64 = p.fp64;
  const auto from = [&](const void* table) {
    return static_cast<const unsigned char*>(table) + first * real_bytes(p);
  };
  const auto checked = [](const char* what, cudaError_t status) -> std::string {
    if (status == cudaSuccess) return "";
    cudaGetLastError();
    return std::string(what) + ": " + cudaGetErrorString(status);
  };
  switch (path_) {
    case Path::kPeriodicColumns: {
      kernels::PeriodicColumns launch;
      launch.log_n = log_outer_;
      launch.columns = width;
      launch.per_block = block_.per_block;
      while ((1 << launch.log_per_block) < block_.per_block) ++launch.log_per_block;
      launch.stride = block_.stride;
      launch.shift = block_.shift;
      launch.shared_bytes = static_cast<unsigned>(block_.shared_bytes);
      launch.stage_twiddles = stage_twiddles_;
      launch.column_eigenvalues = from(column_table_);
      launch.outer_eigenvalues = outer_table_;
      launch.scale = scale_;
      launch.mean = mean_;
      launch.data = data;
      return checked("z kernel", fp64 ? kernels::launch_periodic_columns_f64(launch, stream)
                                      : kernels::launch_periodic_columns_f32(launch, stream));
    }
    case Path::kPeriodicSpectrum: {
      kernels::SpectrumScale launch;
      launch.half = half_of(p);
      launch.ny = p.ny;
      launch.nz = p.nz;
      launch.first_column = first;
      launch.width = width;
      launch.ex = axis_tables_[0];
      launch.ey = axis_tables_[1];
      launch.ez = axis_tables_[2];
      launch.scale = scale_;
      launch.mean = mean_;
      launch.data = data;
      return checked("eigenvalue division", fp64 ? kernels::launch_scale_spectrum_f64(launch, stream)
                                                 : kernels::launch_scale_spectrum_f32(launch, stream));
    }
    case Path::kZSystems: {
      const int m = static_cast<int>(p.nz);
      void* shift = scratch;
      void* buffer = static_cast<unsigned char*>(scratch) + kAlignment;
      tridiag::kernels::ShiftedSystems systems;
      systems.m = m;
      systems.batch = width;
      systems.off = tables_of_.off;
      systems.first_upper = tables_of_.first_upper;
      systems.last_lower = tables_of_.last_lower;
      systems.diagonal = from(column_table_);
      const long long pinned = tables_of_.pinned;
      systems.pinned = pinned >= first && pinned < first + width ? pinned - first : -1;
      systems.shift = shift;
      systems.scale = scale_;
      void* column = systems.pinned >= 0 ? static_cast<unsigned char*>(data) + systems.pinned * complex_bytes(p)
                                         : nullptr;
      if (systems.pinned >= 0) {
        if (std::string failed = checked("singular column's mean",
                                         fp64 ? kernels::column_mean_f64(column, width, m, shift, stream)
                                              : kernels::column_mean_f32(column, width, m, shift, stream));
            !failed.empty()) {
          return failed;
        }
      }
      const cudaError_t solved =
          fp64 ? tridiag::kernels::partition_solve_shifted(systems, static_cast<cuDoubleComplex*>(data), buffer, stream)
               : tridiag::kernels::partition_solve_shifted(systems, static_cast<cuComplex*>(data), buffer, stream);
      if (std::string failed = checked("z systems", solved); !failed.empty()) return failed;
      if (systems.pinned >= 0) {
        return checked("singular column's mean", fp64 ? kernels::set_column_mean_f64(column, width, m, mean_, stream)
                                                      : kernels::set_column_mean_f32(column, width, m, mean_, stream));
      }
      return "";
    }
  }
  return "unknown path";
}

bool OocSolver::solve(const void* f, void* u, std::string* error) {
  if (executor_) {
    if (!executor_->execute_poisson(f, u, spectrum_, error)) return false;
    return true;
  }
  DeviceScope scope(device_);
  if (scope.status() != cudaSuccess) {
    *error = cuda_text("setting the plan's device", scope.status());
    return false;
  }
  const auto bytes = static_cast<std::size_t>(problem_.nx * problem_.ny * problem_.nz * real_bytes(problem_));
  in_core_->set_mean(mean_);
  if (const cudaError_t got = cudaMemcpyAsync(grid_, f, bytes, cudaMemcpyHostToDevice, stream_); got != cudaSuccess) {
    *error = cuda_text("H2D of f", got);
    cudaStreamSynchronize(stream_);
    return false;
  }
  std::string why;
  if (!in_core_->solve(grid_, grid_, &why)) {
    *error = "out-of-core Poisson, in core: " + why;
    cudaStreamSynchronize(stream_);
    cudaGetLastError();
    return false;
  }
  if (const cudaError_t got = cudaMemcpyAsync(u, grid_, bytes, cudaMemcpyDeviceToHost, stream_); got != cudaSuccess) {
    *error = cuda_text("D2H of u", got);
    cudaStreamSynchronize(stream_);
    return false;
  }
  if (const cudaError_t got = cudaStreamSynchronize(stream_); got != cudaSuccess) {
    *error = cuda_text("the in-core solve", got);
    return false;
  }
  return true;
}

}  // namespace idgpu::poisson
