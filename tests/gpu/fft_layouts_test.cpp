// The native multi-dimensional C2C/Z2Z and real (R2C/C2R, D2Z/Z2D) FFTs in 1D, 2D and 3D against
// the vendor and a float64 reference, on the GPU.
//
// These plans are served natively under IDGPU_POLICY native only (the tuning table has no rows for
// most of them, and none for strided layouts), so every case runs the same random input (never zero) through the vendor's plan
// (policy vendor) and through ours (policy native, checked through the dispatch statistics to have
// really run natively, or not at all where the layout is not native: a real innermost length with
// a prime factor above 13 whose Bluestein convolution passes one block), each output poisoned
// with NaN before the call. Up to three
// transforms of the batch (first, middle, last) are compared with a float64 transform on the host:
// separable for 2D and 3D (a 1D transform along each axis: a radix-2 FFT for powers of two, a
// naive DFT for the other lengths, all of them small), for R2C the complex FFT of the real data cut
// to n/2 + 1 values along the innermost axis, for a 1D C2R the inverse FFT of the Hermitian
// extension of the (rounded) half spectrum given. A random half spectrum in 2D or 3D is not
// Hermitian-consistent on the innermost planes 0 and n/2, and implementations treat the
// inconsistent part differently, so a 2D / 3D C2R is given the float64 R2C spectrum of other
// random reals (rounded) and compared with those reals times the points of a transform. The native
// relative L2 error must be no worse than 1.5x the vendor's (plus one unit of rounding); every
// element the native call writes must be finite and the whole output close to the vendor's, so an
// element never written or a wrong transform anywhere in the batch fails.
//
// 2D/3D plans are made four ways in turn: cufftPlan2d / cufftPlan3d (batch 1), cufftPlanMany with
// NULL embeds, cufftCreate + cufftMakePlanMany64 with explicit embeds equal to the default layout,
// and cufftCreate + cufftXtMakePlanMany (executed through cufftXtExec); each shape runs forward out
// of place and inverse in place, then the opposite direction on its result (n x). Real plans the
// same four ways (cufftPlan1d/2d/3d for the first, cufftPlanMany standing in for a 2D / 3D batch);
// in place is cuFFT's padded layout, 2 (n/2 + 1) reals a row along the innermost axis, whose two
// padding reals are NaN on input. Out of place, the C2R input is copied before and compared after
// each side's call: whether each side overwrote it is printed, and the native R2C and 1D C2R must
// leave their input as it was. A 2D / 3D C2R out of place may overwrite it: cuFFT documents that
// its own does, and the native one runs its outer-axis passes in place on it.
//
// Graphs and threads (`[graph]`, `[threads]`, and `[fused-planes]` as before): a plan of each
// native family (the fused planes, the 1D pass kernels, Bluestein, real lengths, 2D and 3D),
// replayed from a CUDA graph and made and run on eight host threads at once, each bit for bit
// against the same plan executed directly and alone.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#define IDGPU_NATIVE_TEST_MAIN
#include "native_test_support.h"

#include <cuda_runtime.h>
#include <cufft.h>
#include <cufftXt.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "idgpu/idgpu.h"

namespace {

using idgpu::test::kSkip;
using Cd = std::complex<double>;

template <class T>
struct Traits;
template <>
struct Traits<cufftComplex> {
  using Real = float;
  static constexpr cufftType kC2C = CUFFT_C2C;
  static constexpr cufftType kR2C = CUFFT_R2C;
  static constexpr cufftType kC2R = CUFFT_C2R;
  static constexpr cudaDataType kComplexData = CUDA_C_32F;
  static constexpr cudaDataType kRealData = CUDA_R_32F;
  static constexpr double kEps = 5.96e-8;
  static constexpr const char* kExecC2C = "cufftExecC2C";
  static constexpr const char* kExecR2C = "cufftExecR2C";
  static constexpr const char* kExecC2R = "cufftExecC2R";
  // Bound of the real lengths the tests expect native: powers of two up to it take one pass, and
  // so do the other lengths listed (not every 13-smooth length below it: 19683 takes two).
  static constexpr long long kMaxNativeReal = 1LL << 15;
  // The largest Bluestein convolution of one pass (kernels/stockham_bluestein.cuh): a real length
  // with a prime factor above 13 is native where its complex points' M fits it.
  static constexpr long long kMaxBluestein = 1LL << 14;
  static cufftResult c2c(cufftHandle plan, cufftComplex* in, cufftComplex* out, int direction) {
    return cufftExecC2C(plan, in, out, direction);
  }
  static cufftResult r2c(cufftHandle plan, float* in, cufftComplex* out) { return cufftExecR2C(plan, in, out); }
  static cufftResult c2r(cufftHandle plan, cufftComplex* in, float* out) { return cufftExecC2R(plan, in, out); }
};
template <>
struct Traits<cufftDoubleComplex> {
  using Real = double;
  static constexpr cufftType kC2C = CUFFT_Z2Z;
  static constexpr cufftType kR2C = CUFFT_D2Z;
  static constexpr cufftType kC2R = CUFFT_Z2D;
  static constexpr cudaDataType kComplexData = CUDA_C_64F;
  static constexpr cudaDataType kRealData = CUDA_R_64F;
  static constexpr double kEps = 1.11e-16;
  static constexpr const char* kExecC2C = "cufftExecZ2Z";
  static constexpr const char* kExecR2C = "cufftExecD2Z";
  static constexpr const char* kExecC2R = "cufftExecZ2D";
  static constexpr long long kMaxNativeReal = 1LL << 14;
  static constexpr long long kMaxBluestein = 1LL << 13;
  static cufftResult c2c(cufftHandle plan, cufftDoubleComplex* in, cufftDoubleComplex* out, int direction) {
    return cufftExecZ2Z(plan, in, out, direction);
  }
  static cufftResult r2c(cufftHandle plan, double* in, cufftDoubleComplex* out) { return cufftExecD2Z(plan, in, out); }
  static cufftResult c2r(cufftHandle plan, cufftDoubleComplex* in, double* out) { return cufftExecZ2D(plan, in, out); }
};

using idgpu::test::native_calls;

using idgpu::test::power_of_two;

// Whether m has no prime factor above 13.
bool smooth13(long long m) {
  for (long long p : {2, 3, 5, 7, 11, 13}) {
    while (m > 1 && m % p == 0) m /= p;
  }
  return m == 1;
}

using idgpu::test::max_points;

// ---- float64 reference ------------------------------------------------------------------------

// exp(sign 2 pi i e / n), the angle reduced and evaluated in long double.
Cd root(long long e, long long n, int sign) {
  e %= n;
  if (e < 0) e += n;
  const long double pi = 3.141592653589793238462643383279502884L;
  const long double angle = static_cast<long double>(sign) * 2.0L * pi * static_cast<long double>(e) /
                            static_cast<long double>(n);
  return {static_cast<double>(std::cos(angle)), static_cast<double>(std::sin(angle))};
}

const std::vector<Cd>& roots(long long n, int sign) {
  static std::map<std::pair<long long, int>, std::vector<Cd>> cache;
  std::vector<Cd>& table = cache[{n, sign}];
  if (table.empty()) {
    table.resize(static_cast<std::size_t>(n));
    for (long long e = 0; e < n; ++e) table[e] = root(e, n, sign);
  }
  return table;
}

// Mixed-radix decimation in time of the n points in[0], in[stride], ... into out[0..n): the
// smallest prime factor p splits n into p transforms of n / p points, combined by a p-point DFT
// per output column; a prime n is the naive sum. `w` holds the roots of the whole line (length
// `total`), of which this level uses every (total / n)-th.
void mixed_radix(const Cd* in, long long stride, long long n, Cd* out, const std::vector<Cd>& w, long long total) {
  if (n == 1) {
    out[0] = in[0];
    return;
  }
  long long p = 2;
  while (p * p <= n && n % p != 0) ++p;
  if (n % p != 0) p = n;
  const long long m = n / p;
  const long long step = total / n;
  if (m == 1) {
    for (long long k = 0; k < n; ++k) {
      Cd sum = 0;
      for (long long j = 0; j < n; ++j) sum += in[j * stride] * w[(j * k % n) * step];
      out[k] = sum;
    }
    return;
  }
  for (long long r = 0; r < p; ++r) mixed_radix(in + r * stride, stride * p, m, out + r * m, w, total);
  std::vector<Cd> column(static_cast<std::size_t>(p));
  for (long long k = 0; k < m; ++k) {
    for (long long r = 0; r < p; ++r) column[r] = out[r * m + k];
    for (long long q = 0; q < p; ++q) {
      const long long e = k + q * m;
      Cd sum = 0;
      for (long long r = 0; r < p; ++r) sum += column[r] * w[(r * e % n) * step];
      out[e] = sum;
    }
  }
}

// Unnormalised float64 DFT of `line` in place, sign -1 forward, +1 inverse: iterative radix-2 for
// powers of two, else mixed radix over the prime factors (a naive sum for a prime length).
void transform_line(std::vector<Cd>& line, int sign) {
  const long long n = static_cast<long long>(line.size());
  if (n < 2) return;
  const std::vector<Cd>& w = roots(n, sign);
  if (!power_of_two(n)) {
    std::vector<Cd> y(line.size());
    mixed_radix(line.data(), 1, n, y.data(), w, n);
    line.swap(y);
    return;
  }
  for (long long i = 1, j = 0; i < n; ++i) {
    long long bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) std::swap(line[i], line[j]);
  }
  for (long long length = 2; length <= n; length <<= 1) {
    const long long step = n / length;
    for (long long start = 0; start < n; start += length) {
      for (long long k = 0; k < length / 2; ++k) {
        const Cd a = line[start + k];
        const Cd b = line[start + k + length / 2] * w[k * step];
        line[start + k] = a + b;
        line[start + k + length / 2] = a - b;
      }
    }
  }
}

// Separable multi-dimensional DFT of one transform (dims outermost first, innermost contiguous).
std::vector<Cd> transform_nd(std::vector<Cd> x, const std::vector<long long>& dims, int sign) {
  long long total = 1;
  for (long long d : dims) total *= d;
  long long inner = 1;
  std::vector<Cd> line;
  for (auto axis = static_cast<long long>(dims.size()) - 1; axis >= 0; --axis) {
    const long long n = dims[axis];
    const long long outer = total / (n * inner);
    line.resize(static_cast<std::size_t>(n));
    for (long long o = 0; o < outer; ++o) {
      for (long long i = 0; i < inner; ++i) {
        Cd* base = x.data() + o * n * inner + i;
        for (long long j = 0; j < n; ++j) line[j] = base[j * inner];
        transform_line(line, sign);
        for (long long j = 0; j < n; ++j) base[j * inner] = line[j];
      }
    }
    inner *= n;
  }
  return x;
}

using idgpu::test::wide;

template <class T>
bool finite(const T& v) {
  return std::isfinite(v.x) && std::isfinite(v.y);
}

// Relative L2 error of the listed transforms of `got` (`stride` elements apart, `count` compared
// from each) against `want` (one vector per listed transform).
template <class Got, class Widen>
double relative_error(const std::vector<Got>& got, const std::vector<std::vector<Cd>>& want,
                      const std::vector<long long>& transforms, long long stride, long long count, Widen widen) {
  double diff = 0, norm = 0;
  for (std::size_t t = 0; t < transforms.size(); ++t) {
    for (long long i = 0; i < count; ++i) {
      diff += std::norm(widen(got[transforms[t] * stride + i]) - want[t][i]);
      norm += std::norm(want[t][i]);
    }
  }
  return std::sqrt(diff / norm);
}

template <class Elem, class Widen>
double relative_difference(const std::vector<Elem>& a, const std::vector<Elem>& b, Widen widen) {
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff += std::norm(widen(a[i]) - widen(b[i]));
    norm += std::norm(widen(b[i]));
  }
  return std::sqrt(diff / norm);
}

// First, middle and last transform of a batch.
std::vector<long long> checked_transforms(long long batch) {
  std::vector<long long> transforms = {0, batch / 2, batch - 1};
  transforms.erase(std::unique(transforms.begin(), transforms.end()), transforms.end());
  return transforms;
}

std::string dims_text(const std::vector<long long>& dims) {
  std::string text;
  for (long long d : dims) text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

// ---- plans ------------------------------------------------------------------------------------

enum class Maker { kPlanBasic, kPlanMany, kMakeMany64Embeds, kXtMakePlanMany };
constexpr Maker kMakers[] = {Maker::kPlanBasic, Maker::kPlanMany, Maker::kMakeMany64Embeds, Maker::kXtMakePlanMany};
const char* maker_name(Maker maker) {
  switch (maker) {
    case Maker::kPlanBasic: return "cufftPlan1d/2d/3d";
    case Maker::kPlanMany: return "cufftPlanMany (NULL embeds)";
    case Maker::kMakeMany64Embeds: return "cufftMakePlanMany64 (explicit default embeds)";
    case Maker::kXtMakePlanMany: return "cufftXtMakePlanMany";
  }
  return "?";
}

// A plan of `dims` (outermost first) and `batch`, of `type`, made one of the four ways; destroyed at
// scope exit. kPlanBasic: cufftPlan1d (any batch) or cufftPlan2d / cufftPlan3d (batch 1 only).
// kMakeMany64Embeds: the default layout spelled out (embeds = dims, unit strides, distances of
// one transform); for a real plan executed in place, where cuFFT's padded layout is not the
// default distances, NULL embeds instead (`in_place`).
struct TestPlan {
  cufftHandle handle = 0;
  size_t work_size = 0;
  bool xt = false;

  TestPlan(Maker maker, const std::vector<long long>& dims, long long batch, cufftType type, cudaDataType in_data,
           cudaDataType out_data, cudaDataType exec_data, bool in_place) {
    const int rank = static_cast<int>(dims.size());
    int n32[3] = {};
    long long n64[3] = {};
    long long total = 1;
    for (int axis = 0; axis < rank; ++axis) {
      n32[axis] = static_cast<int>(dims[axis]);
      n64[axis] = dims[axis];
      total *= dims[axis];
    }
    switch (maker) {
      case Maker::kPlanBasic:
        if (rank == 1) {
          REQUIRE(cufftPlan1d(&handle, n32[0], type, static_cast<int>(batch)) == CUFFT_SUCCESS);
        } else {
          REQUIRE(batch == 1);
          if (rank == 2) {
            REQUIRE(cufftPlan2d(&handle, n32[0], n32[1], type) == CUFFT_SUCCESS);
          } else {
            REQUIRE(cufftPlan3d(&handle, n32[0], n32[1], n32[2], type) == CUFFT_SUCCESS);
          }
        }
        break;
      case Maker::kPlanMany:
        REQUIRE(cufftPlanMany(&handle, rank, n32, nullptr, 1, 0, nullptr, 1, 0, type, static_cast<int>(batch)) ==
                CUFFT_SUCCESS);
        break;
      case Maker::kMakeMany64Embeds: {
        REQUIRE(cufftCreate(&handle) == CUFFT_SUCCESS);
        const bool real = type != CUFFT_C2C && type != CUFFT_Z2Z;
        if (real && in_place) {
          REQUIRE(cufftMakePlanMany64(handle, rank, n64, nullptr, 1, 0, nullptr, 1, 0, type, batch, &work_size) ==
                  CUFFT_SUCCESS);
          break;
        }
        // The complex side of a real transform keeps n/2 + 1 values of the innermost axis.
        long long in_embed[3] = {n64[0], n64[1], n64[2]};
        long long out_embed[3] = {n64[0], n64[1], n64[2]};
        const long long half_total = total / n64[rank - 1] * (n64[rank - 1] / 2 + 1);
        long long in_dist = total;
        long long out_dist = total;
        if (type == CUFFT_R2C || type == CUFFT_D2Z) {
          out_embed[rank - 1] = n64[rank - 1] / 2 + 1;
          out_dist = half_total;
        } else if (type == CUFFT_C2R || type == CUFFT_Z2D) {
          in_embed[rank - 1] = n64[rank - 1] / 2 + 1;
          in_dist = half_total;
        }
        REQUIRE(cufftMakePlanMany64(handle, rank, n64, in_embed, 1, in_dist, out_embed, 1, out_dist, type, batch,
                                    &work_size) == CUFFT_SUCCESS);
        break;
      }
      case Maker::kXtMakePlanMany:
        REQUIRE(cufftCreate(&handle) == CUFFT_SUCCESS);
        REQUIRE(cufftXtMakePlanMany(handle, rank, n64, nullptr, 1, 0, in_data, nullptr, 1, 0, out_data, batch,
                                    &work_size, exec_data) == CUFFT_SUCCESS);
        xt = true;
        break;
    }
  }
  TestPlan(const TestPlan&) = delete;
  TestPlan& operator=(const TestPlan&) = delete;
  ~TestPlan() { cufftDestroy(handle); }
};

// ---- 2D and 3D C2C / Z2Z ----------------------------------------------------------------------

template <class T>
cufftResult exec_c2c(const TestPlan& plan, T* in, T* out, int direction) {
  return plan.xt ? cufftXtExec(plan.handle, in, out, direction) : Traits<T>::c2c(plan.handle, in, out, direction);
}

struct SideResult {
  double error = 0;       // against float64, checked transforms
  double round_trip = 0;  // opposite direction on the result, against n x
  size_t work_size = 0;
};

template <class T>
void run_nd_case(const std::vector<long long>& dims, long long batch, int direction, bool in_place, Maker maker,
                 std::uint64_t seed) {
  long long n = 1;  // points of one transform
  for (long long d : dims) n *= d;
  if (n > max_points()) return;
  if (n * batch > max_points()) batch = std::max(1LL, max_points() / n);
  if (maker == Maker::kPlanBasic && batch > 1) maker = Maker::kPlanMany;
  const long long total = n * batch;
  const std::string shape = dims_text(dims);
  CAPTURE(shape, batch, direction, in_place, maker_name(maker), sizeof(T));
  std::vector<T> x(static_cast<std::size_t>(total));
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (T& v : x) {
    do {
      v.x = static_cast<decltype(v.x)>(uniform(engine));
      v.y = static_cast<decltype(v.y)>(uniform(engine));
    } while (v.x == 0 && v.y == 0);
  }
  const std::vector<long long> transforms = checked_transforms(batch);
  std::vector<std::vector<Cd>> want;
  for (long long t : transforms) {
    std::vector<Cd> one(static_cast<std::size_t>(n));
    for (long long i = 0; i < n; ++i) one[i] = wide(x[t * n + i]);
    want.push_back(transform_nd(std::move(one), dims, direction == CUFFT_FORWARD ? -1 : +1));
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
    TestPlan plan(maker, dims, batch, Traits<T>::kC2C, Traits<T>::kComplexData, Traits<T>::kComplexData,
                  Traits<T>::kComplexData, in_place);
    sides[side].work_size = plan.work_size;
    if (side == 1) REQUIRE(cufftSetStream(plan.handle, stream) == CUFFT_SUCCESS);
    REQUIRE(cudaMemcpy(d_in, x.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    if (!in_place) REQUIRE(cudaMemset(d_out, 0xff, bytes) == cudaSuccess);  // NaN
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const char* exec_name = plan.xt ? "cufftXtExec" : Traits<T>::kExecC2C;
    const unsigned long long before = native_calls(exec_name);
    REQUIRE(exec_c2c(plan, d_in, out, direction) == CUFFT_SUCCESS);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    // The native side really ran our kernels; the vendor side did not.
    REQUIRE(native_calls(exec_name) - before == (side == 1 ? 1u : 0u));
    results[side].resize(x.size());
    REQUIRE(cudaMemcpy(results[side].data(), out, bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    sides[side].error = relative_error(results[side], want, transforms, n, n, wide<T>);

    // The opposite direction, in place on the result: n x.
    REQUIRE(exec_c2c(plan, out, out, -direction) == CUFFT_SUCCESS);
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
  for (const T& v : results[1]) not_finite += finite(v) ? 0 : 1;
  const double versus_vendor = relative_difference(results[1], results[0], wide<T>);
  INFO("error vs float64: native " << sides[1].error << ", vendor " << sides[0].error << "; round trip: native "
                                   << sides[1].round_trip << ", vendor " << sides[0].round_trip
                                   << "; native vs vendor " << versus_vendor << "; work area: native "
                                   << sides[1].work_size << " B, vendor " << sides[0].work_size << " B");
  CHECK(not_finite == 0);
  CHECK(sides[0].error < 1e3 * eps);  // the comparison is meaningful
  CHECK(sides[1].error <= 1.5 * sides[0].error + eps);
  CHECK(sides[1].round_trip <= 1.5 * sides[0].round_trip + eps);
  CHECK(versus_vendor <= 2.0 * (sides[0].error + sides[1].error) + 2 * eps);
  if (maker == Maker::kMakeMany64Embeds || maker == Maker::kXtMakePlanMany) {
    CHECK(sides[1].work_size <= sides[0].work_size);
  }
}

struct NdShape {
  std::vector<long long> dims;
  long long batch;
};

// Each shape forward out of place and inverse in place, the makers rotating so that each meets
// both variants (cufftPlan2d/3d only where the batch is 1; cufftPlanMany stands in otherwise).
template <class T>
void run_nd_shapes(const std::vector<NdShape>& shapes, int maker_offset, std::uint64_t seed) {
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    for (int variant = 0; variant < 2; ++variant) {
      const Maker maker = kMakers[(3 * s + static_cast<std::size_t>(variant + maker_offset)) % 4];
      run_nd_case<T>(shapes[s].dims, shapes[s].batch, variant == 0 ? CUFFT_FORWARD : CUFFT_INVERSE, variant == 1,
                     maker, seed + 2 * s + static_cast<std::uint64_t>(variant));
    }
  }
}

// ---- native plans in CUDA graphs and on concurrent host threads -------------------------------

// One native execution of a plan of `type` over `dims` x `batch` (cufftPlanMany, NULL embeds,
// executed through cufftXtExec) on its own stream and arrays: random input (never zero), kept
// pristine on the device and copied in before every call (a 2D / 3D C2R overwrites its input),
// output poisoned with NaN before every call.
struct PlanJob {
  cufftType type;
  std::vector<long long> dims;
  long long batch;
};

struct PlanRun {
  cufftHandle plan = 0;
  cudaStream_t stream = nullptr;
  void* pristine = nullptr;
  void* in = nullptr;
  void* out = nullptr;
  size_t in_bytes = 0;
  size_t out_bytes = 0;
  int direction = CUFFT_FORWARD;
  std::string failure;  // the first call that failed (checked on the main thread: Catch2 is not thread-safe)

  PlanRun(const PlanJob& job, std::uint64_t seed) {
    const int rank = static_cast<int>(job.dims.size());
    int n[3] = {};
    long long total = 1;
    for (int axis = 0; axis < rank; ++axis) {
      n[axis] = static_cast<int>(job.dims[axis]);
      total *= job.dims[axis];
    }
    const long long half = total / job.dims.back() * (job.dims.back() / 2 + 1);
    const bool fp64 = job.type == CUFFT_Z2Z || job.type == CUFFT_D2Z || job.type == CUFFT_Z2D;
    const size_t real = fp64 ? 8 : 4;
    switch (job.type) {
      case CUFFT_C2C:
      case CUFFT_Z2Z: in_bytes = out_bytes = static_cast<size_t>(total) * 2 * real; break;
      case CUFFT_R2C:
      case CUFFT_D2Z:
        in_bytes = static_cast<size_t>(total) * real;
        out_bytes = static_cast<size_t>(half) * 2 * real;
        break;
      default:
        in_bytes = static_cast<size_t>(half) * 2 * real;
        out_bytes = static_cast<size_t>(total) * real;
        direction = CUFFT_INVERSE;
        break;
    }
    in_bytes *= static_cast<size_t>(job.batch);
    out_bytes *= static_cast<size_t>(job.batch);
    const auto check = [&](bool ok, const char* what) {
      if (!ok && failure.empty()) failure = what;
      return ok;
    };
    if (!check(cufftPlanMany(&plan, rank, n, nullptr, 1, 0, nullptr, 1, 0, job.type, static_cast<int>(job.batch)) ==
                   CUFFT_SUCCESS,
               "cufftPlanMany")) {
      return;
    }
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess, "cudaStreamCreate");
    check(cufftSetStream(plan, stream) == CUFFT_SUCCESS, "cufftSetStream");
    check(cudaMalloc(&pristine, in_bytes) == cudaSuccess && cudaMalloc(&in, in_bytes) == cudaSuccess &&
              cudaMalloc(&out, out_bytes) == cudaSuccess,
          "cudaMalloc");
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> uniform(0.1, 1.0);
    std::vector<unsigned char> host(in_bytes);
    for (size_t i = 0; i < in_bytes; i += real) {
      const double value = (engine() & 1 ? -1.0 : 1.0) * uniform(engine);
      if (fp64) {
        std::memcpy(&host[i], &value, 8);
      } else {
        const float narrow = static_cast<float>(value);
        std::memcpy(&host[i], &narrow, 4);
      }
    }
    if (pristine != nullptr) check(cudaMemcpy(pristine, host.data(), in_bytes, cudaMemcpyHostToDevice) == cudaSuccess, "upload");
  }
  PlanRun(const PlanRun&) = delete;
  PlanRun& operator=(const PlanRun&) = delete;
  ~PlanRun() {
    if (plan != 0) cufftDestroy(plan);
    if (stream != nullptr) cudaStreamDestroy(stream);
    cudaFree(pristine);
    cudaFree(in);
    cudaFree(out);
  }

  // The input copied in, the output poisoned, the transform: enqueued on the stream.
  bool enqueue() {
    if (!failure.empty()) return false;
    if (cudaMemcpyAsync(in, pristine, in_bytes, cudaMemcpyDeviceToDevice, stream) != cudaSuccess ||
        cudaMemsetAsync(out, 0xff, out_bytes, stream) != cudaSuccess) {
      failure = "copy in / poison";
      return false;
    }
    if (cufftXtExec(plan, in, out, direction) != CUFFT_SUCCESS) {
      failure = "cufftXtExec";
      return false;
    }
    return true;
  }

  std::vector<unsigned char> result() {
    std::vector<unsigned char> host(out_bytes);
    if (cudaStreamSynchronize(stream) != cudaSuccess ||
        cudaMemcpy(host.data(), out, out_bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
      if (failure.empty()) failure = "synchronize / download";
      host.clear();
    }
    return host;
  }
};

// Every value of an output finite (none left poisoned).
bool all_finite(const std::vector<unsigned char>& bytes, bool fp64) {
  if (bytes.empty()) return false;
  for (size_t i = 0; i < bytes.size(); i += fp64 ? 8 : 4) {
    double value = 0;
    if (fp64) {
      std::memcpy(&value, &bytes[i], 8);
    } else {
      float narrow = 0;
      std::memcpy(&narrow, &bytes[i], 4);
      value = narrow;
    }
    if (!std::isfinite(value)) return false;
  }
  return true;
}

bool fp64_type(cufftType type) { return type == CUFFT_Z2Z || type == CUFFT_D2Z || type == CUFFT_Z2D; }

// A plan of each native family (under IDGPU_POLICY=native): the fused C2C/Z2Z and real planes,
// 2D and 3D (a Z2D 3D's fused pair is its last two passes), and below them the 1D passes (the
// power-of-two, cluster, fused and cluster column kernels, fixed-sequence lengths and one of the
// general kernel, 1001 = 7 x 11 x 13), one- and two-pass Bluestein (the latter with tables formed
// on the device at plan time: plans made on eight threads at once form theirs at once), real 1D
// lengths (a fixed length, a cluster length, two passes, cluster column passes, an odd length;
// lengths with a prime factor above 13, one Bluestein pass with the real step, 1D and 2D), a
// 2D plane with cluster columns and one over mixed radices, a 3D of three passes, and small planes
// of each kind. Under a cap of points a call (IDGPU_TEST_MAX_POINTS, the sanitizer runs) a job's
// batch shrinks to fit and a job whose one transform is above the cap is left out; the small
// planes and the 1D lengths below the cap keep every family there.
std::vector<PlanJob> concurrency_jobs() {
  const std::vector<PlanJob> all = {
      {CUFFT_C2C, {256, 256}, 8},  {CUFFT_Z2Z, {256, 256}, 4}, {CUFFT_C2C, {1024, 1024}, 2},
      {CUFFT_R2C, {256, 256}, 8},  {CUFFT_C2R, {256, 256}, 8}, {CUFFT_D2Z, {512, 512}, 2},
      {CUFFT_C2C, {4, 128, 128}, 2}, {CUFFT_Z2D, {2, 256, 256}, 1},
      {CUFFT_C2C, {64, 64}, 4},    {CUFFT_Z2Z, {48, 40}, 4},   {CUFFT_R2C, {64, 96}, 2},
      {CUFFT_C2R, {32, 32}, 8},    {CUFFT_D2Z, {8, 16, 16}, 2}, {CUFFT_Z2D, {4, 32, 32}, 2},
      {CUFFT_C2C, {4096}, 64},     {CUFFT_C2C, {1 << 15}, 8},  {CUFFT_Z2Z, {1 << 18}, 4},
      {CUFFT_C2C, {1 << 23}, 1},   {CUFFT_C2C, {1000}, 256},   {CUFFT_Z2Z, {1080}, 128},
      {CUFFT_C2C, {1001}, 64},
      {CUFFT_C2C, {4099}, 64},     {CUFFT_C2C, {10007}, 16},   {CUFFT_Z2Z, {65521}, 4},
      {CUFFT_Z2Z, {1048573}, 2},   {CUFFT_R2C, {400}, 1024},   {CUFFT_C2R, {1 << 16}, 16},
      {CUFFT_D2Z, {1 << 20}, 4},   {CUFFT_C2R, {1 << 23}, 1},  {CUFFT_R2C, {1001}, 64},
      {CUFFT_C2C, {4096, 4096}, 1}, {CUFFT_Z2Z, {1080, 1920}, 1}, {CUFFT_C2C, {100, 100, 100}, 2},
      {CUFFT_R2C, {2 * 4099}, 16}, {CUFFT_C2R, {4099}, 16},   {CUFFT_Z2D, {2 * 2053}, 8}, {CUFFT_D2Z, {30, 34}, 8}};
  std::vector<PlanJob> jobs;
  for (PlanJob job : all) {
    long long points = 1;
    for (long long d : job.dims) points *= d;
    if (points > idgpu::test::max_points()) continue;
    job.batch = std::min<long long>(job.batch, idgpu::test::max_points() / points);
    jobs.push_back(job);
  }
  return jobs;
}

// Native plans of every family replayed from a CUDA graph: the captured call twice gives the bits
// of the same plan executed directly, and the capture itself runs nothing.
TEST_CASE("native plans captured in a CUDA graph give the bits of a direct execution",
          "[fft][fused-planes][graph]") {
  REQUIRE(idgpuSetPolicy(IDGPU_POLICY_NATIVE) == IDGPU_STATUS_SUCCESS);
  std::uint64_t seed = 12000;
  const std::vector<PlanJob> jobs = concurrency_jobs();
  REQUIRE(jobs.size() >= 12u);
  for (const PlanJob& job : jobs) {
    CAPTURE(static_cast<int>(job.type), dims_text(job.dims), job.batch);
    PlanRun run(job, ++seed);
    const unsigned long long before = native_calls("cufftXtExec");
    REQUIRE(run.enqueue());
    const std::vector<unsigned char> direct = run.result();
    INFO(run.failure);
    REQUIRE(run.failure.empty());
    REQUIRE(native_calls("cufftXtExec") - before == 1u);
    CHECK(all_finite(direct, fp64_type(job.type)));

    cudaGraph_t graph = nullptr;
    cudaGraphExec_t instance = nullptr;
    REQUIRE(cudaStreamBeginCapture(run.stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    const bool enqueued = run.enqueue();
    REQUIRE(cudaStreamEndCapture(run.stream, &graph) == cudaSuccess);
    REQUIRE(enqueued);
    REQUIRE(cudaGraphInstantiate(&instance, graph, 0) == cudaSuccess);
    for (int replay = 0; replay < 2; ++replay) {
      CAPTURE(replay);
      REQUIRE(cudaMemsetAsync(run.out, 0xff, run.out_bytes, run.stream) == cudaSuccess);
      REQUIRE(cudaGraphLaunch(instance, run.stream) == cudaSuccess);
      const std::vector<unsigned char> replayed = run.result();
      REQUIRE(run.failure.empty());
      CHECK(replayed == direct);
    }
    cudaGraphExecDestroy(instance);
    cudaGraphDestroy(graph);
  }
  idgpuSetPolicy(IDGPU_POLICY_AUTO);
}

// Eight host threads, each making its own plans (job t, t + 8, ...) with their own streams and
// arrays, all at once, then five calls of each, interleaved: each call gives the bits of its plan
// run alone afterwards (the fused kernels' counters belong to their plan; plan-time device work,
// the Bluestein tables, and the table uploads are ordered within their plan).
TEST_CASE("native plans on eight host threads at once give the bits of each plan run alone",
          "[fft][fused-planes][threads]") {
  REQUIRE(idgpuSetPolicy(IDGPU_POLICY_NATIVE) == IDGPU_STATUS_SUCCESS);
  const std::vector<PlanJob> jobs = concurrency_jobs();
  REQUIRE(jobs.size() >= 12u);
  constexpr int kCalls = 5;
  constexpr size_t kThreads = 8;
  struct Outcome {
    std::string failure;
    std::vector<std::vector<unsigned char>> results;
  };
  std::vector<Outcome> outcomes(jobs.size());
  const unsigned long long before = native_calls("cufftXtExec");
  std::vector<std::thread> threads;
  for (size_t t = 0; t < kThreads && t < jobs.size(); ++t) {
    threads.emplace_back([&, t] {
      std::vector<std::unique_ptr<PlanRun>> runs;
      for (size_t j = t; j < jobs.size(); j += kThreads) runs.push_back(std::make_unique<PlanRun>(jobs[j], 13000 + j));
      for (int call = 0; call < kCalls; ++call) {
        for (size_t r = 0; r < runs.size(); ++r) {
          if (runs[r]->enqueue()) outcomes[t + r * kThreads].results.push_back(runs[r]->result());
        }
      }
      for (size_t r = 0; r < runs.size(); ++r) outcomes[t + r * kThreads].failure = runs[r]->failure;
    });
  }
  for (std::thread& thread : threads) thread.join();
  REQUIRE(native_calls("cufftXtExec") - before == static_cast<unsigned long long>(jobs.size() * kCalls));
  for (size_t j = 0; j < jobs.size(); ++j) {
    CAPTURE(static_cast<int>(jobs[j].type), dims_text(jobs[j].dims), jobs[j].batch);
    INFO(outcomes[j].failure);
    REQUIRE(outcomes[j].failure.empty());
    REQUIRE(outcomes[j].results.size() == static_cast<size_t>(kCalls));
    PlanRun alone(jobs[j], 13000 + j);
    REQUIRE(alone.enqueue());
    const std::vector<unsigned char> reference = alone.result();
    REQUIRE(alone.failure.empty());
    CHECK(all_finite(reference, fp64_type(jobs[j].type)));
    for (int call = 0; call < kCalls; ++call) {
      CAPTURE(call);
      CHECK(outcomes[j].results[static_cast<size_t>(call)] == reference);
    }
  }
  idgpuSetPolicy(IDGPU_POLICY_AUTO);
}

// ---- 1D C2C / Z2Z in the advanced data layout -------------------------------------------------

// Element e of transform b at in[b idist + e istride], out[b odist + e ostride].
// cuFFT's advanced layout with inembed = onembed = dims: element i (row-major in dims) of
// transform b at b dist + i stride on each side.
struct Strided {
  std::vector<long long> dims;
  long long batch, istride, idist, ostride, odist;
  long long total() const {
    long long product = 1;
    for (long long d : dims) product *= d;
    return product;
  }
  long long extent(bool input) const {
    return (batch - 1) * (input ? idist : odist) + (total() - 1) * (input ? istride : ostride) + 1;
  }
};

// The layout through cufftPlanMany (xt false) or cufftXtMakePlanMany, vendor then native, on the
// same input; outputs poisoned (out of place) and compared element by element outside the layout
// too: neither side may write there.
template <class T>
void run_strided_case(const Strided& l, int direction, bool in_place, bool xt, std::uint64_t seed) {
  CAPTURE(dims_text(l.dims), l.batch, l.istride, l.idist, l.ostride, l.odist, direction, in_place, xt, sizeof(T));
  const long long n = l.total();
  const int rank = static_cast<int>(l.dims.size());
  const long long in_extent = l.extent(true);
  const long long out_extent = in_place ? in_extent : l.extent(false);
  std::vector<T> x(static_cast<std::size_t>(in_extent));
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (T& v : x) {
    do {
      v.x = static_cast<decltype(v.x)>(uniform(engine));
      v.y = static_cast<decltype(v.y)>(uniform(engine));
    } while (v.x == 0 && v.y == 0);
  }
  const std::vector<long long> transforms = checked_transforms(l.batch);
  std::vector<std::vector<Cd>> want;
  for (long long t : transforms) {
    std::vector<Cd> line(static_cast<std::size_t>(n));
    for (long long e = 0; e < n; ++e) line[e] = wide(x[t * l.idist + e * l.istride]);
    want.push_back(transform_nd(std::move(line), l.dims, direction == CUFFT_FORWARD ? -1 : +1));
  }
  T* d_in = nullptr;
  T* d_out = nullptr;
  REQUIRE(cudaMalloc(&d_in, in_extent * sizeof(T)) == cudaSuccess);
  if (!in_place) REQUIRE(cudaMalloc(&d_out, out_extent * sizeof(T)) == cudaSuccess);
  T* out = in_place ? d_in : d_out;
  std::vector<T> results[2];
  double errors[2] = {0, 0};
  const idgpuPolicy_t policies[2] = {IDGPU_POLICY_VENDOR, IDGPU_POLICY_NATIVE};
  for (int side = 0; side < 2; ++side) {
    REQUIRE(idgpuSetPolicy(policies[side]) == IDGPU_STATUS_SUCCESS);
    cufftHandle handle = 0;
    std::vector<long long> n64 = l.dims;  // the embeds too: no padding
    std::vector<int> n32(l.dims.begin(), l.dims.end());
    size_t work = 0;
    REQUIRE(cufftCreate(&handle) == CUFFT_SUCCESS);
    if (xt) {
      REQUIRE(cufftXtMakePlanMany(handle, rank, n64.data(), n64.data(), l.istride, l.idist, Traits<T>::kComplexData,
                                  n64.data(), l.ostride, l.odist, Traits<T>::kComplexData, l.batch, &work,
                                  Traits<T>::kComplexData) == CUFFT_SUCCESS);
    } else {
      REQUIRE(cufftMakePlanMany(handle, rank, n32.data(), n32.data(), static_cast<int>(l.istride),
                                static_cast<int>(l.idist), n32.data(), static_cast<int>(l.ostride),
                                static_cast<int>(l.odist), Traits<T>::kC2C, static_cast<int>(l.batch),
                                &work) == CUFFT_SUCCESS);
    }
    REQUIRE(cudaMemcpy(d_in, x.data(), in_extent * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
    if (!in_place) REQUIRE(cudaMemset(d_out, 0xff, out_extent * sizeof(T)) == cudaSuccess);  // NaN
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    const char* exec_name = xt ? "cufftXtExec" : Traits<T>::kExecC2C;
    const unsigned long long before = native_calls(exec_name);
    const cufftResult status = xt ? cufftXtExec(handle, d_in, out, direction)
                                  : Traits<T>::c2c(handle, d_in, out, direction);
    REQUIRE(status == CUFFT_SUCCESS);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(native_calls(exec_name) - before == (side == 1 ? 1u : 0u));
    results[side].resize(static_cast<std::size_t>(out_extent));
    REQUIRE(cudaMemcpy(results[side].data(), out, out_extent * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    double diff = 0, norm = 0;
    for (std::size_t t = 0; t < transforms.size(); ++t) {
      for (long long e = 0; e < n; ++e) {
        diff += std::norm(wide(results[side][transforms[t] * l.odist + e * l.ostride]) - want[t][e]);
        norm += std::norm(want[t][e]);
      }
    }
    errors[side] = std::sqrt(diff / norm);
    cufftDestroy(handle);
  }
  idgpuSetPolicy(IDGPU_POLICY_AUTO);
  cudaFree(d_in);
  if (d_out != nullptr) cudaFree(d_out);
  std::vector<char> in_layout(static_cast<std::size_t>(out_extent), 0);
  for (long long b = 0; b < l.batch; ++b) {
    for (long long e = 0; e < n; ++e) in_layout[b * l.odist + e * l.ostride] = 1;
  }
  std::size_t not_finite = 0, differs_outside = 0;
  double diff = 0, norm = 0;
  for (std::size_t i = 0; i < in_layout.size(); ++i) {
    const T& a = results[1][i];
    const T& b = results[0][i];
    if (in_layout[i]) {
      not_finite += finite(a) ? 0 : 1;
      diff += std::norm(wide(a) - wide(b));
      norm += std::norm(wide(b));
    } else {
      differs_outside += std::memcmp(&a, &b, sizeof(T)) == 0 ? 0 : 1;
    }
  }
  const double eps = Traits<T>::kEps;
  INFO("error vs float64: native " << errors[1] << ", vendor " << errors[0] << "; native vs vendor "
                                   << std::sqrt(diff / norm));
  CHECK(not_finite == 0);
  CHECK(differs_outside == 0);
  CHECK(errors[0] < 1e3 * eps);
  CHECK(errors[1] <= 1.5 * errors[0] + eps);
  CHECK(std::sqrt(diff / norm) <= 2.0 * (errors[0] + errors[1]) + 2 * eps);
}

// ---- 1D R2C / C2R -----------------------------------------------------------------------------

template <class T>
cufftResult exec_r2c(const TestPlan& plan, typename Traits<T>::Real* in, T* out) {
  return plan.xt ? cufftXtExec(plan.handle, in, out, CUFFT_FORWARD) : Traits<T>::r2c(plan.handle, in, out);
}
template <class T>
cufftResult exec_c2r(const TestPlan& plan, T* in, typename Traits<T>::Real* out) {
  return plan.xt ? cufftXtExec(plan.handle, in, out, CUFFT_INVERSE) : Traits<T>::c2r(plan.handle, in, out);
}

// The float64 forward DFT of one real transform (dims outermost first, innermost contiguous, the
// reals at `x`), its innermost axis cut to the n/2 + 1 values the complex side keeps.
template <class Real>
std::vector<Cd> half_spectrum(const Real* x, const std::vector<long long>& dims) {
  long long points = 1;
  for (long long d : dims) points *= d;
  const long long n = dims.back();
  const long long slots = n / 2 + 1;
  std::vector<Cd> full(static_cast<std::size_t>(points));
  for (long long i = 0; i < points; ++i) full[i] = Cd(x[i], 0.0);
  full = transform_nd(std::move(full), dims, -1);
  std::vector<Cd> half(static_cast<std::size_t>(points / n * slots));
  for (long long row = 0; row < points / n; ++row) {
    std::copy(full.begin() + row * n, full.begin() + row * n + slots, half.begin() + row * slots);
  }
  return half;
}

// One real shape (dims outermost first, rank 1 to 3) and batch, R2C then C2R, vendor then native.
// The complex side is rows of n/2 + 1 values along the innermost axis (n its length), one row per
// batch entry and index of the outer axes; the real side rows of n reals out of place, of
// 2 (n/2 + 1) in place. `native_expected`: the native policy serves it natively (else the vendor
// does, with no native call counted).
template <class T>
void run_real_case(const std::vector<long long>& dims, long long batch, bool in_place, Maker maker,
                   bool native_expected, std::uint64_t seed) {
  using Real = typename Traits<T>::Real;
  const int rank = static_cast<int>(dims.size());
  long long points = 1;  // reals of one transform
  for (long long d : dims) points *= d;
  if (points > max_points()) return;
  if (points * batch > max_points()) batch = std::max(1LL, max_points() / points);
  if (maker == Maker::kPlanBasic && batch > 1 && rank > 1) maker = Maker::kPlanMany;
  const long long n = dims.back();                        // innermost length
  const long long half = n / 2;
  const long long slots = half + 1;                       // complex values a row, complex side
  const long long rows = points / n;                      // rows of one transform
  const long long row_dist = in_place ? 2 * slots : n;    // reals between rows, real side
  const long long complex_dist = rows * slots;            // complex values between transforms
  const long long real_dist = rows * row_dist;            // reals between transforms, real side
  const std::string shape = dims_text(dims);
  CAPTURE(shape, batch, in_place, maker_name(maker), sizeof(T), native_expected);

  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  auto nonzero = [&] {
    double v = 0;
    while (v == 0) v = static_cast<Real>(uniform(engine));
    return static_cast<Real>(v);
  };
  // R2C input: random reals. C2R input in 1D: a Hermitian-consistent half spectrum (real at 0 and
  // n/2; any complex values between are the half spectrum of some real sequence). In 2D and 3D a
  // random half spectrum is not Hermitian-consistent on the innermost planes 0 and n/2, whose
  // inconsistent part implementations treat differently: there the C2R input is the float64 half
  // spectrum of a second set of random reals y (rounded), its reference points x y.
  std::vector<Real> x(static_cast<std::size_t>(points * batch));
  for (Real& v : x) v = nonzero();
  std::vector<T> spectrum(static_cast<std::size_t>(complex_dist * batch));
  std::vector<Real> y;
  if (rank == 1) {
    for (long long b = 0; b < batch; ++b) {
      for (long long k = 0; k < slots; ++k) {
        T& v = spectrum[b * slots + k];
        v.x = nonzero();
        v.y = k == 0 || k == half ? Real(0) : nonzero();
      }
    }
  } else {
    y.resize(x.size());
    for (Real& v : y) v = nonzero();
    for (long long b = 0; b < batch; ++b) {
      const std::vector<Cd> one = half_spectrum(y.data() + b * points, dims);
      for (long long i = 0; i < complex_dist; ++i) {
        spectrum[b * complex_dist + i].x = static_cast<Real>(one[i].real());
        spectrum[b * complex_dist + i].y = static_cast<Real>(one[i].imag());
      }
    }
  }
  const std::vector<long long> transforms = checked_transforms(batch);
  std::vector<std::vector<Cd>> want_r2c;
  std::vector<std::vector<Cd>> want_c2r;
  for (long long t : transforms) {
    want_r2c.push_back(half_spectrum(x.data() + t * points, dims));
    std::vector<Cd> full(static_cast<std::size_t>(points));
    if (rank == 1) {
      for (long long k = 0; k < n; ++k) {
        full[k] = k <= half ? wide(spectrum[t * slots + k]) : std::conj(wide(spectrum[t * slots + (n - k)]));
      }
      transform_line(full, +1);
      for (Cd& v : full) v = Cd(v.real(), 0.0);
    } else {
      for (long long i = 0; i < points; ++i) full[i] = Cd(static_cast<double>(points) * y[t * points + i], 0.0);
    }
    want_c2r.push_back(full);
  }
  // The real input on the device: out of place n reals a row; in place the padded layout, the two
  // padding reals of each row NaN (never to be read into a result).
  std::vector<Real> real_input(static_cast<std::size_t>(real_dist * batch), std::numeric_limits<Real>::quiet_NaN());
  for (long long row = 0; row < rows * batch; ++row) {
    std::copy(x.begin() + row * n, x.begin() + (row + 1) * n, real_input.begin() + row * row_dist);
  }

  const std::size_t complex_bytes = static_cast<std::size_t>(complex_dist * batch) * sizeof(T);
  const std::size_t real_bytes = real_input.size() * sizeof(Real);  // == complex_bytes in place
  // Each buffer is followed by a guard of poisoned bytes, which no call may write (an overrun by
  // an element would otherwise land in the allocation's slack unseen).
  constexpr std::size_t kGuard = 4096;
  T* d_complex = nullptr;
  Real* d_real = nullptr;
  REQUIRE(cudaMalloc(&d_complex, complex_bytes + kGuard) == cudaSuccess);
  if (in_place) {
    d_real = reinterpret_cast<Real*>(d_complex);
  } else {
    REQUIRE(cudaMalloc(&d_real, real_bytes + kGuard) == cudaSuccess);
  }
  const auto poison_guards = [&] {
    REQUIRE(cudaMemset(reinterpret_cast<char*>(d_complex) + complex_bytes, 0x5a, kGuard) == cudaSuccess);
    if (!in_place) REQUIRE(cudaMemset(reinterpret_cast<char*>(d_real) + real_bytes, 0x5a, kGuard) == cudaSuccess);
  };
  const auto guards_intact = [&] {
    std::vector<unsigned char> guard(kGuard);
    bool intact = true;
    for (char* base : {reinterpret_cast<char*>(d_complex) + complex_bytes,
                       in_place ? nullptr : reinterpret_cast<char*>(d_real) + real_bytes}) {
      if (base == nullptr) continue;
      REQUIRE(cudaMemcpy(guard.data(), base, kGuard, cudaMemcpyDeviceToHost) == cudaSuccess);
      intact = intact && std::all_of(guard.begin(), guard.end(), [](unsigned char b) { return b == 0x5a; });
    }
    return intact;
  };
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);

  std::vector<T> r2c_out[2];
  std::vector<Real> c2r_out[2];  // n reals a row (the padding left out)
  bool r2c_input_changed[2] = {false, false};
  bool c2r_input_changed[2] = {false, false};
  size_t work_sizes[2] = {0, 0};
  const idgpuPolicy_t policies[2] = {IDGPU_POLICY_VENDOR, IDGPU_POLICY_NATIVE};
  for (int side = 0; side < 2; ++side) {
    REQUIRE(idgpuSetPolicy(policies[side]) == IDGPU_STATUS_SUCCESS);
    const unsigned expected_calls = side == 1 && native_expected ? 1u : 0u;
    {
      TestPlan plan(maker, dims, batch, Traits<T>::kR2C, Traits<T>::kRealData, Traits<T>::kComplexData,
                    Traits<T>::kComplexData, in_place);
      work_sizes[side] = plan.work_size;
      if (side == 1) REQUIRE(cufftSetStream(plan.handle, stream) == CUFFT_SUCCESS);
      REQUIRE(cudaMemcpy(d_real, real_input.data(), real_bytes, cudaMemcpyHostToDevice) == cudaSuccess);
      if (!in_place) REQUIRE(cudaMemset(d_complex, 0xff, complex_bytes) == cudaSuccess);  // NaN
      poison_guards();
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      const char* exec_name = plan.xt ? "cufftXtExec" : Traits<T>::kExecR2C;
      const unsigned long long before = native_calls(exec_name);
      REQUIRE(exec_r2c(plan, d_real, d_complex) == CUFFT_SUCCESS);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      REQUIRE(native_calls(exec_name) - before == expected_calls);
      if (side == 1) CHECK(guards_intact());  // R2C wrote nothing past its buffers
      r2c_out[side].resize(spectrum.size());
      REQUIRE(cudaMemcpy(r2c_out[side].data(), d_complex, complex_bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
      if (!in_place) {
        std::vector<Real> after(real_input.size());
        REQUIRE(cudaMemcpy(after.data(), d_real, real_bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        r2c_input_changed[side] = std::memcmp(after.data(), real_input.data(), real_bytes) != 0;
      }
    }
    {
      TestPlan plan(maker, dims, batch, Traits<T>::kC2R, Traits<T>::kComplexData, Traits<T>::kRealData,
                    Traits<T>::kComplexData, in_place);
      if (side == 1) REQUIRE(cufftSetStream(plan.handle, stream) == CUFFT_SUCCESS);
      REQUIRE(cudaMemcpy(d_complex, spectrum.data(), complex_bytes, cudaMemcpyHostToDevice) == cudaSuccess);
      if (!in_place) REQUIRE(cudaMemset(d_real, 0xff, real_bytes) == cudaSuccess);  // NaN
      poison_guards();
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      const char* exec_name = plan.xt ? "cufftXtExec" : Traits<T>::kExecC2R;
      const unsigned long long before = native_calls(exec_name);
      REQUIRE(exec_c2r(plan, d_complex, d_real) == CUFFT_SUCCESS);
      REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
      REQUIRE(native_calls(exec_name) - before == expected_calls);
      if (side == 1) CHECK(guards_intact());  // C2R wrote nothing past its buffers
      std::vector<Real> padded(real_input.size());
      REQUIRE(cudaMemcpy(padded.data(), d_real, real_bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
      c2r_out[side].resize(x.size());
      for (long long row = 0; row < rows * batch; ++row) {
        std::copy(padded.begin() + row * row_dist, padded.begin() + row * row_dist + n,
                  c2r_out[side].begin() + row * n);
      }
      if (!in_place) {
        std::vector<T> after(spectrum.size());
        REQUIRE(cudaMemcpy(after.data(), d_complex, complex_bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
        c2r_input_changed[side] = std::memcmp(after.data(), spectrum.data(), complex_bytes) != 0;
      }
    }
  }
  idgpuSetPolicy(IDGPU_POLICY_AUTO);
  cudaStreamDestroy(stream);
  cudaFree(d_complex);
  if (!in_place) cudaFree(d_real);

  if (!in_place) {
    std::printf("C2R out of place, %s n=%s batch=%lld (%s): input overwritten by the vendor: %s; by idgpu (%s): %s\n",
                sizeof(Real) == 4 ? "fp32" : "fp64", shape.c_str(), batch, maker_name(maker),
                c2r_input_changed[0] ? "yes" : "no", native_expected ? "native" : "vendor",
                c2r_input_changed[1] ? "yes" : "no");
  }

  const auto widen_real = [](Real v) { return Cd(v, 0.0); };
  const double eps = Traits<T>::kEps;
  double r2c_error[2], c2r_error[2];
  for (int side = 0; side < 2; ++side) {
    r2c_error[side] = relative_error(r2c_out[side], want_r2c, transforms, complex_dist, complex_dist, wide<T>);
    c2r_error[side] = relative_error(c2r_out[side], want_c2r, transforms, points, points, widen_real);
  }
  std::size_t not_finite = 0;
  for (const T& v : r2c_out[1]) not_finite += finite(v) ? 0 : 1;
  for (Real v : c2r_out[1]) not_finite += std::isfinite(v) ? 0 : 1;
  const double r2c_versus_vendor = relative_difference(r2c_out[1], r2c_out[0], wide<T>);
  const double c2r_versus_vendor = relative_difference(c2r_out[1], c2r_out[0], widen_real);
  INFO("R2C error vs float64: native " << r2c_error[1] << ", vendor " << r2c_error[0] << "; native vs vendor "
                                       << r2c_versus_vendor << "; C2R error: native " << c2r_error[1] << ", vendor "
                                       << c2r_error[0] << "; native vs vendor " << c2r_versus_vendor
                                       << "; R2C work area: native " << work_sizes[1] << " B, vendor "
                                       << work_sizes[0] << " B");
  CHECK(not_finite == 0);
  CHECK(r2c_error[0] < 1e3 * eps);  // the comparison is meaningful
  CHECK(c2r_error[0] < 1e3 * eps);
  CHECK(r2c_error[1] <= 1.5 * r2c_error[0] + eps);
  CHECK(c2r_error[1] <= 1.5 * c2r_error[0] + eps);
  CHECK(r2c_versus_vendor <= 2.0 * (r2c_error[0] + r2c_error[1]) + 2 * eps);
  CHECK(c2r_versus_vendor <= 2.0 * (c2r_error[0] + c2r_error[1]) + 2 * eps);
  if (native_expected && !in_place) {
    CHECK_FALSE(r2c_input_changed[1]);
    // The native 1D C2R reads its input only; in 2D and 3D its outer-axis passes run in place on
    // it, as cuFFT documents its own multi-dimensional C2R out of place to do.
    if (rank == 1) CHECK_FALSE(c2r_input_changed[1]);
  }
  if (native_expected && (maker == Maker::kMakeMany64Embeds || maker == Maker::kXtMakePlanMany)) {
    CHECK(work_sizes[1] <= work_sizes[0]);
  }
}

// Each length at about `points` reals a call (at least one transform) out of place and in place,
// then batch 1 and batch 3 (one in place, one not), the makers rotating; `native(n)` says whether
// the native policy serves n natively.
template <class T, class Native>
void run_real_lengths(const std::vector<long long>& lengths, std::uint64_t seed, long long points, Native native) {
  int index = 0;
  for (long long n : lengths) {
    const long long full = std::max(1LL, points / n);
    const bool expected = native(n);
    run_real_case<T>({n}, full, false, kMakers[index % 4], expected, seed++);
    run_real_case<T>({n}, full, true, kMakers[(index + 1) % 4], expected, seed++);
    run_real_case<T>({n}, 1, index % 2 == 0, kMakers[(index + 2) % 4], expected, seed++);
    run_real_case<T>({n}, 3, index % 2 == 1, kMakers[(index + 3) % 4], expected, seed++);
    ++index;
  }
}

// Lengths that one pass serves: even n with a 13-smooth half, odd n 13-smooth itself (one pass
// of n points), up to Traits<T>::kMaxNativeReal, and the others (a prime factor above 13) where
// the points' Bluestein convolution over the power of two M >= 2 points - 1 fits one pass (a
// shorter mixed M, where one is compiled, fits too); 2^24 reals a call.
template <class T>
void run_real_lengths(const std::vector<long long>& lengths, std::uint64_t seed) {
  run_real_lengths<T>(lengths, seed, 1LL << 24, [](long long n) {
    const long long points = n % 2 == 0 ? n / 2 : n;
    if (n < 3) return false;
    if (smooth13(points)) return n <= Traits<T>::kMaxNativeReal;
    long long m = 1;
    while (m < 2 * points - 1) m *= 2;
    return m <= Traits<T>::kMaxBluestein;
  });
}

// Even lengths whose half takes two passes (from 2^16 in fp32, 2^15 in fp64), or is a cluster
// length (2^15..2^17 reals): powers of two native (2^15..2^17 one cluster kernel with the real
// step; above, the real step paired across the columns of the pass that meets the complex side,
// fp64 2^18..2^21 both passes in one fused kernel), the others with the vendor; 2^20 reals a
// call.
template <class T>
void run_two_pass_real_lengths(const std::vector<long long>& lengths, std::uint64_t seed) {
  run_real_lengths<T>(lengths, seed, 1LL << 20, [](long long n) { return (n & (n - 1)) == 0; });
}

struct RealShape {
  std::vector<long long> dims;
  long long batch;
  bool native;  // served natively under the native policy (else by the vendor, no native call)
};

// Each 2D / 3D real shape out of place and in place, the makers rotating as in run_nd_shapes.
template <class T>
void run_real_shapes(const std::vector<RealShape>& shapes, int maker_offset, std::uint64_t seed) {
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    for (int variant = 0; variant < 2; ++variant) {
      const Maker maker = kMakers[(3 * s + static_cast<std::size_t>(variant + maker_offset)) % 4];
      run_real_case<T>(shapes[s].dims, shapes[s].batch, variant == 1, maker, shapes[s].native,
                       seed + 2 * s + static_cast<std::uint64_t>(variant));
    }
  }
}

}  // namespace

// Square power-of-two planes of 128^2 .. 1024^2 run as one fused kernel (FusedKind::kAxes; 2048^2
// and 4096^2 as two axis passes); {128, 128} x 2 stays under the sanitizer runs' cap of points a
// call.
TEST_CASE("native 2D C2C and Z2Z in the default layout", "[fft][2d]") {
  run_nd_shapes<cufftComplex>({{{128, 128}, 2},
                               {{128, 128}, 100},
                               {{256, 256}, 7},
                               {{512, 512}, 3},
                               {{2048, 2048}, 1},
                               {{1024, 1024}, 1},
                               {{1024, 1024}, 4},
                               {{4096, 4096}, 1},
                               {{2048, 512}, 1},
                               {{64, 64}, 1000},
                               {{100, 60}, 1},
                               {{100, 60}, 7},
                               {{8192, 8192}, 1}},
                              0, 1000);
  run_nd_shapes<cufftDoubleComplex>({{{128, 128}, 2},
                                     {{128, 128}, 100},
                                     {{256, 256}, 7},
                                     {{512, 512}, 3},
                                     {{1024, 1024}, 1},
                                     {{1024, 1024}, 4},
                                     {{4096, 4096}, 1},
                                     {{2048, 512}, 1},
                                     {{64, 64}, 1000},
                                     {{100, 60}, 1},
                                     {{100, 60}, 7},
                                     {{8192, 4096}, 1}},
                                    1, 2000);
}

// Outer axes of 2^11..2^13 points over lines in multiples of 16 (fp32) or 8 (fp64): cluster
// column passes (fft/stockham_index.h).
TEST_CASE("native 2D and 3D C2C over cluster column passes", "[fft][2d][cluster-columns]") {
  const std::vector<NdShape> shapes = {
      {{2048, 16}, 2}, {{4096, 16}, 1}, {{8192, 16}, 1},  // small: also under the sanitizers' cap
      {{2048, 1024}, 3}, {{1024, 2048, 16}, 1}, {{8192, 64}, 5}, {{4096, 48}, 2}, {{1024, 4096}, 1}};
  run_nd_shapes<cufftComplex>(shapes, 0, 5000);
  run_nd_shapes<cufftDoubleComplex>({{{2048, 8}, 2}, {{4096, 8}, 1}, {{2048, 1024}, 3}, {{8192, 64}, 5}}, 1, 6000);
}

TEST_CASE("native 3D C2C and Z2Z in the default layout", "[fft][3d]") {
  const std::vector<NdShape> shapes = {
      {{128, 128, 128}, 1}, {{256, 256, 256}, 1}, {{64, 128, 32}, 3}, {{12, 10, 6}, 5}, {{12, 10, 6}, 1},
      {{2, 128, 128}, 1},   {{5, 512, 512}, 2}};
  run_nd_shapes<cufftComplex>(shapes, 0, 3000);
  run_nd_shapes<cufftDoubleComplex>(shapes, 1, 4000);
}

// Even lengths whose half has no prime factor above 13 are native (powers of two on the
// power-of-two kernels, the others on the general one), and odd 13-smooth lengths (a pass of n
// points); n = 34 (half 17) and 17 too, as one Bluestein pass with the real step (a case of its
// own below).
TEST_CASE("native R2C and C2R, lengths up to 2^15", "[fft][real]") {
  run_real_lengths<cufftComplex>({8, 15, 17, 34, 64, 243, 256, 400, 1000, 1001, 1024, 1920, 3375, 4096, 1LL << 14,
                                  1LL << 15},
                                 5000);
}

TEST_CASE("native D2Z and Z2D, lengths up to 2^14", "[fft][real]") {
  run_real_lengths<cufftDoubleComplex>({8, 15, 34, 64, 243, 256, 400, 1000, 1001, 1024, 4096, 1LL << 14}, 6000);
}

// Real lengths with a prime factor above 13 (the half's, for even n): one Bluestein pass with the
// real step on its loads and stores, where the convolution fits a block (M <= 2^14 fp32, 2^13
// fp64): odd primes, twice a prime, 3 x a prime, a prime square; past that (fp32 2 x 8209,
// 8209; fp64 2 x 4099) the vendor under the native policy, with no native call counted. The
// mixed convolution lengths (kernels/stockham_bluestein_mixed.cuh) among them: fp32 4099,
// 2 x 4099 and 2 x 5003 (M = 10240), 2 x 6007 (12288); fp64 2053 and 2 x 2053 (5120; 2 x 2579
// takes the power of two 8192).
TEST_CASE("native R2C, C2R, D2Z and Z2D of lengths with a prime factor above 13", "[fft][real][bluestein]") {
  run_real_lengths<cufftComplex>({17, 34, 23, 202, 289, 1031, 2062, 3 * 1031, 4099, 2 * 4099, 8191, 2 * 8191,
                                  2 * 5003, 2 * 6007, 8209, 2 * 8209},
                                 5500);
  run_real_lengths<cufftDoubleComplex>(
      {17, 34, 101, 2 * 1031, 2053, 2 * 2053, 2 * 2579, 4093, 2 * 4093, 2 * 4099, 4099}, 6500);
}

// fp64 real lengths whose complex pass widens its stages to fit 512 threads (FftPass::
// widened_limit): the halves 3850, 4004, 4095, 6561 and the odd lengths 4095, 6561 themselves.
TEST_CASE("native D2Z and Z2D over widened fp64 passes", "[fft][real][widened]") {
  run_real_lengths<cufftDoubleComplex>({7700, 8008, 8190, 13122, 4095, 6561}, 6100);
}

TEST_CASE("native R2C, C2R, D2Z and Z2D whose half takes two passes", "[fft][real][two-pass]") {
  // 2^15..2^17: one cluster kernel (the half a cluster length). 163840 and 98304: one of the two
  // passes a power of two (the paired one, 256), the other not: the vendor's (the general
  // kernel's 16-byte accesses assume even transform distances).
  run_two_pass_real_lengths<cufftComplex>(
      {1LL << 15, 1LL << 16, 1LL << 17, 1LL << 18, 1LL << 20, 1LL << 23, 118098, 163840, 98304}, 7000);
  run_two_pass_real_lengths<cufftDoubleComplex>(
      {1LL << 15, 1LL << 16, 1LL << 17, 1LL << 18, 1LL << 19, 1LL << 21, 118098}, 7100);
}

// Halves of 2^22 and more split into passes of 2^11..2^13 points: cluster column passes, the
// paired one with the real step (R2C's last pass, C2R's first; fft/stockham_index.h). 2^23 reals
// in batches of 1 and 3, in and out of place (the sanitizer runs' case: IDGPU_TEST_MAX_POINTS=8400000);
// 2^24 and 2^26 (a pass of 2^13) and fp64 2^25, 2^26 in fewer calls: each call's float64
// reference takes seconds on the host.
TEST_CASE("native R2C and C2R over cluster column passes", "[fft][real][cluster-columns]") {
  run_two_pass_real_lengths<cufftComplex>({1LL << 23}, 7200);
  run_real_case<cufftComplex>({1LL << 24}, 2, false, kMakers[1], true, 7210);
  run_real_case<cufftComplex>({1LL << 26}, 1, true, kMakers[2], true, 7211);
}

TEST_CASE("native D2Z and Z2D over cluster column passes", "[fft][real][cluster-columns][fp64]") {
  run_two_pass_real_lengths<cufftDoubleComplex>({1LL << 23}, 7300);
  run_real_case<cufftDoubleComplex>({1LL << 25}, 1, false, kMakers[3], true, 7310);
  // 2^26: a paired first pass of 2^13 points, whose two columns fit no block (a cluster only).
  run_real_case<cufftDoubleComplex>({1LL << 26}, 1, true, kMakers[0], true, 7311);
}

// Native where the innermost length is even with a 13-smooth half, or odd and 13-smooth, or has a
// prime factor above 13 whose Bluestein convolution fits one pass (34, 2 x 1031, 4099).
// Square power-of-two planes of 128^2 .. 1024^2 run the real pass and the next axis as one fused
// kernel (FusedKind::kRealForward / kRealInverse): a C2R plane's last column tile is short (the
// n / 2 + 1 columns), an R2C plane's Nyquist column runs packed with column 0; {128, 128} x 2
// stays under the sanitizer runs' cap of points a call.
TEST_CASE("native 2D R2C, C2R, D2Z and Z2D in the default layout", "[fft][real][2d]") {
  run_real_shapes<cufftComplex>({{{128, 128}, 2, true},
                                 {{256, 256}, 5, true},
                                 {{512, 512}, 1, true},
                                 {{1024, 1024}, 1, true},
                                 {{64, 64}, 100, true},
                                 {{100, 64}, 3, true},
                                 {{2048, 256}, 1, true},
                                 {{60, 400}, 1, true},
                                 {{100, 45}, 3, true},
                                 {{60, 34}, 1, true},
                                 {{30, 2 * 1031}, 2, true},
                                 {{16, 4099}, 1, true}},
                                0, 8000);
  run_real_shapes<cufftDoubleComplex>({{{128, 128}, 2, true},
                                       {{256, 256}, 5, true},
                                       {{1024, 1024}, 1, true},
                                       {{512, 512}, 1, true},
                                       {{64, 64}, 100, true},
                                       {{100, 64}, 3, true},
                                       {{1024, 256}, 1, true},
                                       {{60, 400}, 1, true},
                                       {{60, 34}, 1, true},
                                       {{30, 2 * 2053}, 1, true}},
                                      1, 8100);
}

// R2C planes whose outer axis of 2^11..2^13 points runs as a packed cluster column pass (line
// n / 2 packed into line 0, clusters over the n / 2 others); their C2R the pass kernels. {2048,
// 32} x 2 stays under the sanitizer runs' cap of 140000 points a call.
TEST_CASE("native 2D and 3D R2C and D2Z with a packed cluster column pass", "[fft][real][2d][cluster-columns]") {
  run_real_shapes<cufftComplex>({{{2048, 32}, 2, true},
                                 {{2048, 2048}, 3, true},
                                 {{4096, 4096}, 1, true},
                                 {{8192, 64}, 2, true},
                                 {{2, 2048, 32}, 3, true}},
                                0, 8200);
  run_real_shapes<cufftDoubleComplex>({{{2048, 16}, 2, true}, {{4096, 4096}, 1, true}, {{8192, 256}, 1, true}}, 1,
                                      8300);
}

TEST_CASE("native 3D R2C, C2R, D2Z and Z2D in the default layout", "[fft][real][3d]") {
  run_real_shapes<cufftComplex>({{{7, 12, 16}, 5, true},
                                 {{128, 128, 128}, 1, true},
                                 {{2, 128, 128}, 1, true},
                                 {{3, 256, 256}, 2, true},
                                 {{64, 32, 16}, 3, true},
                                 {{8, 8, 10}, 2, true},
                                 {{12, 10, 15}, 2, true},
                                 {{6, 6, 34}, 2, true},   // the innermost half 17: one Bluestein pass
                                 {{17, 6, 8}, 2, false}}, // an outer axis of 17 points: the vendor
                                0, 9000);
  run_real_shapes<cufftDoubleComplex>(
      {{{7, 12, 16}, 5, true}, {{64, 64, 64}, 2, true}, {{32, 32, 8}, 1, true}, {{2, 128, 128}, 1, true}}, 1, 9100);
}

// The layouts plan_c2c_strided serves (fft/planner.h): contiguous transforms spaced apart, and the
// lines of an [n][S] array (a transform along a non-last axis) written in the same layout or
// contiguously; both plan entry points, both directions, in place where the layouts agree.
TEST_CASE("native 1D C2C and Z2Z in strided and embedded layouts", "[fft][strided]") {
  const std::vector<Strided> layouts = {
      {{64}, 1000, 1, 70, 1, 80},    {{1024}, 300, 1, 1040, 1, 1024}, {{100}, 77, 1, 100, 1, 128},
      {{256}, 512, 512, 1, 512, 1},  {{1024}, 64, 64, 1, 64, 1},      {{60}, 7, 7, 1, 1, 60},
      {{4096}, 96, 96, 1, 1, 4100},  {{8}, 4096, 4096, 1, 1, 8},      {{2187}, 40, 40, 1, 40, 1},
      {{1LL << 13}, 33, 33, 1, 33, 1}};
  std::uint64_t seed = 7000;
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const Strided& l = layouts[i];
    const bool same = l.istride == l.ostride && l.idist == l.odist;
    run_strided_case<cufftComplex>(l, CUFFT_FORWARD, false, i % 2 == 0, ++seed);
    run_strided_case<cufftComplex>(l, CUFFT_INVERSE, false, i % 2 == 1, ++seed);
    if (same) run_strided_case<cufftComplex>(l, CUFFT_FORWARD, true, i % 2 == 0, ++seed);
    if (l.total() <= 4096) {
      run_strided_case<cufftDoubleComplex>(l, CUFFT_INVERSE, false, i % 2 == 0, ++seed);
      if (same) run_strided_case<cufftDoubleComplex>(l, CUFFT_FORWARD, true, i % 2 == 1, ++seed);
    }
  }
}

// The lines of a [dims][S] array in 2D and 3D (plan_c2c_lines): PyTorch's fftn over leading
// dimensions (its rfftn of 256^3: the R2C's 129 lines, written as contiguous planes) and CuPy's
// axes=; written in the same layout (in place too) or each transform contiguous.
TEST_CASE("native 2D and 3D C2C and Z2Z over the lines of a strided array", "[fft][strided][lines]") {
  const long long cap = max_points();
  const auto lines = [](std::vector<long long> dims, long long s, bool contiguous) {
    Strided l{std::move(dims), s, s, 1, s, 1};
    if (contiguous) {
      l.ostride = 1;
      l.odist = l.total();
    }
    return l;
  };
  const std::vector<Strided> layouts = {
      lines({256, 256}, 129, true),  lines({256, 256}, 129, false), lines({64, 64}, 3, false),
      lines({128, 96}, 17, true),    lines({1000, 10}, 5, false),   lines({8, 8}, 1000, true),
      lines({32, 64, 16}, 7, false), lines({64, 64, 64}, 33, true), lines({100, 12, 12}, 2, true),
      lines({2048, 512}, 4, false),  lines({16, 16, 16}, 4096, false),
      // Small enough for the sanitizer runs' cap of points a call (both outputs, 2D and 3D).
      // 32^2 x 17 (fp32 rows of 16 lines, fp64 of 16) and 12 x 10 x 33 (fp64): blocks whose
      // lines straddle two rows of the first axis (PassShape::straddles), on the power-of-two
      // and the general kernel.
      lines({16, 16}, 9, true),      lines({12, 10}, 33, false),    lines({8, 6, 10}, 3, false),
      lines({4, 8, 6}, 5, true),     lines({32, 32}, 17, true),     lines({32, 32}, 17, false)};
  std::uint64_t seed = 7500;
  for (std::size_t i = 0; i < layouts.size(); ++i) {
    const Strided& l = layouts[i];
    if (l.total() * l.batch > cap) continue;
    const bool same = l.istride == l.ostride;
    run_strided_case<cufftComplex>(l, CUFFT_FORWARD, false, i % 2 == 0, ++seed);
    run_strided_case<cufftComplex>(l, CUFFT_INVERSE, false, i % 2 == 1, ++seed);
    if (same) run_strided_case<cufftComplex>(l, CUFFT_INVERSE, true, i % 2 == 0, ++seed);
    run_strided_case<cufftDoubleComplex>(l, CUFFT_FORWARD, same && i % 3 == 0, i % 2 == 1, ++seed);
  }
}
