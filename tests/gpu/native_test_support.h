// What the Catch2 GPU tests of native kernels share (fft_native_test, fft_layouts_test,
// fallback_test): the skip code and main() that report "skipped" without a CUDA device, the
// dispatch statistics' native count of a function, the IDGPU_TEST_MAX_POINTS cap and the
// IDGPU_TEST_SAMPLE_EVERY thinning.
// Include after <catch2/catch.hpp> with CATCH_CONFIG_RUNNER defined; define
// IDGPU_NATIVE_TEST_MAIN in one translation unit to get main().
#pragma once

#include <cuda_runtime.h>

#include <complex>
#include <cstdio>
#include <cstdlib>

#include "idgpu/idgpu.h"

namespace idgpu::test {

constexpr int kSkip = 77;  // CTest's SKIP_RETURN_CODE for the GPU tests

// Calls of the exported function `name` that idgpu served natively so far in this process.
inline unsigned long long native_calls(const char* name) {
  idgpuCallStats_t stats{};
  REQUIRE(idgpuGetCallStatsByName(name, &stats) == IDGPU_STATUS_SUCCESS);
  return stats.nativeCalls;
}

inline bool power_of_two(long long n) { return n > 0 && (n & (n - 1)) == 0; }

// IDGPU_TEST_MAX_POINTS caps the points per call (cases above it are cut or skipped), for runs
// under compute-sanitizer.
inline long long max_points() {
  static const long long cap = [] {
    const char* value = std::getenv("IDGPU_TEST_MAX_POINTS");
    return value != nullptr ? std::atoll(value) : (1LL << 40);
  }();
  return cap;
}

// IDGPU_TEST_SAMPLE_EVERY=k keeps every k-th length of the long length sweeps (default 1: all),
// for runs under compute-sanitizer.
inline long long sample_every() {
  static const long long every = [] {
    const char* value = std::getenv("IDGPU_TEST_SAMPLE_EVERY");
    const long long parsed = value != nullptr ? std::atoll(value) : 1;
    return parsed > 0 ? parsed : 1;
  }();
  return every;
}

// A device complex value (float2 / double2 layout) in double.
template <class T>
std::complex<double> wide(const T& v) {
  return {v.x, v.y};
}

}  // namespace idgpu::test

#ifdef IDGPU_NATIVE_TEST_MAIN
int main(int argc, char** argv) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: skipped\n");
    return idgpu::test::kSkip;
  }
  return Catch::Session().run(argc, argv) == 0 ? 0 : 1;
}
#endif
