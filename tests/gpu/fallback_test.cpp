// A native launch that fails falls back to the vendor where nothing of the caller's arrays can
// have been written, and fails the call otherwise (src/core/launch.h), on the GPU.
//
// Run with IDGPU_POLICY=native and IDGPU_FAULT_INJECT (read once per process, so one CTest entry
// per value):
//   launch         every native launch fails as if the device had no kernel image for it: every
//                  call must succeed, served by the vendor (the dispatch statistics say so), with
//                  the vendor's result;
//   second-launch  the second launch of each native call fails: a call of one launch runs
//                  natively; an FFT out of place (whose passes never write the input) falls back
//                  to the vendor; an FFT in place and a tridiagonal solve (x and B are both input
//                  and output) whose first launch ran must fail (CUFFT_EXEC_FAILED,
//                  CUSPARSE_STATUS_EXECUTION_FAILED), never hand back a result computed from
//                  overwritten input.
// Without the variable every call runs natively. Each result is compared with the vendor's on the
// same input (IDGPU_POLICY vendor through idgpuSetPolicy), within the rounding of either side.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#define IDGPU_NATIVE_TEST_MAIN
#include "native_test_support.h"

#include <cuComplex.h>
#include <cuda_runtime.h>
#include <cufft.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "idgpu/idgpu.h"

namespace {

using idgpu::test::kSkip;
using Cd = std::complex<double>;

enum class Fault { kNone, kEveryLaunch, kSecondLaunch };

Fault fault() {
  const char* value = std::getenv("IDGPU_FAULT_INJECT");
  if (value != nullptr && std::strcmp(value, "launch") == 0) return Fault::kEveryLaunch;
  if (value != nullptr && std::strcmp(value, "second-launch") == 0) return Fault::kSecondLaunch;
  return Fault::kNone;
}

struct Served {
  unsigned long long native = 0;
  unsigned long long vendor = 0;
};

Served served(const std::string& name) {
  idgpuCallStats_t stats{};
  REQUIRE(idgpuGetCallStatsByName(name.c_str(), &stats) == IDGPU_STATUS_SUCCESS);
  return {stats.nativeCalls, stats.vendorCalls};
}

template <class T>
Cd wide(const T& value) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return {value, 0.0};
  } else {
    return {value.x, value.y};
  }
}

template <class T>
T narrow(Cd value) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return static_cast<T>(value.real());
  } else {
    T out;
    out.x = static_cast<decltype(out.x)>(value.real());
    out.y = static_cast<decltype(out.y)>(value.imag());
    return out;
  }
}

template <class T>
constexpr double epsilon() {
  return std::is_same_v<T, float> || std::is_same_v<T, cuComplex> || std::is_same_v<T, cufftComplex> ? 5.96e-8
                                                                                                     : 1.11e-16;
}

// ||a - b|| / ||b||, in the 2-norm (FFT) or the max-norm (tridiagonal); infinite where a has an
// element that is not finite.
template <class T>
double difference(const std::vector<T>& a, const std::vector<T>& b, bool max_norm) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Cd x = wide(a[i]);
    if (!std::isfinite(x.real()) || !std::isfinite(x.imag())) return INFINITY;
    const Cd y = wide(b[i]);
    if (max_norm) {
      diff = std::max(diff, std::abs(x - y));
      norm = std::max(norm, std::abs(y));
    } else {
      diff += std::norm(x - y);
      norm += std::norm(y);
    }
  }
  return max_norm ? diff / norm : std::sqrt(diff / norm);
}

// ---- FFT -------------------------------------------------------------------------------------

template <class T>
struct FftTraits;
template <>
struct FftTraits<cufftComplex> {
  static constexpr cufftType kType = CUFFT_C2C;
  static constexpr const char* kExec = "cufftExecC2C";
  static cufftResult exec(cufftHandle plan, cufftComplex* in, cufftComplex* out) {
    return cufftExecC2C(plan, in, out, CUFFT_FORWARD);
  }
};
template <>
struct FftTraits<cufftDoubleComplex> {
  static constexpr cufftType kType = CUFFT_Z2Z;
  static constexpr const char* kExec = "cufftExecZ2Z";
  static cufftResult exec(cufftHandle plan, cufftDoubleComplex* in, cufftDoubleComplex* out) {
    return cufftExecZ2Z(plan, in, out, CUFFT_FORWARD);
  }
};

// Transforms of length n: one pass (n <= 4096), the cluster kernel on sm_90 (2^15), the fused
// kernel out of place and two passes in place (2^18), and several passes either way (2^22, past
// the fused kernel's 16 MB).
template <class T>
void check_fft(long long n, bool in_place) {
  const long long batch = std::max(1LL, (1LL << 22) / n);
  const std::size_t count = static_cast<std::size_t>(n * batch);
  CAPTURE(n, batch, in_place, FftTraits<T>::kExec);
  std::vector<T> x(count);
  std::mt19937_64 rng(static_cast<std::uint64_t>(n) * 2 + (in_place ? 1 : 0));
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (T& v : x) {
    do {
      v.x = static_cast<decltype(v.x)>(uniform(rng));
      v.y = static_cast<decltype(v.y)>(uniform(rng));
    } while (v.x == 0 && v.y == 0);
  }
  const std::size_t bytes = count * sizeof(T);
  T* d_in = nullptr;
  T* d_out = nullptr;
  REQUIRE(cudaMalloc(&d_in, bytes) == cudaSuccess);
  if (!in_place) REQUIRE(cudaMalloc(&d_out, bytes) == cudaSuccess);
  T* out = in_place ? d_in : d_out;

  std::vector<T> results[2];
  cufftResult status[2] = {CUFFT_SUCCESS, CUFFT_SUCCESS};
  Served delta;
  const idgpuPolicy_t policies[2] = {IDGPU_POLICY_VENDOR, IDGPU_POLICY_NATIVE};
  for (int side = 0; side < 2; ++side) {
    REQUIRE(idgpuSetPolicy(policies[side]) == IDGPU_STATUS_SUCCESS);
    cufftHandle plan = 0;
    REQUIRE(cufftPlan1d(&plan, static_cast<int>(n), FftTraits<T>::kType, static_cast<int>(batch)) == CUFFT_SUCCESS);
    REQUIRE(cudaMemcpy(d_in, x.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    if (!in_place) REQUIRE(cudaMemset(d_out, 0xff, bytes) == cudaSuccess);  // NaN
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const Served before = served(FftTraits<T>::kExec);
    status[side] = FftTraits<T>::exec(plan, d_in, out);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const Served after = served(FftTraits<T>::kExec);
    delta = {after.native - before.native, after.vendor - before.vendor};
    results[side].resize(count);
    REQUIRE(cudaMemcpy(results[side].data(), out, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    cufftDestroy(plan);
  }
  idgpuSetPolicy(IDGPU_POLICY_NATIVE);
  cudaFree(d_in);
  if (d_out != nullptr) cudaFree(d_out);

  REQUIRE(status[0] == CUFFT_SUCCESS);
  const double tolerance = 10.0 * epsilon<T>() * std::log2(static_cast<double>(n));
  const double versus_vendor = difference(results[1], results[0], false);
  INFO("native side: status " << status[1] << ", " << delta.native << " native and " << delta.vendor
                              << " vendor calls; relative difference from the vendor " << versus_vendor);
  switch (fault()) {
    case Fault::kEveryLaunch:
      CHECK(status[1] == CUFFT_SUCCESS);
      CHECK(delta.native == 0);
      CHECK(delta.vendor == 1);
      CHECK(versus_vendor <= tolerance);
      break;
    case Fault::kSecondLaunch:
      if (in_place && n > (1LL << 16)) {
        // Two passes or more in place (no single-pass or cluster kernel holds it): the first
        // pass may have overwritten the input.
        CHECK(status[1] == CUFFT_EXEC_FAILED);
      } else if (status[1] != CUFFT_EXEC_FAILED || !in_place) {
        CHECK(status[1] == CUFFT_SUCCESS);
        CHECK(versus_vendor <= tolerance);
        // Out of place, several passes: the vendor redid the call.
        if (!in_place && n == (1LL << 22)) CHECK(delta.vendor == 1);
      }
      break;
    case Fault::kNone:
      CHECK(status[1] == CUFFT_SUCCESS);
      CHECK(delta.native == 1);
      CHECK(versus_vendor <= tolerance);
      break;
  }
}

// ---- Tridiagonal -----------------------------------------------------------------------------

template <class T>
struct Gtsv;
template <>
struct Gtsv<float> {
  static constexpr const char* kLetter = "S";
  static constexpr auto strided_size = cusparseSgtsv2StridedBatch_bufferSizeExt;
  static constexpr auto strided = cusparseSgtsv2StridedBatch;
  static constexpr auto nopivot_size = cusparseSgtsv2_nopivot_bufferSizeExt;
  static constexpr auto nopivot = cusparseSgtsv2_nopivot;
  static constexpr auto pivot_size = cusparseSgtsv2_bufferSizeExt;
  static constexpr auto pivot = cusparseSgtsv2;
  static constexpr auto interleaved_size = cusparseSgtsvInterleavedBatch_bufferSizeExt;
  static constexpr auto interleaved = cusparseSgtsvInterleavedBatch;
};
template <>
struct Gtsv<double> {
  static constexpr const char* kLetter = "D";
  static constexpr auto strided_size = cusparseDgtsv2StridedBatch_bufferSizeExt;
  static constexpr auto strided = cusparseDgtsv2StridedBatch;
  static constexpr auto nopivot_size = cusparseDgtsv2_nopivot_bufferSizeExt;
  static constexpr auto nopivot = cusparseDgtsv2_nopivot;
  static constexpr auto pivot_size = cusparseDgtsv2_bufferSizeExt;
  static constexpr auto pivot = cusparseDgtsv2;
  static constexpr auto interleaved_size = cusparseDgtsvInterleavedBatch_bufferSizeExt;
  static constexpr auto interleaved = cusparseDgtsvInterleavedBatch;
};
template <>
struct Gtsv<cuDoubleComplex> {
  static constexpr const char* kLetter = "Z";
  static constexpr auto strided_size = cusparseZgtsv2StridedBatch_bufferSizeExt;
  static constexpr auto strided = cusparseZgtsv2StridedBatch;
  static constexpr auto nopivot_size = cusparseZgtsv2_nopivot_bufferSizeExt;
  static constexpr auto nopivot = cusparseZgtsv2_nopivot;
  static constexpr auto pivot_size = cusparseZgtsv2_bufferSizeExt;
  static constexpr auto pivot = cusparseZgtsv2;
  static constexpr auto interleaved_size = cusparseZgtsvInterleavedBatch_bufferSizeExt;
  static constexpr auto interleaved = cusparseZgtsvInterleavedBatch;
};

cusparseHandle_t handle() {
  static cusparseHandle_t instance = [] {
    cusparseHandle_t made = nullptr;
    REQUIRE(cusparseCreate(&made) == CUSPARSE_STATUS_SUCCESS);
    return made;
  }();
  return instance;
}

// The device arrays of one call: the three diagonals (matrix_count elements each) and the
// right-hand sides, which the solve overwrites (rhs_count).
template <class T>
struct Arrays {
  T* dl = nullptr;
  T* d = nullptr;
  T* du = nullptr;
  T* x = nullptr;
};

// One tridiagonal call: its exported name, its arrays' sizes and layout (row_of: the row of a
// matrix element, for the zero corners), its buffer size query and its solve.
template <class T>
struct TridiagCase {
  std::string api;
  std::size_t matrix_count;
  std::size_t rhs_count;
  int m;
  std::function<int(std::size_t)> row_of;
  std::function<cusparseStatus_t(const Arrays<T>&, size_t*)> buffer_size;
  std::function<cusparseStatus_t(const Arrays<T>&, void*)> solve;
  // More than one launch, the first of which writes what the solve reads back, whatever the
  // device: with the second launch failing, the call must fail.
  bool several_launches;
};

template <class T>
void check_tridiag(const TridiagCase<T>& c) {
  CAPTURE(c.api, c.m, c.matrix_count, c.rhs_count);
  // Diagonally dominant systems (every solver here serves those), random and never zero.
  std::mt19937_64 rng(std::hash<std::string>{}(c.api) ^ static_cast<std::uint64_t>(c.matrix_count));
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  const auto entry = [&] {
    double re = 0;
    while (re == 0) re = uniform(rng);
    return std::is_same_v<T, float> || std::is_same_v<T, double> ? Cd(re, 0) : Cd(re, uniform(rng));
  };
  std::vector<T> dl(c.matrix_count), d(c.matrix_count), du(c.matrix_count), b(c.rhs_count);
  for (std::size_t i = 0; i < c.matrix_count; ++i) {
    const int row = c.row_of(i);
    const Cd lower = row == 0 ? Cd(0) : entry();
    const Cd upper = row == c.m - 1 ? Cd(0) : entry();
    dl[i] = narrow<T>(lower);
    du[i] = narrow<T>(upper);
    d[i] = narrow<T>(Cd(1.5 * (std::abs(lower) + std::abs(upper)) + 0.5, 0) * (uniform(rng) < 0 ? -1.0 : 1.0));
  }
  for (T& v : b) v = narrow<T>(entry());

  Arrays<T> arrays;
  const std::size_t matrix_bytes = c.matrix_count * sizeof(T);
  const std::size_t rhs_bytes = c.rhs_count * sizeof(T);
  REQUIRE(cudaMalloc(&arrays.dl, matrix_bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(&arrays.d, matrix_bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(&arrays.du, matrix_bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(&arrays.x, rhs_bytes) == cudaSuccess);

  std::vector<T> results[2];
  cusparseStatus_t status[2] = {CUSPARSE_STATUS_SUCCESS, CUSPARSE_STATUS_SUCCESS};
  Served delta;
  const idgpuPolicy_t policies[2] = {IDGPU_POLICY_VENDOR, IDGPU_POLICY_NATIVE};
  for (int side = 0; side < 2; ++side) {
    REQUIRE(idgpuSetPolicy(policies[side]) == IDGPU_STATUS_SUCCESS);
    // Every array again: the vendor's algos 1 and 2 and the native ones may overwrite d and du.
    REQUIRE(cudaMemcpy(arrays.dl, dl.data(), matrix_bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(arrays.d, d.data(), matrix_bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(arrays.du, du.data(), matrix_bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemcpy(arrays.x, b.data(), rhs_bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    size_t buffer_bytes = 0;
    REQUIRE(c.buffer_size(arrays, &buffer_bytes) == CUSPARSE_STATUS_SUCCESS);
    void* buffer = nullptr;
    REQUIRE(cudaMalloc(&buffer, std::max<size_t>(buffer_bytes, 256)) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const Served before = served(c.api);
    status[side] = c.solve(arrays, buffer);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const Served after = served(c.api);
    delta = {after.native - before.native, after.vendor - before.vendor};
    results[side].resize(c.rhs_count);
    REQUIRE(cudaMemcpy(results[side].data(), arrays.x, rhs_bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    cudaFree(buffer);
  }
  idgpuSetPolicy(IDGPU_POLICY_NATIVE);
  cudaFree(arrays.dl);
  cudaFree(arrays.d);
  cudaFree(arrays.du);
  cudaFree(arrays.x);

  REQUIRE(status[0] == CUSPARSE_STATUS_SUCCESS);
  // Dominant systems are well conditioned: both sides within a few units of rounding of the
  // solution, so of each other.
  const double tolerance = 256 * epsilon<T>();
  const double versus_vendor = difference(results[1], results[0], true);
  INFO("native side: status " << status[1] << ", " << delta.native << " native and " << delta.vendor
                              << " vendor calls; relative difference from the vendor " << versus_vendor);
  switch (fault()) {
    case Fault::kEveryLaunch:
      CHECK(status[1] == CUSPARSE_STATUS_SUCCESS);
      CHECK(delta.native == 0);
      CHECK(delta.vendor == 1);
      CHECK(versus_vendor <= tolerance);
      break;
    case Fault::kSecondLaunch:
      if (c.several_launches) {
        CHECK(status[1] == CUSPARSE_STATUS_EXECUTION_FAILED);
      } else if (status[1] != CUSPARSE_STATUS_EXECUTION_FAILED) {
        // One launch (or a first launch that could not run): served, natively or by the vendor.
        CHECK(status[1] == CUSPARSE_STATUS_SUCCESS);
        CHECK(versus_vendor <= tolerance);
      }
      break;
    case Fault::kNone:
      CHECK(status[1] == CUSPARSE_STATUS_SUCCESS);
      CHECK(delta.native == 1);
      CHECK(versus_vendor <= tolerance);
      break;
  }
}

template <class T>
TridiagCase<T> strided_case(int m, int batch) {
  using G = Gtsv<T>;
  TridiagCase<T> c;
  c.api = std::string("cusparse") + G::kLetter + "gtsv2StridedBatch";
  c.m = m;
  c.matrix_count = c.rhs_count = static_cast<std::size_t>(m) * batch;
  c.row_of = [m](std::size_t i) { return static_cast<int>(i % m); };
  c.buffer_size = [m, batch](const Arrays<T>& a, size_t* size) {
    return G::strided_size(handle(), m, a.dl, a.d, a.du, a.x, batch, m, size);
  };
  c.solve = [m, batch](const Arrays<T>& a, void* buffer) {
    return G::strided(handle(), m, a.dl, a.d, a.du, a.x, batch, m, buffer);
  };
  c.several_launches = false;
  return c;
}

template <class T>
TridiagCase<T> interleaved_case(int algo, int m, int batch, bool several_launches = false) {
  using G = Gtsv<T>;
  TridiagCase<T> c;
  c.api = std::string("cusparse") + G::kLetter + "gtsvInterleavedBatch";
  c.m = m;
  c.matrix_count = c.rhs_count = static_cast<std::size_t>(m) * batch;
  c.row_of = [batch](std::size_t i) { return static_cast<int>(i / batch); };
  c.buffer_size = [algo, m, batch](const Arrays<T>& a, size_t* size) {
    return G::interleaved_size(handle(), algo, m, a.dl, a.d, a.du, a.x, batch, size);
  };
  c.solve = [algo, m, batch](const Arrays<T>& a, void* buffer) {
    return G::interleaved(handle(), algo, m, a.dl, a.d, a.du, a.x, batch, buffer);
  };
  c.several_launches = several_launches;
  return c;
}

// gtsv2_nopivot (pivot false) or gtsv2 (pivot true): one matrix, n columns of B (ldb = m).
template <class T>
TridiagCase<T> columns_case(bool pivot, int m, int n, bool several_launches) {
  using G = Gtsv<T>;
  TridiagCase<T> c;
  c.api = std::string("cusparse") + G::kLetter + (pivot ? "gtsv2" : "gtsv2_nopivot");
  c.m = m;
  c.matrix_count = static_cast<std::size_t>(m);
  c.rhs_count = static_cast<std::size_t>(m) * n;
  c.row_of = [](std::size_t i) { return static_cast<int>(i); };
  c.buffer_size = [pivot, m, n](const Arrays<T>& a, size_t* size) {
    return pivot ? G::pivot_size(handle(), m, n, a.dl, a.d, a.du, a.x, m, size)
                 : G::nopivot_size(handle(), m, n, a.dl, a.d, a.du, a.x, m, size);
  };
  c.solve = [pivot, m, n](const Arrays<T>& a, void* buffer) {
    return pivot ? G::pivot(handle(), m, n, a.dl, a.d, a.du, a.x, m, buffer)
                 : G::nopivot(handle(), m, n, a.dl, a.d, a.du, a.x, m, buffer);
  };
  c.several_launches = several_launches;
  return c;
}

template <class T>
void check_tridiag_calls() {
  // One block a system (one launch), and systems of tiles (one cooperative or streamed launch, or
  // three, depending on the device).
  check_tridiag(strided_case<T>(64, 4096));
  check_tridiag(strided_case<T>(65536, 16));
  // algo 0: one block, a cluster of blocks; algos 1 and 2: one launch.
  check_tridiag(interleaved_case<T>(0, 32, 8192));
  check_tridiag(interleaved_case<T>(0, 1024, 1024));
  check_tridiag(interleaved_case<T>(1, 32, 4096));
  check_tridiag(interleaved_case<T>(2, 32, 4096));
  // algos 1 and 2 on long systems: the batch gathered, then the pivoting solve (several launches).
  check_tridiag(interleaved_case<T>(1, 4096, 64, true));
  check_tridiag(interleaved_case<T>(2, 4096, 64, true));
  // gtsv2_nopivot: the columns kernel, and one long system.
  check_tridiag(columns_case<T>(false, 1000, 4, false));
  check_tridiag(columns_case<T>(false, 1 << 20, 1, false));
  // gtsv2: 2^20 rows reduce level by level before the one-block top (several launches).
  check_tridiag(columns_case<T>(true, 1 << 20, 1, true));
}

}  // namespace

TEST_CASE("native FFT launches that fail: the vendor where the input is intact", "[gpu][fallback][fft]") {
  for (const long long n : {256LL, 1LL << 15, 1LL << 18, 1LL << 22}) {
    for (const bool in_place : {false, true}) {
      check_fft<cufftComplex>(n, in_place);
      check_fft<cufftDoubleComplex>(n, in_place);
    }
  }
}

TEST_CASE("native tridiagonal launches that fail: the vendor where nothing ran", "[gpu][fallback][gtsv]") {
  check_tridiag_calls<float>();
  check_tridiag_calls<double>();
  check_tridiag_calls<cuDoubleComplex>();
}

