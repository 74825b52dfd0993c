// fft/native.h's compiled_kernels_serve against the planner: every plan the native solver makes
// under the GPU's limits (DeviceLimits::convolution_powers_of_two) for a length with a prime factor
// above 13 whose Bluestein convolution fits one pass must find a compiled kernel for that pass
// (kernels/stockham_bluestein.cuh for powers of two, stockham_bluestein_mixed.cuh for the mixed
// lengths of kernels/fixed_radices.h): a plan whose M, radices, threads or layout no kernel
// takes would go to the vendor without a word under IDGPU_POLICY=native. The kernels' checks are
// host code, so no device is needed.
#include <catch2/catch.hpp>

#include "fft/native.h"
#include "fft/planner.h"

namespace {

using idgpu::fft::DeviceLimits;
using idgpu::fft::FftPlan;
using idgpu::fft::Kind;
using idgpu::fft::Precision;

bool prime(long long n) {
  if (n < 2) return false;
  for (long long q = 2; q * q <= n; ++q) {
    if (n % q == 0) return false;
  }
  return true;
}

// The native side's limits (fft/native.cpp): sm_90's block (the H100's and the H200's), or a
// smaller one's shared memory (sm_80 166912 B, sm_86 / sm_89 / sm_120 101376 B).
DeviceLimits gpu_limits(std::size_t shared = 0) {
  DeviceLimits limits = DeviceLimits::h100();
  if (shared > 0) limits.shared_bytes_per_block = shared;
  limits.convolution_powers_of_two = true;
  return limits;
}

}  // namespace

TEST_CASE("native FFT: every one-pass Bluestein plan of the GPU's limits has a compiled kernel",
          "[cpu][fft][bluestein]") {
  const DeviceLimits limits = gpu_limits();
  int mixed = 0;
  for (const Precision precision : {Precision::kSingle, Precision::kDouble}) {
    const long long largest = precision == Precision::kSingle ? 8192 : 4096;
    const std::size_t element = idgpu::fft::complex_element_bytes(precision);
    for (long long n = 17; n <= largest; ++n) {
      if (idgpu::fft::smooth13(n)) continue;
      CAPTURE(n, static_cast<int>(precision));
      const idgpu::fft::FftPlanResult planned = idgpu::fft::plan_c2c_any(n, 7, precision, limits);
      INFO(planned.reason);
      REQUIRE(planned.plan.has_value());
      REQUIRE(planned.plan->passes.size() == 1);
      CHECK(idgpu::fft::compiled_kernels_serve(*planned.plan));
      if (idgpu::fft::bluestein_mixed_kernel(planned.plan->passes[0].convolution_size, element)) ++mixed;
    }
  }
  CHECK(mixed > 2000);
}

// With less shared memory a block holds fewer points (fp32 12288 needs 104448 B, 16384 131072 B),
// so some lengths take several passes: a whole-length Bluestein plan of several passes is never
// over a mixed M, which only one-pass kernels run.
// sm_80's 166912 B still hold every one-pass convolution (all served, as on sm_90); with sm_86's
// 101376 B, fp32 from n = 5121 and fp64 from 2561 take multi-pass power-of-two plans (fp64 8192
// in passes shorter than the two-pass kinds' 2^7, so the vendor's there, as before the mixed
// lengths) or, for lengths with several factors, mixed plans whose prime passes have no kernel.
TEST_CASE("native FFT: Bluestein plans under smaller blocks' shared memory", "[cpu][fft][bluestein]") {
  for (const std::size_t shared : {std::size_t{166912}, std::size_t{101376}}) {
    const DeviceLimits limits = gpu_limits(shared);
    int several = 0;
    int mixed_one_pass = 0;
    for (const Precision precision : {Precision::kSingle, Precision::kDouble}) {
      const long long largest = precision == Precision::kSingle ? 8192 : 4096;
      const std::size_t element = idgpu::fft::complex_element_bytes(precision);
      for (long long n = 17; n <= largest; n += 3) {
        if (idgpu::fft::smooth13(n)) continue;
        CAPTURE(shared, n, static_cast<int>(precision));
        const idgpu::fft::FftPlanResult planned = idgpu::fft::plan_c2c_any(n, 7, precision, limits);
        INFO(planned.reason);
        REQUIRE(planned.plan.has_value());
        const FftPlan& plan = *planned.plan;
        if (shared == 166912) CHECK(idgpu::fft::compiled_kernels_serve(plan));
        bool mixed_m = false;
        for (const idgpu::fft::FftPass& pass : plan.passes) {
          mixed_m = mixed_m || idgpu::fft::bluestein_mixed_kernel(pass.convolution_size, element);
        }
        // (A mixed plan's later prime pass may take a mixed M too: such passes have no kernel
        // over any M, and those plans go to the vendor as they did over powers of two.)
        if (mixed_m && plan.passes.size() == 1) {
          ++mixed_one_pass;
          CHECK(idgpu::fft::compiled_kernels_serve(plan));
        }
        const long long m = idgpu::fft::bluestein_padded_length(plan);
        if (m > 0 && plan.passes.size() > 1) {
          ++several;
          CHECK((m & (m - 1)) == 0);
        }
      }
    }
    CHECK(mixed_one_pass > 300);
    if (shared == 101376) CHECK(several > 200);
  }
}

TEST_CASE("native FFT: real plans with a one-pass Bluestein real pass have a compiled kernel",
          "[cpu][fft][bluestein][real]") {
  const DeviceLimits limits = gpu_limits();
  for (const Precision precision : {Precision::kSingle, Precision::kDouble}) {
    const long long largest = precision == Precision::kSingle ? 8192 : 4096;
    for (long long p = 17; p <= largest; p += 2) {
      if (!prime(p)) continue;
      for (const long long n : {p, 2 * p}) {
        for (const Kind kind : {Kind::kR2C, Kind::kC2R}) {
          CAPTURE(n, static_cast<int>(precision), static_cast<int>(kind));
          const idgpu::fft::FftPlanResult planned = idgpu::fft::plan_real(kind, 1, &n, 3, precision, limits);
          INFO(planned.reason);
          REQUIRE(planned.plan.has_value());
          CHECK(idgpu::fft::compiled_kernels_serve(*planned.plan));
        }
      }
    }
  }
}

// The check can fail: a pass whose M no compiled kernel takes with its radices is refused.
TEST_CASE("native FFT: a Bluestein pass no kernel takes is refused", "[cpu][fft][bluestein]") {
  const DeviceLimits limits = gpu_limits();
  const idgpu::fft::FftPlanResult planned = idgpu::fft::plan_c2c_any(4099, 7, Precision::kSingle, limits);
  REQUIRE(planned.plan.has_value());
  REQUIRE(planned.plan->passes.size() == 1);
  CHECK(planned.plan->passes[0].convolution_size == 10240);
  CHECK(idgpu::fft::compiled_kernels_serve(*planned.plan));
  FftPlan wrong_length = *planned.plan;
  wrong_length.passes[0].convolution_size = 16384;  // the radices stay 10240's
  CHECK_FALSE(idgpu::fft::compiled_kernels_serve(wrong_length));
  FftPlan wrong_threads = *planned.plan;
  wrong_threads.passes[0].threads_per_transform += 32;
  CHECK_FALSE(idgpu::fft::compiled_kernels_serve(wrong_threads));
}
