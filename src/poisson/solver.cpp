#include "poisson/solver.h"

#include <cuComplex.h>

#include <complex>

#include "core/api.h"
#include "core/device.h"
#include "fft/api.h"
#include "fft/planner.h"
#include "fft/stockham_index.h"
#include "fft/twiddle.h"
#include "poisson/kernels/kernels.h"
#include "tridiag/kernels/kernels.h"

namespace idgpu::poisson {

void* Solver::allocate(std::size_t bytes, std::string* error) {
  void* memory = nullptr;
  const cudaError_t status = cudaMalloc(&memory, bytes);
  if (status != cudaSuccess) {
    cudaGetLastError();
    if (error->empty()) *error = std::string("device memory: ") + cudaGetErrorString(status);
    return nullptr;
  }
  allocations_.push_back(memory);
  device_bytes_ += bytes;
  return memory;
}

namespace {

// `values` converted to the precision and copied into new device memory.
template <class Real>
std::vector<unsigned char> to_bytes(const std::vector<double>& values) {
  std::vector<unsigned char> bytes(values.size() * sizeof(Real));
  Real* out = reinterpret_cast<Real*>(bytes.data());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = static_cast<Real>(values[i]);
  return bytes;
}

std::vector<unsigned char> precision_bytes(const std::vector<double>& values, bool fp64) {
  return fp64 ? to_bytes<double>(values) : to_bytes<float>(values);
}

std::vector<unsigned char> complex_bytes(const std::vector<std::complex<double>>& values, bool fp64) {
  std::vector<double> flat(2 * values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    flat[2 * i] = values[i].real();
    flat[2 * i + 1] = values[i].imag();
  }
  return precision_bytes(flat, fp64);
}

}  // namespace

Solver::Solver(const Problem& problem, std::string* error) : problem_(problem), layout_(layout_of(problem)) {
  const Problem& p = problem_;
  const bool fp64 = p.fp64;
  const std::size_t complex_size = fp64 ? 16 : 8;
  const long long half = p.nx / 2 + 1;
  const auto upload = [&](const std::vector<unsigned char>& bytes) -> void* {
    void* memory = allocate(bytes.size(), error);
    if (memory == nullptr) return nullptr;
    if (const auto status = static_cast<cudaError_t>(copy_to_device(memory, bytes.data(), bytes.size()));
        status != cudaSuccess) {
      if (error->empty()) *error = std::string("table upload: ") + cudaGetErrorString(status);
      return nullptr;
    }
    return memory;
  };

  spectrum_ = allocate(static_cast<std::size_t>(p.nz * p.ny * half) * complex_size, error);
  const Tables tables = tables_of(p, layout_);
  switch (layout_.path) {
    case Path::kPeriodicColumns: {
      column_table_ = upload(precision_bytes(tables.column_eigenvalues, fp64));
      outer_table_ = upload(precision_bytes(tables.outer_eigenvalues, fp64));
      fft::FftPass pass;
      pass.size = layout_.outer;
      for (int stage = 0; stage < fft::pow2_stages(layout_.log_outer); ++stage) {
        pass.radices.push_back(1 << fft::pow2_stage_bits(layout_.log_outer, stage));
      }
      stage_twiddles_ = upload(complex_bytes(fft::pass_twiddles(pass, false, fp64), fp64));
      const ColumnBlock block = column_block(layout_.log_outer, fp64);
      per_block_ = block.per_block;
      smem_stride_ = block.stride;
      smem_shift_ = block.shift;
      shared_bytes_ = static_cast<unsigned>(block.shared_bytes);
      break;
    }
    case Path::kPeriodicSpectrum:
      for (int axis = 0; axis < 3; ++axis) axis_tables_[axis] = upload(precision_bytes(tables.axis_eigenvalues[axis], fp64));
      break;
    case Path::kZSystems: {
      column_table_ = upload(precision_bytes(tables.diagonal, fp64));
      systems_.m = static_cast<int>(p.nz);
      systems_.batch = layout_.columns;
      systems_.off = tables.off;
      systems_.first_upper = tables.first_upper;
      systems_.last_lower = tables.last_lower;
      systems_.diagonal = column_table_;
      systems_.pinned = tables.pinned;
      systems_.scale = layout_.scale;
      if (tables.pinned >= 0) systems_.shift = shift_ = allocate(complex_size, error);
      const std::size_t scratch_bytes = tridiag::kernels::partition_buffer_bytes(
          static_cast<int>(p.nz), static_cast<int>(layout_.columns), true, static_cast<int>(complex_size));
      if (scratch_bytes > 0) scratch_ = allocate(scratch_bytes, error);
      break;
    }
  }
  if (!error->empty()) return;

  const cufftType forward_type = fp64 ? CUFFT_D2Z : CUFFT_R2C;
  const cufftType inverse_type = fp64 ? CUFFT_Z2D : CUFFT_C2R;
  std::vector<int> dims = layout_.fft_dims;
  const int rank = static_cast<int>(dims.size());
  const int batch = static_cast<int>(layout_.fft_batch);
  Call call{Api::cufftPlanMany};
  cufftResult status = fft::cufftPlanMany(call, &forward_, rank, dims.data(), nullptr, 1, 0, nullptr, 1, 0,
                                          forward_type, batch);
  if (status == CUFFT_SUCCESS) {
    status = fft::cufftPlanMany(call, &inverse_, rank, dims.data(), nullptr, 1, 0, nullptr, 1, 0, inverse_type, batch);
  }
  if (status != CUFFT_SUCCESS) *error = "cuFFT plan creation failed with status " + std::to_string(status);
}

Solver::~Solver() {
  Call call{Api::cufftDestroy};
  if (forward_ >= 0) fft::cufftDestroy(call, forward_);
  if (inverse_ >= 0) fft::cufftDestroy(call, inverse_);
  for (void* memory : allocations_) cudaFree(memory);
}

cufftResult Solver::set_stream(cudaStream_t stream) {
  Call call{Api::cufftSetStream};
  cufftResult status = fft::cufftSetStream(call, forward_, stream);
  if (status == CUFFT_SUCCESS) status = fft::cufftSetStream(call, inverse_, stream);
  if (status == CUFFT_SUCCESS) stream_ = stream;
  return status;
}

bool Solver::solve(const void* f, void* u, std::string* error) const {
  const Problem& p = problem_;
  const auto failed = [&](const char* step, const char* what) {
    *error = std::string(step) + ": " + what;
    return false;
  };
  const auto launched = [&](const char* step, cudaError_t status) {
    if (status == cudaSuccess) return true;
    cudaGetLastError();
    return failed(step, cudaGetErrorString(status));
  };
  // cuFFT's exec takes non-const input; the forward R2C (out of place) does not write it.
  void* input = const_cast<void*>(f);
  Call forward_call{p.fp64 ? Api::cufftExecD2Z : Api::cufftExecR2C};
  const cufftResult forward =
      p.fp64 ? fft::cufftExecD2Z(forward_call, forward_, static_cast<cufftDoubleReal*>(input),
                                 static_cast<cufftDoubleComplex*>(spectrum_))
             : fft::cufftExecR2C(forward_call, forward_, static_cast<cufftReal*>(input),
                                 static_cast<cufftComplex*>(spectrum_));
  if (forward != CUFFT_SUCCESS) return failed("forward FFT", ("cuFFT status " + std::to_string(forward)).c_str());

  switch (layout_.path) {
    case Path::kPeriodicColumns: {
      kernels::PeriodicColumns launch;
      launch.log_n = layout_.log_outer;
      launch.columns = layout_.columns;
      launch.per_block = per_block_;
      while ((1 << launch.log_per_block) < per_block_) ++launch.log_per_block;
      launch.stride = smem_stride_;
      launch.shift = smem_shift_;
      launch.shared_bytes = shared_bytes_;
      launch.stage_twiddles = stage_twiddles_;
      launch.column_eigenvalues = column_table_;
      launch.outer_eigenvalues = outer_table_;
      launch.scale = layout_.scale;
      launch.mean = mean_;
      launch.data = spectrum_;
      if (!launched("outer-axis FFT", p.fp64 ? kernels::launch_periodic_columns_f64(launch, stream_)
                                              : kernels::launch_periodic_columns_f32(launch, stream_))) {
        return false;
      }
      break;
    }
    case Path::kPeriodicSpectrum: {
      kernels::SpectrumScale launch;
      launch.half = p.nx / 2 + 1;
      launch.ny = p.ny;
      launch.nz = p.nz;
      launch.ex = axis_tables_[0];
      launch.ey = axis_tables_[1];
      launch.ez = axis_tables_[2];
      launch.scale = layout_.scale;
      launch.mean = mean_;
      launch.data = spectrum_;
      if (!launched("eigenvalue division", p.fp64 ? kernels::launch_scale_spectrum_f64(launch, stream_)
                                                   : kernels::launch_scale_spectrum_f32(launch, stream_))) {
        return false;
      }
      break;
    }
    case Path::kZSystems: {
      const int m = static_cast<int>(p.nz);
      const bool pinned = systems_.pinned >= 0;
      if (pinned && !launched("singular column's mean",
                               p.fp64 ? kernels::column_mean_f64(spectrum_, layout_.columns, m, shift_, stream_)
                                      : kernels::column_mean_f32(spectrum_, layout_.columns, m, shift_, stream_))) {
        return false;
      }
      const cudaError_t solved =
          p.fp64 ? tridiag::kernels::partition_solve_shifted(systems_, static_cast<cuDoubleComplex*>(spectrum_),
                                                             scratch_, stream_)
                 : tridiag::kernels::partition_solve_shifted(systems_, static_cast<cuComplex*>(spectrum_), scratch_,
                                                             stream_);
      if (!launched("z systems", solved)) return false;
      if (pinned && !launched("singular column's mean",
                               p.fp64 ? kernels::set_column_mean_f64(spectrum_, layout_.columns, m, mean_, stream_)
                                      : kernels::set_column_mean_f32(spectrum_, layout_.columns, m, mean_, stream_))) {
        return false;
      }
      break;
    }
  }

  Call inverse_call{p.fp64 ? Api::cufftExecZ2D : Api::cufftExecC2R};
  const cufftResult inverse =
      p.fp64 ? fft::cufftExecZ2D(inverse_call, inverse_, static_cast<cufftDoubleComplex*>(spectrum_),
                                 static_cast<cufftDoubleReal*>(u))
             : fft::cufftExecC2R(inverse_call, inverse_, static_cast<cufftComplex*>(spectrum_),
                                 static_cast<cufftReal*>(u));
  if (inverse != CUFFT_SUCCESS) return failed("inverse FFT", ("cuFFT status " + std::to_string(inverse)).c_str());
  return true;
}

}  // namespace idgpu::poisson
