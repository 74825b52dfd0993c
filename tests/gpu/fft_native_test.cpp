// The native 1D C2C/Z2Z FFT against the vendor and a float64 reference, on the GPU.
//
// Every case runs the same random input (never zero) through the vendor's plan (IDGPU_POLICY
// vendor) and through ours (IDGPU_POLICY native, checked through the dispatch statistics to have
// really run natively), each output poisoned with NaN before the call. Three transforms of the
// batch (first, middle, last) are compared with a float64 transform on the host: a radix-2 FFT
// for powers of two, else the host executor of src/fft/stockham_reference (checked against a
// naive DFT in the CPU tests). The native relative L2 error must be no worse than 1.5x the
// vendor's (plus one unit of rounding, for lengths the vendor transforms exactly); every element
// of the native output must be finite and the whole output close to the vendor's, so an element
// never written or a wrong transform anywhere in the batch fails. Each side then runs the
// opposite direction on its own result, which must give n x, again within 1.5x of the vendor.
//
// Plans are made four ways in turn: cufftPlan1d, cufftPlanMany with NULL embeds, cufftCreate +
// cufftMakePlanMany64, and cufftCreate + cufftSetAutoAllocation(0) + cufftMakePlanMany64 +
// cufftSetWorkArea; half the cases run in place, and the native side runs on its own stream.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#define IDGPU_NATIVE_TEST_MAIN
#include "native_test_support.h"

#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "core/device.h"
#include "fft/planner.h"
#include "fft/convolution_reference.h"
#include "fft/tuning.h"
#include "fft/stockham_reference.h"
#include "idgpu/idgpu.h"

namespace {

using idgpu::test::kSkip;
using Cd = std::complex<double>;

template <class T>
struct Traits;
template <>
struct Traits<cufftComplex> {
  static constexpr cufftType kType = CUFFT_C2C;
  static constexpr double kEps = 5.96e-8;
  static constexpr const char* kExec = "cufftExecC2C";
  static cufftResult exec(cufftHandle plan, cufftComplex* in, cufftComplex* out, int direction) {
    return cufftExecC2C(plan, in, out, direction);
  }
};
template <>
struct Traits<cufftDoubleComplex> {
  static constexpr cufftType kType = CUFFT_Z2Z;
  static constexpr double kEps = 1.11e-16;
  static constexpr const char* kExec = "cufftExecZ2Z";
  static cufftResult exec(cufftHandle plan, cufftDoubleComplex* in, cufftDoubleComplex* out, int direction) {
    return cufftExecZ2Z(plan, in, out, direction);
  }
};

using idgpu::test::native_calls;

using idgpu::test::power_of_two;

using idgpu::test::max_points;

// float64 transform of x (length n), sign -1 forward, +1 inverse, unnormalised.
std::vector<Cd> reference_transform(const std::vector<Cd>& x, int sign) {
  const long long n = static_cast<long long>(x.size());
  if (!power_of_two(n)) {
    // Every length: Rader's and Bluestein's steps where n has a prime factor above 13.
    const idgpu::fft::FftPlanResult planned =
        idgpu::fft::plan_c2c_any(n, 1, idgpu::fft::Precision::kDouble, idgpu::fft::DeviceLimits::h100());
    REQUIRE(planned.plan.has_value());
    std::vector<Cd> y(x.size());
    idgpu::fft::reference::execute_any(*planned.plan, sign, x.data(), y.data());
    return y;
  }
  // Iterative radix-2: bit reversal, then butterflies with accurately computed twiddles.
  std::vector<Cd> y(x);
  for (long long i = 1, j = 0; i < n; ++i) {
    long long bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(y[i], y[j]);
  }
  std::vector<Cd> roots(static_cast<std::size_t>(std::max(n / 2, 1LL)));
  for (long long k = 0; k < n / 2; ++k) roots[k] = idgpu::fft::twiddle(k, n, sign);
  for (long long length = 2; length <= n; length <<= 1) {
    const long long step = n / length;
    for (long long start = 0; start < n; start += length) {
      for (long long k = 0; k < length / 2; ++k) {
        const Cd a = y[start + k];
        const Cd b = y[start + k + length / 2] * roots[k * step];
        y[start + k] = a + b;
        y[start + k + length / 2] = a - b;
      }
    }
  }
  return y;
}

using idgpu::test::wide;

// Relative L2 error of `got` against `want` over the listed transforms.
template <class T>
double relative_error(const std::vector<T>& got, const std::vector<std::vector<Cd>>& want,
                      const std::vector<long long>& transforms, long long n) {
  double diff = 0, norm = 0;
  for (std::size_t t = 0; t < transforms.size(); ++t) {
    for (long long i = 0; i < n; ++i) {
      diff += std::norm(wide(got[transforms[t] * n + i]) - want[t][i]);
      norm += std::norm(want[t][i]);
    }
  }
  return std::sqrt(diff / norm);
}

template <class T>
double relative_difference(const std::vector<T>& a, const std::vector<T>& b) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += std::norm(wide(a[i]) - wide(b[i]));
    norm += std::norm(wide(b[i]));
  }
  return std::sqrt(diff / norm);
}

enum class Maker { kPlan1d, kPlanMany, kMakeMany64, kOwnWorkArea };

// A plan made one of the four ways; destroyed (with its work area) at scope exit.
template <class T>
struct TestPlan {
  cufftHandle handle = 0;
  void* work = nullptr;
  size_t work_size = 0;

  TestPlan(Maker maker, long long n, long long batch) {
    int n32 = static_cast<int>(n);
    long long n64 = n;
    switch (maker) {
      case Maker::kPlan1d:
        REQUIRE(cufftPlan1d(&handle, n32, Traits<T>::kType, static_cast<int>(batch)) == CUFFT_SUCCESS);
        break;
      case Maker::kPlanMany:
        REQUIRE(cufftPlanMany(&handle, 1, &n32, nullptr, 1, 0, nullptr, 1, 0, Traits<T>::kType,
                              static_cast<int>(batch)) == CUFFT_SUCCESS);
        break;
      case Maker::kMakeMany64:
        REQUIRE(cufftCreate(&handle) == CUFFT_SUCCESS);
        REQUIRE(cufftMakePlanMany64(handle, 1, &n64, nullptr, 1, 0, nullptr, 1, 0, Traits<T>::kType, batch,
                                    &work_size) == CUFFT_SUCCESS);
        break;
      case Maker::kOwnWorkArea:
        REQUIRE(cufftCreate(&handle) == CUFFT_SUCCESS);
        REQUIRE(cufftSetAutoAllocation(handle, 0) == CUFFT_SUCCESS);
        REQUIRE(cufftMakePlanMany64(handle, 1, &n64, nullptr, 1, 0, nullptr, 1, 0, Traits<T>::kType, batch,
                                    &work_size) == CUFFT_SUCCESS);
        size_t reported = 0;
        REQUIRE(cufftGetSize(handle, &reported) == CUFFT_SUCCESS);
        REQUIRE(reported == work_size);
        if (work_size > 0) {
          REQUIRE(cudaMalloc(&work, work_size) == cudaSuccess);
          REQUIRE(cufftSetWorkArea(handle, work) == CUFFT_SUCCESS);
        }
        break;
    }
  }
  ~TestPlan() {
    cufftDestroy(handle);
    if (work != nullptr) cudaFree(work);
  }
};

struct SideResult {
  double error = 0;       // against float64, checked transforms
  double round_trip = 0;  // opposite direction on the result, against n x
  size_t work_size = 0;
};

template <class T>
void run_case(long long n, long long batch, int direction, bool in_place, Maker maker, std::uint64_t seed) {
  if (n * batch > max_points()) batch = std::max(1LL, max_points() / n);
  if (n > max_points()) return;
  const long long total = n * batch;
  CAPTURE(n, batch, direction, in_place, static_cast<int>(maker), sizeof(T));
  std::vector<T> x(static_cast<std::size_t>(total));
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (T& v : x) {
    do {
      v.x = static_cast<decltype(v.x)>(uniform(engine));
      v.y = static_cast<decltype(v.y)>(uniform(engine));
    } while (v.x == 0 && v.y == 0);
  }
  std::vector<long long> transforms = {0, batch / 2, batch - 1};
  transforms.erase(std::unique(transforms.begin(), transforms.end()), transforms.end());
  std::vector<std::vector<Cd>> want;
  for (long long t : transforms) {
    std::vector<Cd> one(static_cast<std::size_t>(n));
    for (long long i = 0; i < n; ++i) one[i] = wide(x[t * n + i]);
    want.push_back(reference_transform(one, direction == CUFFT_FORWARD ? -1 : +1));
  }

  const std::size_t bytes = static_cast<std::size_t>(total) * sizeof(T);
  T* d_in = nullptr;
  T* d_out = nullptr;
  REQUIRE(cudaMalloc(&d_in, bytes) == cudaSuccess);
  if (!in_place) REQUIRE(cudaMalloc(&d_out, bytes) == cudaSuccess);
  T* out = in_place ? d_in : d_out;
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);

  std::vector<T> results[2];
  SideResult sides[2];
  const idgpuPolicy_t policies[2] = {IDGPU_POLICY_VENDOR, IDGPU_POLICY_NATIVE};
  for (int side = 0; side < 2; ++side) {
    REQUIRE(idgpuSetPolicy(policies[side]) == IDGPU_STATUS_SUCCESS);
    TestPlan<T> plan(maker, n, batch);
    sides[side].work_size = plan.work_size;
    if (side == 1) REQUIRE(cufftSetStream(plan.handle, stream) == CUFFT_SUCCESS);
    REQUIRE(cudaMemcpy(d_in, x.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    if (!in_place) REQUIRE(cudaMemset(d_out, 0xff, bytes) == cudaSuccess);  // NaN
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const unsigned long long before = native_calls(Traits<T>::kExec);
    REQUIRE(Traits<T>::exec(plan.handle, d_in, out, direction) == CUFFT_SUCCESS);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    // The native side really ran our kernels; the vendor side did not.
    REQUIRE(native_calls(Traits<T>::kExec) - before == (side == 1 ? 1u : 0u));
    results[side].resize(x.size());
    REQUIRE(cudaMemcpy(results[side].data(), out, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    sides[side].error = relative_error(results[side], want, transforms, n);

    // The opposite direction, in place on the result: n x.
    REQUIRE(Traits<T>::exec(plan.handle, out, out, -direction) == CUFFT_SUCCESS);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<T> back(x.size());
    REQUIRE(cudaMemcpy(back.data(), out, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    double diff = 0, norm = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const Cd scaled = wide(x[i]) * static_cast<double>(n);
      diff += std::norm(wide(back[i]) - scaled);
      norm += std::norm(scaled);
    }
    sides[side].round_trip = std::sqrt(diff / norm);
  }
  idgpuSetPolicy(IDGPU_POLICY_AUTO);
  cudaStreamDestroy(stream);
  cudaFree(d_in);
  if (d_out != nullptr) cudaFree(d_out);

  const double eps = Traits<T>::kEps;
  std::size_t not_finite = 0;
  for (const T& v : results[1]) not_finite += std::isfinite(v.x) && std::isfinite(v.y) ? 0 : 1;
  const double versus_vendor = relative_difference(results[1], results[0]);
  INFO("error vs float64: native " << sides[1].error << ", vendor " << sides[0].error << "; round trip: native "
                                   << sides[1].round_trip << ", vendor " << sides[0].round_trip
                                   << "; native vs vendor " << versus_vendor << "; work area: native "
                                   << sides[1].work_size << " B, vendor " << sides[0].work_size << " B");
  CHECK(not_finite == 0);
  CHECK(sides[0].error < 1e3 * eps);  // the comparison is meaningful
  CHECK(sides[1].error <= 1.5 * sides[0].error + eps);
  CHECK(sides[1].round_trip <= 1.5 * sides[0].round_trip + eps);
  CHECK(versus_vendor <= 2.0 * (sides[0].error + sides[1].error) + 2 * eps);
  if (maker == Maker::kMakeMany64 || maker == Maker::kOwnWorkArea) CHECK(sides[1].work_size <= sides[0].work_size);
}

constexpr Maker kMakers[] = {Maker::kPlan1d, Maker::kPlanMany, Maker::kMakeMany64, Maker::kOwnWorkArea};

template <class T>
void run_sizes(const std::vector<long long>& sizes, long long points, std::uint64_t seed) {
  int index = 0;
  for (long long n : sizes) {
    const long long batch = std::max(1LL, points / n);
    run_case<T>(n, batch, index % 2 == 0 ? CUFFT_FORWARD : CUFFT_INVERSE, index % 2 == 1, kMakers[index % 4],
                seed + static_cast<std::uint64_t>(index));
    ++index;
  }
}

std::vector<long long> powers_of_two(int from, int to) {
  std::vector<long long> sizes;
  for (int bits = from; bits <= to; ++bits) sizes.push_back(1LL << bits);
  return sizes;
}

const std::vector<long long> kMixed = {3,     5,     6,     7,     11,    12,     13,     15,     100,     243,
                                       1000,  1331,  2187,  2197,  3125,  6561,   10000,  12288,  14336,   14641,
                                       59049, 78125, 117649, 1000000, 3LL << 20};

}  // namespace

TEST_CASE("native C2C: powers of two 2..2^27", "[fft][c2c]") {
  run_sizes<cufftComplex>(powers_of_two(1, 26), 1LL << 22, 100);
  run_case<cufftComplex>(1LL << 27, 1, CUFFT_FORWARD, false, Maker::kOwnWorkArea, 1);
  run_case<cufftComplex>(1LL << 27, 1, CUFFT_INVERSE, true, Maker::kPlan1d, 2);
  run_case<cufftComplex>(16, 1LL << 21, CUFFT_FORWARD, false, Maker::kPlanMany, 3);  // millions of transforms
}

TEST_CASE("native Z2Z: powers of two 2..2^26", "[fft][z2z]") {
  run_sizes<cufftDoubleComplex>(powers_of_two(1, 25), 1LL << 21, 200);
  run_case<cufftDoubleComplex>(1LL << 26, 1, CUFFT_FORWARD, true, Maker::kOwnWorkArea, 4);
  run_case<cufftDoubleComplex>(8, 1LL << 21, CUFFT_INVERSE, false, Maker::kPlan1d, 5);
}

// The lengths that run as one cluster kernel on sm_90 (fft/stockham_index.h): each both ways,
// in and out of place, one transform (one cluster) and an odd batch.
TEST_CASE("native C2C and Z2Z: cluster kernel lengths", "[fft][cluster]") {
  std::uint64_t seed = 500;
  for (int bits = 14; bits <= 17; ++bits) {
    run_case<cufftComplex>(1LL << bits, 1, CUFFT_INVERSE, true, Maker::kPlan1d, ++seed);
    run_case<cufftComplex>(1LL << bits, 5, CUFFT_FORWARD, false, Maker::kMakeMany64, ++seed);
  }
  for (int bits = 13; bits <= 16; ++bits) {
    run_case<cufftDoubleComplex>(1LL << bits, 1, CUFFT_FORWARD, true, Maker::kPlanMany, ++seed);
    run_case<cufftDoubleComplex>(1LL << bits, 3, CUFFT_INVERSE, false, Maker::kOwnWorkArea, ++seed);
  }
}

// Two-pass lengths whose passes run as cluster column passes (fft/stockham_index.h): several
// transforms (clusters of every transform's lines), both ways, in and out of place.
TEST_CASE("native C2C and Z2Z: cluster column passes over several transforms", "[fft][cluster-columns]") {
  run_case<cufftComplex>(1LL << 22, 3, CUFFT_FORWARD, false, Maker::kPlanMany, 601);
  run_case<cufftComplex>(1LL << 23, 2, CUFFT_INVERSE, true, Maker::kMakeMany64, 602);
  run_case<cufftComplex>(1LL << 24, 2, CUFFT_FORWARD, true, Maker::kOwnWorkArea, 603);
  run_case<cufftComplex>(1LL << 25, 1, CUFFT_INVERSE, false, Maker::kPlan1d, 604);
  run_case<cufftDoubleComplex>(1LL << 22, 3, CUFFT_INVERSE, false, Maker::kPlanMany, 605);
  run_case<cufftDoubleComplex>(1LL << 23, 2, CUFFT_FORWARD, true, Maker::kMakeMany64, 606);
  run_case<cufftDoubleComplex>(1LL << 25, 1, CUFFT_FORWARD, false, Maker::kOwnWorkArea, 607);
}

// The lengths that run as one fused kernel out of place (fft/planner.h, FftFused): one transform
// (whose last-pass tiles all wait on its first pass), an odd batch, and 2^22 points per call,
// both directions; in place they run as two launches (covered above and by every round trip).
TEST_CASE("native C2C and Z2Z: fused two-pass lengths", "[fft][fused]") {
  std::uint64_t seed = 700;
  for (int bits = 17; bits <= 22; ++bits) {
    const long long n = 1LL << bits;
    run_case<cufftComplex>(n, 1, CUFFT_FORWARD, false, Maker::kPlan1d, ++seed);
    if (bits <= 21) {
      run_case<cufftComplex>(n, 3, CUFFT_INVERSE, false, Maker::kMakeMany64, ++seed);
      run_case<cufftComplex>(n, (1LL << 22) / n, bits % 2 == 0 ? CUFFT_FORWARD : CUFFT_INVERSE, false,
                             Maker::kPlanMany, ++seed);
    }
  }
  for (int bits = 17; bits <= 21; ++bits) {
    const long long n = 1LL << bits;
    run_case<cufftDoubleComplex>(n, 1, CUFFT_INVERSE, false, Maker::kOwnWorkArea, ++seed);
    if (bits <= 20) {
      run_case<cufftDoubleComplex>(n, 3, CUFFT_FORWARD, false, Maker::kPlan1d, ++seed);
      run_case<cufftDoubleComplex>(n, (1LL << 21) / n, bits % 2 == 0 ? CUFFT_INVERSE : CUFFT_FORWARD, false,
                                   Maker::kMakeMany64, ++seed);
    }
  }
}

TEST_CASE("native C2C and Z2Z: mixed radices", "[fft][mixed]") {
  run_sizes<cufftComplex>(kMixed, 1LL << 22, 300);
  run_sizes<cufftDoubleComplex>(kMixed, 1LL << 21, 400);
}

// Every length 2..4096 whose prime factors are at most 13 (489 of them), in fp32 and fp64 (every
// second one in fp64), the makers, directions and in/out of place in turn, 2^14 points a call:
// the power-of-two kernels, the fixed-sequence kernels (kernels/fixed_radices.h) and the general
// kernel, each against the vendor and the float64 reference. Then the fixed sequences' lengths
// again with odd batches and millions of points a call.
TEST_CASE("native C2C and Z2Z: every length 2..4096 with factors up to 13", "[fft][mixed][smooth]") {
  std::vector<long long> f32, f64;
  long long counted = 0;
  for (long long n = 2; n <= 4096; ++n) {
    if (!idgpu::fft::smooth13(n) || counted++ % idgpu::test::sample_every() != 0) continue;
    f32.push_back(n);
    if (counted % 2 == 1) f64.push_back(n);
  }
  run_sizes<cufftComplex>(f32, 1LL << 14, 1100);
  run_sizes<cufftDoubleComplex>(f64, 1LL << 14, 1200);
  std::uint64_t seed = 1300;
  long long index = 0;
  for (long long n : {312LL, 384LL, 1080LL, 2288LL, 2730LL, 3850LL, 4095LL}) {
    if (index++ % idgpu::test::sample_every() != 0) continue;
    run_case<cufftComplex>(n, 37, CUFFT_INVERSE, true, Maker::kOwnWorkArea, ++seed);
    run_case<cufftComplex>(n, (1LL << 22) / n, CUFFT_FORWARD, false, Maker::kMakeMany64, ++seed);
    run_case<cufftDoubleComplex>(n, (1LL << 21) / n, CUFFT_FORWARD, true, Maker::kPlanMany, ++seed);
  }
}

// The fp64 single passes whose stages widen to fit 512 threads (FftPass::widened_limit; their
// fixed kernels only): both directions, in and out of place, every maker, odd batches and
// millions of points a call.
TEST_CASE("native Z2Z: single passes with widened stages", "[fft][mixed][widened]") {
  std::uint64_t seed = 1400;
  for (long long n : {3850LL, 4004LL, 4095LL, 6561LL, 10000LL}) {
    run_case<cufftDoubleComplex>(n, 1, CUFFT_FORWARD, false, Maker::kPlan1d, ++seed);
    run_case<cufftDoubleComplex>(n, 37, CUFFT_INVERSE, true, Maker::kOwnWorkArea, ++seed);
    run_case<cufftDoubleComplex>(n, 3, CUFFT_INVERSE, false, Maker::kPlanMany, ++seed);
    run_case<cufftDoubleComplex>(n, (1LL << 21) / n, CUFFT_FORWARD, true, Maker::kMakeMany64, ++seed);
  }
}

// Mixed-radix passes on kernels compiled at run time (fft/runtime_kernels.h; ctest's
// gpu.fft.runtime runs these and [smooth] with IDGPU_FFT_RUNTIME_KERNELS=wait over a cache that
// idgpu-fft-cache filled): 3773 = 11 7 7 7 (539 butterflies a stage; the wide layout), single
// passes of four and five odd radices, and two-pass plans whose passes are
// run-time sequences, both directions, in and out of place, odd batches and millions of points.
TEST_CASE("native C2C and Z2Z: run-time compiled fixed sequences", "[fft][mixed][runtime]") {
  long long launches_before = 0;
  REQUIRE(idgpuGetFftRuntimeKernelStats(nullptr, &launches_before) == IDGPU_STATUS_SUCCESS);
  std::uint64_t seed = 1500;
  for (long long n : {3773LL, 13013LL, 30030LL, 45045LL, 161051LL}) {
    run_case<cufftComplex>(n, 1, CUFFT_FORWARD, false, Maker::kPlan1d, ++seed);
    run_case<cufftComplex>(n, 37, CUFFT_INVERSE, true, Maker::kOwnWorkArea, ++seed);
    run_case<cufftComplex>(n, std::max(1LL, (1LL << 22) / n), CUFFT_FORWARD, false, Maker::kMakeMany64, ++seed);
    run_case<cufftDoubleComplex>(n, 3, CUFFT_INVERSE, false, Maker::kPlanMany, ++seed);
    run_case<cufftDoubleComplex>(n, std::max(1LL, (1LL << 21) / n), CUFFT_FORWARD, true, Maker::kMakeMany64, ++seed);
  }
  // One transform a thread (the thread layout, fft/stockham_index.h): every length with factors up
  // to 13 that is not a power of two, fp32 to 64 points, fp64 to 32: one transform, an odd batch
  // (a short last block), millions of transforms; in and out of place.
  long long launches_before_short = 0;
  REQUIRE(idgpuGetFftRuntimeKernelStats(nullptr, &launches_before_short) == IDGPU_STATUS_SUCCESS);
  for (long long n = 3; n <= 64; ++n) {
    if (!idgpu::fft::smooth13(n) || (n & (n - 1)) == 0) continue;
    run_case<cufftComplex>(n, 1, CUFFT_INVERSE, false, Maker::kPlan1d, ++seed);
    run_case<cufftComplex>(n, 1001, CUFFT_FORWARD, true, Maker::kPlanMany, ++seed);
    run_case<cufftComplex>(n, (1LL << 23) / n, n % 2 == 0 ? CUFFT_FORWARD : CUFFT_INVERSE, n % 3 == 0,
                           Maker::kMakeMany64, ++seed);
    if (n > 32) continue;
    run_case<cufftDoubleComplex>(n, 999, CUFFT_INVERSE, false, Maker::kOwnWorkArea, ++seed);
    run_case<cufftDoubleComplex>(n, (1LL << 22) / n, CUFFT_FORWARD, n % 2 == 0, Maker::kMakeMany64, ++seed);
  }
  // The wide layout (FftPass::wide, IDGPU_FFT_WIDE_ELEMENTS at its default): single passes whose
  // row layout took more than 512 (fp32) / 256 (fp64) threads a transform, their stages spread over
  // about N / E threads (one transform a block at this E); one transform, odd batches and millions
  // of points, in and out of place, both directions. And fp64 5005 (715 threads, too long for the
  // wide layout), whose run-time stages widen to 512 threads instead.
  long long launches_before_wide = 0;
  REQUIRE(idgpuGetFftRuntimeKernelStats(nullptr, &launches_before_wide) == IDGPU_STATUS_SUCCESS);
  for (long long n : {3640LL, 3773LL, 3780LL, 3920LL, 4032LL, 1820LL, 2240LL, 2310LL, 4050LL, 5005LL}) {
    const bool both = n >= 3640 && n <= 4032;  // fp32 wide too
    if (both) {
      run_case<cufftComplex>(n, 1, CUFFT_FORWARD, true, Maker::kPlan1d, ++seed);
      run_case<cufftComplex>(n, 1001, CUFFT_INVERSE, false, Maker::kPlanMany, ++seed);
      run_case<cufftComplex>(n, (1LL << 23) / n, n % 2 == 0 ? CUFFT_FORWARD : CUFFT_INVERSE, n % 3 == 0,
                             Maker::kMakeMany64, ++seed);
    }
    run_case<cufftDoubleComplex>(n, 1, CUFFT_INVERSE, false, Maker::kPlan1d, ++seed);
    run_case<cufftDoubleComplex>(n, 999, CUFFT_FORWARD, false, Maker::kOwnWorkArea, ++seed);
    run_case<cufftDoubleComplex>(n, (1LL << 22) / n, CUFFT_INVERSE, n % 2 == 1, Maker::kMakeMany64, ++seed);
  }
  // With IDGPU_FFT_RUNTIME_KERNELS=wait (gpu.fft.runtime) every plan above waited for its kernels:
  // they must have run, not the general kernel in their place.
  const char* mode = std::getenv("IDGPU_FFT_RUNTIME_KERNELS");
  if (mode != nullptr && std::string(mode) == "wait") {
    int loaded = 0;
    long long launches = 0;
    REQUIRE(idgpuGetFftRuntimeKernelStats(&loaded, &launches) == IDGPU_STATUS_SUCCESS);
    CHECK(loaded > 0);
    CHECK(launches > launches_before);
    // The short lengths' own plans launched run-time kernels too (their thread-layout kernels,
    // always compiled at run time), not only the longer lengths above; and the wide ones (the
    // counter is read before each loop: each check is about one loop).
    CHECK(launches_before_wide > launches_before_short);
    CHECK(launches > launches_before_wide);
  }
}

// Lengths with a prime factor above 13 run as one Bluestein pass (kernels/stockham_bluestein.cuh,
// and stockham_bluestein_mixed.cuh where M is a mixed length with a kernel: fp32 2049..3072 and
// 4097..6144, fp64 2049..2560) up to 8192 points in fp32 and 4096 in fp64: every such length from 17 on in fp32, every third
// one and every prime in fp64 (the makers, directions and in/out of place in turn), the largest
// lengths and primes with small and odd batches, and millions of short transforms.
TEST_CASE("native C2C and Z2Z: one-pass Bluestein at every length with a prime factor above 13",
          "[fft][bluestein]") {
  std::vector<long long> f32, f64;
  long long counted = 0;
  for (long long n = 17; n <= 4096; ++n) {
    if (idgpu::fft::smooth13(n) || counted++ % idgpu::test::sample_every() != 0) continue;
    f32.push_back(n);
    bool prime = true;
    for (long long q = 2; q * q <= n && prime; ++q) prime = n % q != 0;
    if (prime || n % 3 == 0) f64.push_back(n);
  }
  run_sizes<cufftComplex>(f32, 1LL << 13, 900);
  run_sizes<cufftDoubleComplex>(f64, 1LL << 13, 910);
  std::uint64_t seed = 920;
  // (5119, 5147 and 6143 pad to the mixed 10240 and 12288 points, 4099 to 10240, 6151 to 2^14.)
  for (long long n : {4097LL, 4099LL, 5003LL, 5119LL, 5147LL, 6143LL, 6151LL, 8191LL}) {
    run_case<cufftComplex>(n, 1, CUFFT_FORWARD, false, Maker::kPlan1d, ++seed);
    run_case<cufftComplex>(n, 7, CUFFT_INVERSE, true, Maker::kOwnWorkArea, ++seed);
    run_case<cufftComplex>(n, (1LL << 22) / n, CUFFT_FORWARD, false, Maker::kMakeMany64, ++seed);
  }
  // The fp32 primes the tuning table serves natively (4099..8191): every 8th, the makers,
  // directions and in/out of place in turn.
  long long prime_index = 0;
  for (long long n = 4099; n <= 8191; n += 2) {
    bool prime = true;
    for (long long q = 3; q * q <= n && prime; q += 2) prime = n % q != 0;
    if (!prime || prime_index++ % (8 * idgpu::test::sample_every()) != 0) continue;
    const auto maker = static_cast<Maker>(prime_index % 4);
    run_case<cufftComplex>(n, 3, prime_index % 3 == 0 ? CUFFT_INVERSE : CUFFT_FORWARD, prime_index % 2 == 0, maker,
                           ++seed);
  }
  for (long long n : {4091LL, 4093LL}) {
    run_case<cufftDoubleComplex>(n, 1, CUFFT_INVERSE, false, Maker::kPlanMany, ++seed);
    run_case<cufftDoubleComplex>(n, (1LL << 21) / n, CUFFT_FORWARD, true, Maker::kMakeMany64, ++seed);
  }
  run_case<cufftComplex>(17, 1LL << 21, CUFFT_FORWARD, false, Maker::kPlanMany, ++seed);
  run_case<cufftDoubleComplex>(19, 1LL << 20, CUFFT_INVERSE, false, Maker::kPlan1d, ++seed);
}

// Above one block (fp32 n > 8192, fp64 n > 4096) Bluestein's convolution over the next power of
// two M runs as two passes a side (kernels/stockham_pow2.cuh's Bluestein kinds): three launches,
// the first loading the n points times the chirp, the middle multiplying by the spectrum between
// the forward and inverse stages, the last storing n points times the chirp. Primes, a composite
// with a large prime factor (3 x 10007), both directions, in and out of place, every maker,
// batches of 1 to hundreds.
TEST_CASE("native C2C and Z2Z: two-pass Bluestein above one block", "[fft][bluestein]") {
  std::uint64_t seed = 960;
  run_case<cufftComplex>(8209, 5, CUFFT_FORWARD, false, Maker::kPlan1d, ++seed);
  run_case<cufftComplex>(10007, 3, CUFFT_INVERSE, true, Maker::kPlanMany, ++seed);
  run_case<cufftComplex>(30021, 2, CUFFT_FORWARD, true, Maker::kMakeMany64, ++seed);
  run_case<cufftComplex>(65521, 4, CUFFT_INVERSE, false, Maker::kOwnWorkArea, ++seed);
  run_case<cufftComplex>(1048573, 1, CUFFT_FORWARD, false, Maker::kMakeMany64, ++seed);
  run_case<cufftComplex>(10007, (1LL << 22) / 10007, CUFFT_FORWARD, false, Maker::kMakeMany64, ++seed);
  run_case<cufftDoubleComplex>(4099, 3, CUFFT_FORWARD, false, Maker::kPlanMany, ++seed);
  run_case<cufftDoubleComplex>(8191, 2, CUFFT_INVERSE, true, Maker::kOwnWorkArea, ++seed);
  run_case<cufftDoubleComplex>(65521, 1, CUFFT_FORWARD, true, Maker::kPlan1d, ++seed);
  run_case<cufftDoubleComplex>(1048573, 1, CUFFT_INVERSE, false, Maker::kMakeMany64, ++seed);
  run_case<cufftDoubleComplex>(1048573, 4, CUFFT_FORWARD, false, Maker::kPlanMany, ++seed);
  run_case<cufftComplex>(1048573, 4, CUFFT_INVERSE, true, Maker::kPlan1d, ++seed);
  run_case<cufftDoubleComplex>(1048573, 32, CUFFT_FORWARD, true, Maker::kPlanMany, ++seed);
}

// Under the auto policy a prime of the tuning table's rows runs natively on the device classes
// the rows were measured on, and a prime outside them on the vendor: the table's own answer for
// this device (fft/tuning.h) against the calls idgpu served natively. A row the kernels declined
// would go to the vendor without a word; this is where it shows. The rows need 2^26 (fp32) /
// 2^25 (fp64) points per call, so runs capped below that (sanitizers) skip it.
TEST_CASE("auto policy: the tuning table's prime rows run natively, other primes on the vendor",
          "[fft][bluestein]") {
  if (idgpu::test::max_points() < (1LL << 26)) return;
  // IDGPU_FFT_MEASURE would time the primes outside the rows and could rightly pick native.
  if (std::getenv("IDGPU_FFT_MEASURE") != nullptr) return;
  const idgpu::DeviceClass device{idgpu::current_device_arch(), idgpu::current_device_memory_gbs()};
  const bool measured_device = idgpu::classes_of(device) != 0;
  if (!measured_device) WARN("a device of no measured class: every prime must go to the vendor");
  const struct {
    long long n;
    bool f64;
  } cases[] = {{4099, false},   {8191, false},   {4093, false},   {3001, true},    {2039, true},
               {100003, false}, {131101, false}, {1048573, true}, {4194301, true}};
  for (const auto& c : cases) {
    const long long points = c.f64 ? 1LL << 25 : 1LL << 26;
    const long long batch = points / c.n;
    const char* reason = nullptr;
    const bool expected = idgpu::fft::native_fft_wins(
        c.n, batch, c.f64 ? idgpu::fft::Precision::kDouble : idgpu::fft::Precision::kSingle, device, &reason);
    CAPTURE(c.n, c.f64, batch, device.arch, device.memory_gbs, expected);
    INFO("tuning table: " << (reason != nullptr ? reason : "native"));
    // On the H100 and the H200 the rows serve fp32 4099, 8191 and 100003 (two passes, padded 2.6x)
    // and fp64 3001 and 1048573 (padded 2x), not 4093 / 2039, nor 131101 (padded 4x) or fp64
    // 4194301.
    if (measured_device) {
      CHECK(expected == (c.n == 4099 || c.n == 8191 || c.n == 3001 || c.n == 100003 || c.n == 1048573));
    }
    const std::size_t element = c.f64 ? sizeof(cufftDoubleComplex) : sizeof(cufftComplex);
    const std::size_t bytes = static_cast<std::size_t>(c.n * batch) * element;
    void* d_in = nullptr;
    void* d_out = nullptr;
    struct Release {
      void*& in;
      void*& out;
      cufftHandle plan = 0;
      ~Release() {
        if (plan != 0) cufftDestroy(plan);
        cudaFree(in);
        cudaFree(out);
      }
    } release{d_in, d_out};
    REQUIRE(cudaMalloc(&d_in, bytes) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_out, bytes) == cudaSuccess);
    REQUIRE(cudaMemset(d_in, 0x3c, bytes) == cudaSuccess);  // finite values; results not checked here
    REQUIRE(idgpuSetPolicy(IDGPU_POLICY_AUTO) == IDGPU_STATUS_SUCCESS);
    int dims[1] = {static_cast<int>(c.n)};
    REQUIRE(cufftPlanMany(&release.plan, 1, dims, nullptr, 1, 0, nullptr, 1, 0, c.f64 ? CUFFT_Z2Z : CUFFT_C2C,
                          static_cast<int>(batch)) == CUFFT_SUCCESS);
    const char* function = c.f64 ? "cufftExecZ2Z" : "cufftExecC2C";
    const unsigned long long before = native_calls(function);
    if (c.f64) {
      REQUIRE(cufftExecZ2Z(release.plan, static_cast<cufftDoubleComplex*>(d_in),
                           static_cast<cufftDoubleComplex*>(d_out), CUFFT_FORWARD) == CUFFT_SUCCESS);
    } else {
      REQUIRE(cufftExecC2C(release.plan, static_cast<cufftComplex*>(d_in), static_cast<cufftComplex*>(d_out),
                           CUFFT_FORWARD) == CUFFT_SUCCESS);
    }
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK((native_calls(function) - before == 1) == expected);
  }
  // The table serves these primes somewhere: on a device it was measured on, the first two cases
  // and the fp64 one above 2048 are native.
  const char* reason = nullptr;
  CHECK(idgpu::fft::native_fft_wins(4099, (1LL << 26) / 4099, idgpu::fft::Precision::kSingle, idgpu::kAnyDevice,
                                    &reason));
}

// IDGPU_FFT_MEASURE=1 (ctest gpu.fft.measure sets it): under the auto policy a plan the tuning
// table does not cover is timed against the vendor's at plan time and the faster side serves it.
// n = 16 (the vendor ~20% faster on an H100, the native ~8% on an H200), n = 2^16 and the prime
// 6151 (one Bluestein pass, about 2x the vendor at 2^26 points on both) at 2^24 points, below the
// table's rows: the test times both sides itself afterwards, and where one is more than 15%
// faster the measurement must have chosen it; either way the result must be right. Hidden from
// the default run: the setting is read once per process, from the environment.
TEST_CASE("IDGPU_FFT_MEASURE decides uncovered plans by timing both sides", "[.measure]") {
  const char* setting = std::getenv("IDGPU_FFT_MEASURE");
  INFO("run with IDGPU_FFT_MEASURE=1 (ctest gpu.fft.measure)");
  REQUIRE(setting != nullptr);
  REQUIRE(std::string(setting) == "1");
  REQUIRE(idgpuSetPolicy(IDGPU_POLICY_AUTO) == IDGPU_STATUS_SUCCESS);
  for (const long long n : {16LL, 1LL << 16, 6151LL}) {
    const long long batch = (1LL << 24) / n;
    CAPTURE(n, batch);
    const std::size_t count = static_cast<std::size_t>(n * batch);
    std::vector<cufftComplex> x(count);
    std::mt19937_64 engine(0x5eedULL + static_cast<unsigned long long>(n));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (cufftComplex& v : x) v = {uniform(engine), uniform(engine)};
    cufftComplex* d_in = nullptr;
    cufftComplex* d_out = nullptr;
    // On every way out of this iteration, a failed REQUIRE included: the buffers go and the
    // process's policy is auto again.
    struct Release {
      cufftComplex*& in;
      cufftComplex*& out;
      ~Release() {
        idgpuSetPolicy(IDGPU_POLICY_AUTO);
        cudaFree(in);
        cudaFree(out);
      }
    } release{d_in, d_out};
    REQUIRE(cudaMalloc(&d_in, count * sizeof(cufftComplex)) == cudaSuccess);
    REQUIRE(cudaMalloc(&d_out, count * sizeof(cufftComplex)) == cudaSuccess);
    REQUIRE(cudaMemcpy(d_in, x.data(), count * sizeof(cufftComplex), cudaMemcpyHostToDevice) == cudaSuccess);
    std::vector<cufftComplex> results[2];
    bool measured_native = false;
    for (int side = 0; side < 2; ++side) {
      // Side 0: the vendor (reference); side 1: whatever the measurement chose.
      REQUIRE(idgpuSetPolicy(side == 0 ? IDGPU_POLICY_VENDOR : IDGPU_POLICY_AUTO) == IDGPU_STATUS_SUCCESS);
      cufftHandle plan = 0;
      int dims[1] = {static_cast<int>(n)};
      REQUIRE(cufftPlanMany(&plan, 1, dims, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, static_cast<int>(batch)) ==
              CUFFT_SUCCESS);
      REQUIRE(cudaMemset(d_out, 0xff, count * sizeof(cufftComplex)) == cudaSuccess);  // NaN
      const unsigned long long before = native_calls("cufftExecC2C");
      REQUIRE(cufftExecC2C(plan, d_in, d_out, CUFFT_FORWARD) == CUFFT_SUCCESS);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      if (side == 1) measured_native = native_calls("cufftExecC2C") - before == 1;
      results[side].resize(count);
      REQUIRE(cudaMemcpy(results[side].data(), d_out, count * sizeof(cufftComplex), cudaMemcpyDeviceToHost) ==
              cudaSuccess);
      REQUIRE(cufftDestroy(plan) == CUFFT_SUCCESS);
    }
    std::printf("IDGPU_FFT_MEASURE: n=%lld batch=%lld served by the %s\n", n, batch,
                measured_native ? "native plan" : "vendor");
    // The test's own timing of both sides (plans made under each forced policy): medians of 21
    // calls after 3, on the same buffers.
    const auto median_ms = [&](idgpuPolicy_t policy) {
      REQUIRE(idgpuSetPolicy(policy) == IDGPU_STATUS_SUCCESS);
      cufftHandle plan = 0;
      cudaEvent_t start = nullptr, stop = nullptr;
      struct Timing {
        cufftHandle& plan;
        cudaEvent_t& start;
        cudaEvent_t& stop;
        ~Timing() {
          if (start != nullptr) cudaEventDestroy(start);
          if (stop != nullptr) cudaEventDestroy(stop);
          if (plan != 0) cufftDestroy(plan);
        }
      } timing{plan, start, stop};
      int dims[1] = {static_cast<int>(n)};
      REQUIRE(cufftPlanMany(&plan, 1, dims, nullptr, 1, 0, nullptr, 1, 0, CUFFT_C2C, static_cast<int>(batch)) ==
              CUFFT_SUCCESS);
      REQUIRE(cudaEventCreate(&start) == cudaSuccess);
      REQUIRE(cudaEventCreate(&stop) == cudaSuccess);
      std::vector<float> times;
      for (int run = 0; run < 24; ++run) {
        REQUIRE(cudaEventRecord(start) == cudaSuccess);
        REQUIRE(cufftExecC2C(plan, d_in, d_out, CUFFT_FORWARD) == CUFFT_SUCCESS);
        REQUIRE(cudaEventRecord(stop) == cudaSuccess);
        REQUIRE(cudaEventSynchronize(stop) == cudaSuccess);
        float ms = 0;
        REQUIRE(cudaEventElapsedTime(&ms, start, stop) == cudaSuccess);
        if (run >= 3) times.push_back(ms);
      }
      std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
      return static_cast<double>(times[times.size() / 2]);
    };
    const double native_ms = median_ms(IDGPU_POLICY_NATIVE);
    const double vendor_ms = median_ms(IDGPU_POLICY_VENDOR);
    std::printf("  timed again: native %.4f ms, vendor %.4f ms\n", native_ms, vendor_ms);
    CAPTURE(native_ms, vendor_ms);
    if (native_ms < vendor_ms / 1.15) CHECK(measured_native);
    if (vendor_ms < native_ms / 1.15) CHECK_FALSE(measured_native);
    double diff = 0, norm = 0;
    bool finite = true;
    for (std::size_t i = 0; i < count; ++i) {
      finite = finite && std::isfinite(results[1][i].x) && std::isfinite(results[1][i].y);
      diff += std::norm(Cd(results[1][i].x - results[0][i].x, results[1][i].y - results[0][i].y));
      norm += std::norm(Cd(results[0][i].x, results[0][i].y));
    }
    CHECK(finite);
    CHECK(std::sqrt(diff / norm) < 1e-6);
  }
}

