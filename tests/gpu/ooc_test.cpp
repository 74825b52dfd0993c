// The out-of-core FFT (idgpuOoc*, include/idgpu/idgpu.h) on the GPU.
//
// Every case transforms random data (fixed seeds, printed through CAPTURE with a failure; never
// zero) in host memory with idgpuOocExec, and compares with the in-core transform of the same data
// by the vendor: copied to the device, cufftPlanMany + cufftExecC2C / Z2Z, copied back. The test is
// linked against libidgpu ahead of the vendor's cuFFT, as the other GPU tests are, so its cufft*
// calls reach idgpu: the reference runs under IDGPU_POLICY_VENDOR (idgpuSetPolicy), which forwards
// every plan to the vendor library, and the out-of-core plans are made under the default policy.
//
// Oracles and tolerances, u the unit roundoff (2^-24, 2^-53), N the points of one transform:
//  - fp32: a float64 reference, the vendor's Z2Z of the same (widened) input. The out-of-core
//    result's relative L2 error against it must be at most twice the vendor's fp32 error on the
//    same input plus 2u (its chunks run the same kind of FFTs, split differently: along axes 1 and 2,
//    then axis 0), and at most 8 u log2 N.
//  - fp64: no higher precision on the device, so the relative L2 distance to the vendor's Z2Z must
//    be at most 8 u log2 N. The worst-case bound of a radix FFT's relative error is about
//    6 u log2 N (Higham, "Accuracy and Stability of Numerical Algorithms", Thm. 24.2) and typical
//    errors are far below (u sqrt(log2 N)): the two transforms then differ by much less than the
//    bound, while a wrong element, line or twiddle gives a distance of order 1.
//  - forward then inverse returns N times the input (reference-free): its error at most twice the
//    vendor's round trip plus 2u, and at most 16 u log2 N (two transforms).
//  - the inverse on the original input against the vendor's inverse, as the forward.
//
// Budgets: from schedule.h's device_bytes_for_slot (src/ooc/schedule.cpp is compiled in), slots of
// ceil(units / c) planes (3D) or transforms (batched) for c in 4..16, which the CPU test ooc.plan
// checks to give 4 to 16 chunks in every phase; idgpuOocGetSchedule must report two round trips
// for a 3D array that does not fit one slot (one for n0 = 1: a plane is never split; one for a
// batch) and that many chunks. A budget of exactly the least one works and one byte less is
// refused; deviceBytes 0 takes 80% of the free memory (one chunk for these sizes), or
// IDGPU_OOC_DEVICE_BYTES (the hidden [env] case, its own CTest entry). User data in pageable and in
// pinned memory. IDGPU_TEST_MAX_POINTS skips the larger arrays.
//
// Real transforms ([real]: idgpuOocPlanReal3d / idgpuOocPlanRealMany1d, idgpuOocExecR2C / C2R): the
// same oracles against the vendor's in-core cufftPlanMany R2C / C2R (D2Z / Z2D; fp32 against D2Z /
// Z2D of the widened input), for 3D arrays (n2 even and odd, n0 = 1, a larger one) and batched 1D
// transforms (n even and odd), out of place (real rows n2 apart) and in place (cuFFT's padded
// layout, rows 2 (n2 / 2 + 1) reals apart, the padding NaN on input). R2C of random reals; C2R of
// that result (N times the input, reference-free); C2R of a Hermitian half spectrum (the float64 R2C
// of other random reals, made exactly conjugate-symmetric: make_hermitian says why), from a copy,
// since C2R may overwrite its input. R2C out of place must leave `in` bit for bit unchanged.
// Budgets as above on the COMPLEX problem of the half spectrum [n0][n1][n2 / 2 + 1], which the real
// plan is scheduled as: two round trips for a 3D array in chunks, one for a plane or a batch, at
// least 4 chunks a phase (more where cuFFT's real plans ask for more work area), and one chunk
// with deviceBytes 0. Bad input: real plans of n2 or n < 2 and the like refused at plan time,
// idgpuOocExec on a real plan and the real execs on a complex plan refused, null and device
// pointers refused, each writing nothing.
//
// Bandwidth (printed, not asserted; [bandwidth]): pinned H2D and D2H copies of 256 MiB, each way
// alone and both at once on two streams, and the out-of-core transforms of 256^3 fp32 and of 8192
// transforms of 4096 points, as 2 x bytes / time against two directions at once: the fraction of
// one round trip's bound.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#define IDGPU_NATIVE_TEST_MAIN
#include "native_test_support.h"
#include "ooc_test_support.h"

#include <cuda_runtime.h>
#include <cufft.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "idgpu/idgpu.h"
#include "ooc/schedule.h"

namespace {

namespace ooc = idgpu::ooc;
using idgpu::test::CopyBandwidth;
using idgpu::test::DeviceBuffer;
using idgpu::test::HostArray;
using idgpu::test::max_points;
using idgpu::test::measure_copies;
using idgpu::test::PinnedBuffer;
using Extents = std::array<long long, 3>;

constexpr double kEps32 = 5.9604644775390625e-8;   // 2^-24
constexpr double kEps64 = 1.1102230246251565e-16;  // 2^-53

template <class Real>
struct Traits;
template <>
struct Traits<float> {
  using Complex = cufftComplex;
  static constexpr cufftType kType = CUFFT_C2C;
  static constexpr idgpuPrecision_t kPrecision = IDGPU_PRECISION_SINGLE;
  static constexpr double kEps = kEps32;
  static constexpr const char* kName = "fp32";
  static cufftResult exec(cufftHandle plan, void* in, void* out, int direction) {
    return cufftExecC2C(plan, static_cast<cufftComplex*>(in), static_cast<cufftComplex*>(out), direction);
  }
  static constexpr cufftType kR2C = CUFFT_R2C;
  static constexpr cufftType kC2R = CUFFT_C2R;
  static cufftResult exec_r2c(cufftHandle plan, void* in, void* out) {
    return cufftExecR2C(plan, static_cast<cufftReal*>(in), static_cast<cufftComplex*>(out));
  }
  static cufftResult exec_c2r(cufftHandle plan, void* in, void* out) {
    return cufftExecC2R(plan, static_cast<cufftComplex*>(in), static_cast<cufftReal*>(out));
  }
};
template <>
struct Traits<double> {
  using Complex = cufftDoubleComplex;
  static constexpr cufftType kType = CUFFT_Z2Z;
  static constexpr idgpuPrecision_t kPrecision = IDGPU_PRECISION_DOUBLE;
  static constexpr double kEps = kEps64;
  static constexpr const char* kName = "fp64";
  static cufftResult exec(cufftHandle plan, void* in, void* out, int direction) {
    return cufftExecZ2Z(plan, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleComplex*>(out),
                        direction);
  }
  static constexpr cufftType kR2C = CUFFT_D2Z;
  static constexpr cufftType kC2R = CUFFT_Z2D;
  static cufftResult exec_r2c(cufftHandle plan, void* in, void* out) {
    return cufftExecD2Z(plan, static_cast<cufftDoubleReal*>(in), static_cast<cufftDoubleComplex*>(out));
  }
  static cufftResult exec_c2r(cufftHandle plan, void* in, void* out) {
    return cufftExecZ2D(plan, static_cast<cufftDoubleComplex*>(in), static_cast<cufftDoubleReal*>(out));
  }
};

// A problem: [n0][n1][n2] transformed along all three axes, or `batch` (extents[0]) transforms of
// n (extents[2]) points.
struct Shape {
  Extents extents{1, 1, 1};
  bool batched = false;

  static Shape three_d(long long n0, long long n1, long long n2) { return {{n0, n1, n2}, false}; }
  static Shape many_1d(long long n, long long batch) { return {{batch, 1, n}, true}; }

  long long elements() const { return extents[0] * extents[1] * extents[2]; }
  // Points of one transform: the factor of a forward-inverse round trip.
  long long transform_points() const { return batched ? extents[2] : elements(); }
  double log2_points() const { return std::max(1.0, std::log2(static_cast<double>(transform_points()))); }
  ooc::Problem problem(int element_bytes) const {
    return batched ? ooc::batched_1d(extents[0], extents[2], element_bytes)
                   : ooc::three_d(extents[0], extents[1], extents[2], element_bytes);
  }
  std::string text() const {
    std::ostringstream out;
    if (batched) {
      out << extents[0] << " transforms of " << extents[2];
    } else {
      out << extents[0] << "x" << extents[1] << "x" << extents[2];
    }
    return out.str();
  }
};

// Sets the dispatch policy for a scope, then restores the one before.
class PolicyScope {
 public:
  explicit PolicyScope(idgpuPolicy_t policy) {
    REQUIRE(idgpuGetPolicy(&previous_) == IDGPU_STATUS_SUCCESS);
    REQUIRE(idgpuSetPolicy(policy) == IDGPU_STATUS_SUCCESS);
  }
  ~PolicyScope() { idgpuSetPolicy(previous_); }
  PolicyScope(const PolicyScope&) = delete;
  PolicyScope& operator=(const PolicyScope&) = delete;

 private:
  idgpuPolicy_t previous_ = IDGPU_POLICY_AUTO;
};

// An out-of-core plan, destroyed with the scope.
class OocPlan {
 public:
  OocPlan() = default;
  ~OocPlan() {
    if (plan_ != nullptr) idgpuOocDestroy(plan_);
  }
  OocPlan(const OocPlan&) = delete;
  OocPlan& operator=(const OocPlan&) = delete;
  idgpuOocPlan_t* out() { return &plan_; }
  idgpuOocPlan_t get() const { return plan_; }

 private:
  idgpuOocPlan_t plan_ = nullptr;
};

idgpuStatus_t make_plan(OocPlan* plan, const Shape& shape, idgpuPrecision_t precision, std::size_t budget) {
  const Extents& e = shape.extents;
  return shape.batched ? idgpuOocPlanMany1d(plan->out(), e[2], e[0], precision, budget)
                       : idgpuOocPlan3d(plan->out(), e[0], e[1], e[2], precision, budget);
}

// Interleaved complex values in [-1, 1)^2, never exactly zero.
template <class Real>
std::vector<Real> random_values(long long elements, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<Real> values(static_cast<std::size_t>(2 * elements));
  for (std::size_t i = 0; i < values.size(); i += 2) {
    do {
      values[i] = static_cast<Real>(uniform(engine));
      values[i + 1] = static_cast<Real>(uniform(engine));
    } while (values[i] == 0 && values[i + 1] == 0);
  }
  return values;
}

template <class Real>
std::vector<double> widen(const std::vector<Real>& values) {
  return std::vector<double>(values.begin(), values.end());
}

// ||y - scale x|| / ||scale x||, interleaved complex values.
template <class A, class B>
double relative_distance(const std::vector<A>& y, const std::vector<B>& x, double scale = 1.0) {
  double error = 0, norm = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double reference = scale * static_cast<double>(x[i]);
    const double difference = static_cast<double>(y[i]) - reference;
    error += difference * difference;
    norm += reference * reference;
  }
  return std::sqrt(error / norm);
}

template <class Real>
bool all_finite(const std::vector<Real>& values) {
  return std::all_of(values.begin(), values.end(), [](Real v) { return std::isfinite(v); });
}

// The vendor's in-core transforms of `x`: forward, inverse, and the inverse of the forward.
template <class Real>
struct VendorResults {
  std::vector<Real> forward, inverse, round_trip;
};

template <class Real>
VendorResults<Real> vendor_transforms(const std::vector<Real>& x, const Shape& shape) {
  PolicyScope vendor(IDGPU_POLICY_VENDOR);
  const std::size_t bytes = x.size() * sizeof(Real);
  DeviceBuffer input(bytes), output(bytes);
  REQUIRE(cudaMemcpy(input.get(), x.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  // The axes of length > 1 (cuFFT's plans take none of length 1 in a rank > 1).
  std::vector<int> n;
  int batch = 1;
  if (shape.batched) {
    n = {static_cast<int>(shape.extents[2])};
    batch = static_cast<int>(shape.extents[0]);
  } else {
    for (long long extent : shape.extents) {
      if (extent > 1) n.push_back(static_cast<int>(extent));
    }
    if (n.empty()) n = {1};
  }
  cufftHandle plan = 0;
  REQUIRE(cufftPlanMany(&plan, static_cast<int>(n.size()), n.data(), nullptr, 1, 0, nullptr, 1, 0,
                        Traits<Real>::kType, batch) == CUFFT_SUCCESS);
  VendorResults<Real> results;
  const auto download = [&](const DeviceBuffer& from, std::vector<Real>* to) {
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    to->resize(x.size());
    REQUIRE(cudaMemcpy(to->data(), from.get(), bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
  };
  CHECK(Traits<Real>::exec(plan, input.get(), output.get(), CUFFT_FORWARD) == CUFFT_SUCCESS);
  download(output, &results.forward);
  CHECK(Traits<Real>::exec(plan, output.get(), output.get(), CUFFT_INVERSE) == CUFFT_SUCCESS);
  download(output, &results.round_trip);
  CHECK(Traits<Real>::exec(plan, input.get(), input.get(), CUFFT_INVERSE) == CUFFT_SUCCESS);
  download(input, &results.inverse);
  cufftDestroy(plan);
  return results;
}

// idgpuOocExec on `values` in place, through a pinned copy where `pinned` is given.
template <class Real>
idgpuStatus_t ooc_exec(idgpuOocPlan_t plan, std::vector<Real>* values, int direction, PinnedBuffer* pinned) {
  if (pinned == nullptr) return idgpuOocExec(plan, values->data(), direction);
  const std::size_t bytes = values->size() * sizeof(Real);
  REQUIRE(pinned->bytes() >= bytes);
  std::memcpy(pinned->get(), values->data(), bytes);
  const idgpuStatus_t status = idgpuOocExec(plan, pinned->get(), direction);
  std::memcpy(values->data(), pinned->get(), bytes);
  return status;
}

// The budget of slots of ceil(units / chunks) planes (3D) or transforms (batched), units = n0 or
// the batch: about `chunks` chunks a phase.
long long budget_for_chunks(const Shape& shape, int element_bytes, long long chunks) {
  const Extents& e = shape.extents;
  const long long per_chunk = (e[0] + chunks - 1) / chunks;
  return ooc::device_bytes_for_slot(per_chunk * e[1] * e[2] * element_bytes, ooc::kDefaultSlotCount, 1.0);
}

// The schedule schedule.h gives for the budget, as the plan makes it (two-phase forced for 3D).
ooc::ScheduleResult predicted_schedule(const Shape& shape, int element_bytes, long long budget) {
  ooc::Options options;
  options.device_bytes = budget;
  if (!shape.batched) options.force = ooc::ScheduleKind::kTwoPhase;
  return ooc::make_schedule(shape.problem(element_bytes), options);
}

std::uint64_t seed_of(const Shape& shape, int element_bytes) {
  std::uint64_t seed = 20140400u + static_cast<std::uint64_t>(element_bytes) + (shape.batched ? 7u : 0u);
  for (long long extent : shape.extents) seed = seed * 1000003u + static_cast<std::uint64_t>(extent);
  return seed;
}

// One transform's result against the vendor's on the same input (see the top of this file): with a
// float64 reference (fp32), the error at most twice the vendor's plus 2u and at most 8 u log2 N;
// without (fp64), the distance to the vendor's result at most 8 u log2 N.
template <class Real>
void check_against_vendor(const std::vector<Real>& ours, const std::vector<Real>& vendors,
                          const std::vector<double>* reference, double log_n, const char* what) {
  const double eps = Traits<Real>::kEps;
  CAPTURE(what);
  if (reference != nullptr) {
    const double error = relative_distance(ours, *reference);
    const double vendor_error = relative_distance(vendors, *reference);
    CAPTURE(error, vendor_error);
    CHECK(error <= 2 * vendor_error + 2 * eps);
    CHECK(error <= 8 * eps * log_n);
  } else {
    const double distance = relative_distance(ours, vendors);
    CAPTURE(distance, 8 * eps * log_n);
    CHECK(distance <= 8 * eps * log_n);
  }
}

// A forward-inverse round trip against `points` times its input (reference-free): the error at most
// twice the vendor's round trip plus 2u, and at most 16 u log2 N (two transforms).
template <class Real>
void check_round_trip(const std::vector<Real>& ours, const std::vector<Real>& vendors, const std::vector<Real>& x,
                      long long points, double log_n) {
  const double eps = Traits<Real>::kEps;
  const double scale = static_cast<double>(points);
  const double error = relative_distance(ours, x, scale);
  const double vendor_error = relative_distance(vendors, x, scale);
  CAPTURE(error, vendor_error);
  CHECK(error <= 2 * vendor_error + 2 * eps);
  CHECK(error <= 16 * eps * log_n);
}

// One plan's forward, round trip and inverse against the vendor (see the top of this file).
template <class Real>
void check_plan_against_vendor(idgpuOocPlan_t plan, const Shape& shape, bool pinned_data) {
  constexpr int kElementBytes = 2 * sizeof(Real);
  const double log_n = shape.log2_points();
  const std::uint64_t seed = seed_of(shape, kElementBytes);
  CAPTURE(seed, pinned_data);
  const std::vector<Real> x = random_values<Real>(shape.elements(), seed);
  const VendorResults<Real> vendor = vendor_transforms(x, shape);
  std::optional<VendorResults<double>> wide;
  if constexpr (sizeof(Real) == 4) wide = vendor_transforms(widen(x), shape);
  std::optional<PinnedBuffer> pinned;
  if (pinned_data) pinned.emplace(x.size() * sizeof(Real));
  PinnedBuffer* staging = pinned ? &*pinned : nullptr;

  // Forward, then the inverse of its result.
  std::vector<Real> data = x;
  REQUIRE(ooc_exec(plan, &data, IDGPU_OOC_FORWARD, staging) == IDGPU_STATUS_SUCCESS);
  REQUIRE(all_finite(data));
  check_against_vendor(data, vendor.forward, wide ? &wide->forward : nullptr, log_n, "forward");
  REQUIRE(ooc_exec(plan, &data, IDGPU_OOC_INVERSE, staging) == IDGPU_STATUS_SUCCESS);
  check_round_trip(data, vendor.round_trip, x, shape.transform_points(), log_n);
  // The inverse of the original input.
  data = x;
  REQUIRE(ooc_exec(plan, &data, IDGPU_OOC_INVERSE, staging) == IDGPU_STATUS_SUCCESS);
  check_against_vendor(data, vendor.inverse, wide ? &wide->inverse : nullptr, log_n, "inverse");
}

struct Case {
  Shape shape;
  long long chunks = 8;  // chunks a phase the budget asks for
  bool pinned = false;  // the user's data in pinned memory
};

template <class Real>
void run_chunked_case(const Case& c) {
  constexpr int kElementBytes = 2 * sizeof(Real);
  const Shape& shape = c.shape;
  CAPTURE(shape.text(), Traits<Real>::kName, c.chunks, c.pinned);
  if (shape.elements() > max_points()) {
    WARN("skipped: more than IDGPU_TEST_MAX_POINTS points");
    return;
  }
  const long long budget = budget_for_chunks(shape, kElementBytes, c.chunks);
  const ooc::ScheduleResult predicted = predicted_schedule(shape, kElementBytes, budget);
  REQUIRE(predicted.schedule);
  const int phases = static_cast<int>(predicted.schedule->phases.size());
  const bool one_plane = !shape.batched && shape.extents[0] == 1;  // a plane is never split
  const int expected_round_trips = shape.batched || one_plane ? 1 : 2;
  REQUIRE(phases == expected_round_trips);
  // A batch is cut into at least its bytes / kPipelineChunkBytes chunks whatever the budget
  // (schedule.h, "Pipelining": 4096 x 8192 fp64 is 32 chunks).
  const long long bytes = shape.elements() * kElementBytes;
  const long long most = std::max(16LL, shape.batched ? (bytes + ooc::kPipelineChunkBytes - 1) / ooc::kPipelineChunkBytes : 0);
  for (const ooc::Phase& phase : predicted.schedule->phases) {
    if (one_plane) {
      REQUIRE(phase.chunk_count == 1);
    } else {
      REQUIRE(phase.chunk_count >= 4);
      REQUIRE(phase.chunk_count <= most);
    }
  }
  CAPTURE(budget, predicted.schedule->to_string());
  OocPlan plan;
  REQUIRE(make_plan(&plan, shape, Traits<Real>::kPrecision, static_cast<std::size_t>(budget)) ==
          IDGPU_STATUS_SUCCESS);
  int round_trips = 0;
  long long chunks = 0;
  REQUIRE(idgpuOocGetSchedule(plan.get(), &round_trips, &chunks) == IDGPU_STATUS_SUCCESS);
  CHECK(round_trips == expected_round_trips);
  if (one_plane) {
    CHECK(chunks == 1);
  } else {
    CHECK(chunks >= 4LL * expected_round_trips);
    CHECK(chunks <= most * expected_round_trips);
  }
  if (chunks != static_cast<long long>(predicted.schedule->chunks.size())) {
    // Not an error: the executor schedules again with smaller chunks where cuFFT asks for more work
    // area than the data's size.
    std::printf("ooc %s %s: %lld chunks, %zu predicted with work factor 1\n", shape.text().c_str(),
                Traits<Real>::kName, chunks, predicted.schedule->chunks.size());
  }
  check_plan_against_vendor<Real>(plan.get(), shape, c.pinned);
}

double best_exec_seconds(idgpuOocPlan_t plan, void* data, int runs) {
  REQUIRE(idgpuOocExec(plan, data, IDGPU_OOC_FORWARD) == IDGPU_STATUS_SUCCESS);  // warm-up
  double best = 1e30;
  for (int run = 0; run < runs; ++run) {
    const auto start = std::chrono::steady_clock::now();
    REQUIRE(idgpuOocExec(plan, data, run % 2 == 0 ? IDGPU_OOC_INVERSE : IDGPU_OOC_FORWARD) == IDGPU_STATUS_SUCCESS);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// ---- Real transforms (idgpuOocPlanReal3d / idgpuOocPlanRealMany1d, idgpuOocExecR2C / C2R) -------

// A real problem: the array [n0][n1][n2] of reals and its half spectrum [n0][n1][n2 / 2 + 1], or
// `batch` (extents[0]) transforms of n (extents[2]) reals and their n / 2 + 1 complex values each.
struct RealShape {
  Extents extents{1, 1, 2};
  bool batched = false;

  static RealShape three_d(long long n0, long long n1, long long n2) { return {{n0, n1, n2}, false}; }
  static RealShape many_1d(long long n, long long batch) { return {{batch, 1, n}, true}; }

  long long half() const { return extents[2] / 2 + 1; }
  long long rows() const { return extents[0] * extents[1]; }  // of n2 reals, or of half() complex values
  long long reals() const { return rows() * extents[2]; }
  long long padded_reals() const { return rows() * 2 * half(); }  // cuFFT's in-place layout
  long long spectrum_values() const { return rows() * 2 * half(); }  // interleaved re, im
  bool one_plane() const { return !batched && extents[0] == 1; }
  // The complex problem the plan is scheduled as (idgpu.h): the half spectrum's shape.
  Shape spectrum() const {
    return batched ? Shape::many_1d(half(), extents[0]) : Shape::three_d(extents[0], extents[1], half());
  }
  long long transform_points() const { return batched ? extents[2] : reals(); }
  double log2_points() const { return std::max(1.0, std::log2(static_cast<double>(transform_points()))); }
  std::string text() const {
    std::ostringstream out;
    if (batched) {
      out << extents[0] << " real transforms of " << extents[2];
    } else {
      out << extents[0] << "x" << extents[1] << "x" << extents[2] << " reals";
    }
    return out.str();
  }
};

idgpuStatus_t make_real_plan(OocPlan* plan, const RealShape& shape, idgpuPrecision_t precision, std::size_t budget) {
  const Extents& e = shape.extents;
  return shape.batched ? idgpuOocPlanRealMany1d(plan->out(), e[2], e[0], precision, budget)
                       : idgpuOocPlanReal3d(plan->out(), e[0], e[1], e[2], precision, budget);
}

// Reals in [-1, 1), never exactly zero.
template <class Real>
std::vector<Real> random_reals(long long count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<Real> values(static_cast<std::size_t>(count));
  for (Real& value : values) {
    do {
      value = static_cast<Real>(uniform(engine));
    } while (value == 0);
  }
  return values;
}

template <class Real>
std::vector<Real> narrow(const std::vector<double>& values) {
  return std::vector<Real>(values.begin(), values.end());
}

// The vendor's in-core real transforms: R2C of `x` (the half spectrum, interleaved), C2R of the
// half spectrum `y` (skipped where y is empty), and C2R of that R2C (the round trip).
template <class Real>
struct VendorRealResults {
  std::vector<Real> forward, inverse, round_trip;
};

template <class Real>
VendorRealResults<Real> vendor_real_transforms(const std::vector<Real>& x, const std::vector<Real>& y,
                                               const RealShape& shape) {
  PolicyScope vendor(IDGPU_POLICY_VENDOR);
  const std::size_t real_bytes = static_cast<std::size_t>(shape.reals()) * sizeof(Real);
  const std::size_t spectrum_bytes = static_cast<std::size_t>(shape.spectrum_values()) * sizeof(Real);
  REQUIRE(x.size() * sizeof(Real) == real_bytes);
  REQUIRE((y.empty() || y.size() * sizeof(Real) == spectrum_bytes));
  DeviceBuffer reals(real_bytes), spectrum(spectrum_bytes), output(real_bytes);
  // The axes of length > 1 (cuFFT's plans take none of length 1 in a rank > 1); the last, n2 >= 2,
  // is always one. Out of place, basic layout: real rows n2 apart, complex rows n2 / 2 + 1.
  std::vector<int> n;
  int batch = 1;
  if (shape.batched) {
    n = {static_cast<int>(shape.extents[2])};
    batch = static_cast<int>(shape.extents[0]);
  } else {
    for (long long extent : shape.extents) {
      if (extent > 1) n.push_back(static_cast<int>(extent));
    }
  }
  cufftHandle r2c = 0, c2r = 0;
  REQUIRE(cufftPlanMany(&r2c, static_cast<int>(n.size()), n.data(), nullptr, 1, 0, nullptr, 1, 0,
                        Traits<Real>::kR2C, batch) == CUFFT_SUCCESS);
  REQUIRE(cufftPlanMany(&c2r, static_cast<int>(n.size()), n.data(), nullptr, 1, 0, nullptr, 1, 0,
                        Traits<Real>::kC2R, batch) == CUFFT_SUCCESS);
  const auto download = [&](const DeviceBuffer& from, std::size_t bytes, std::vector<Real>* to) {
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    to->resize(bytes / sizeof(Real));
    REQUIRE(cudaMemcpy(to->data(), from.get(), bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
  };
  VendorRealResults<Real> results;
  REQUIRE(cudaMemcpy(reals.get(), x.data(), real_bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  CHECK(Traits<Real>::exec_r2c(r2c, reals.get(), spectrum.get()) == CUFFT_SUCCESS);
  download(spectrum, spectrum_bytes, &results.forward);
  // cuFFT's multi-dimensional C2R may overwrite its input: the spectrum is not used after this.
  CHECK(Traits<Real>::exec_c2r(c2r, spectrum.get(), output.get()) == CUFFT_SUCCESS);
  download(output, real_bytes, &results.round_trip);
  if (!y.empty()) {
    REQUIRE(cudaMemcpy(spectrum.get(), y.data(), spectrum_bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    CHECK(Traits<Real>::exec_c2r(c2r, spectrum.get(), output.get()) == CUFFT_SUCCESS);
    download(output, real_bytes, &results.inverse);
  }
  cufftDestroy(r2c);
  cufftDestroy(c2r);
  return results;
}

// Makes the half spectrum `y` (interleaved) exactly that of a real array. Along axis 2 only the
// frequencies 0 and n2 / 2 (n2 even) are their own conjugates; in those planes element k and
// element -k (the other axes' indices negated modulo their lengths; per transform when batched)
// must be conjugates, and the self-conjugate modes real. A computed R2C is so only to rounding
// (the two elements come from different paths through the FFT), and a C2R reads one or the other or
// both: made exact, every correct C2R computes the same function of y, and the comparison is about
// the transform alone. (y[k] + conj(y[-k])) / 2 is exactly the conjugate of (y[-k] + conj(y[k])) / 2
// (addition commutes in floating point too), and exactly real where k = -k.
void make_hermitian(std::vector<double>* y, const RealShape& shape) {
  const Extents& e = shape.extents;
  const long long n0 = shape.batched ? 1 : e[0], n1 = shape.batched ? 1 : e[1];
  const long long groups = shape.batched ? e[0] : 1, half = shape.half();
  std::vector<long long> planes = {0};
  if (e[2] % 2 == 0) planes.push_back(e[2] / 2);
  std::vector<double>& v = *y;
  for (long long g = 0; g < groups; ++g) {
    for (long long plane : planes) {
      for (long long k0 = 0; k0 < n0; ++k0) {
        for (long long k1 = 0; k1 < n1; ++k1) {
          const auto at = [&](long long i0, long long i1) {
            return static_cast<std::size_t>(2 * (((g * n0 + i0) * n1 + i1) * half + plane));
          };
          const std::size_t a = at(k0, k1), b = at((n0 - k0) % n0, (n1 - k1) % n1);
          const double re = (v[a] + v[b]) / 2, im = (v[a + 1] - v[b + 1]) / 2;
          v[a] = re;
          v[a + 1] = im;
          v[b] = re;
          v[b + 1] = -im;
        }
      }
    }
  }
}

// The reals in cuFFT's padded in-place layout: rows of n2 reals 2 (n2 / 2 + 1) apart, the padding
// NaN (an in-place R2C that let it into a transform would show).
template <class Real>
std::vector<Real> to_padded(const std::vector<Real>& reals, const RealShape& shape) {
  const long long n2 = shape.extents[2], pitch = 2 * shape.half();
  std::vector<Real> padded(static_cast<std::size_t>(shape.padded_reals()), std::numeric_limits<Real>::quiet_NaN());
  for (long long row = 0; row < shape.rows(); ++row) {
    std::copy_n(reals.begin() + row * n2, n2, padded.begin() + row * pitch);
  }
  return padded;
}

template <class Real>
std::vector<Real> from_padded(const std::vector<Real>& padded, const RealShape& shape) {
  const long long n2 = shape.extents[2], pitch = 2 * shape.half();
  std::vector<Real> reals(static_cast<std::size_t>(shape.reals()));
  for (long long row = 0; row < shape.rows(); ++row) {
    std::copy_n(padded.begin() + row * pitch, n2, reals.begin() + row * n2);
  }
  return reals;
}

// idgpuOocExecR2C of the reals `x` in host memory of the given kind: out of place into a poisoned
// array (`in` checked unchanged, bit for bit: idgpuOocExecR2C does not write it), or in place in the
// padded layout. Returns the half spectrum.
template <class Real>
std::vector<Real> ooc_r2c(idgpuOocPlan_t plan, const RealShape& shape, const std::vector<Real>& x, bool pinned,
                          bool in_place) {
  const std::size_t spectrum_values = static_cast<std::size_t>(shape.spectrum_values());
  if (in_place) {
    HostArray data(spectrum_values * sizeof(Real), pinned);
    data.fill(to_padded(x, shape));
    REQUIRE(idgpuOocExecR2C(plan, data.get(), data.get()) == IDGPU_STATUS_SUCCESS);
    return data.read<Real>(spectrum_values);
  }
  HostArray in(x.size() * sizeof(Real), pinned), out(spectrum_values * sizeof(Real), pinned);
  in.fill(x);
  out.poison();
  REQUIRE(idgpuOocExecR2C(plan, in.get(), out.get()) == IDGPU_STATUS_SUCCESS);
  CHECK(std::memcmp(in.get(), x.data(), in.bytes()) == 0);
  return out.read<Real>(spectrum_values);
}

// idgpuOocExecC2R of the half spectrum `y` in host memory of the given kind: out of place from a
// copy (C2R may overwrite its input) into a poisoned array, or in place. Returns the reals (rows of
// n2, the padding dropped).
template <class Real>
std::vector<Real> ooc_c2r(idgpuOocPlan_t plan, const RealShape& shape, const std::vector<Real>& y, bool pinned,
                          bool in_place) {
  if (in_place) {
    HostArray data(y.size() * sizeof(Real), pinned);
    data.fill(y);
    REQUIRE(idgpuOocExecC2R(plan, data.get(), data.get()) == IDGPU_STATUS_SUCCESS);
    return from_padded(data.read<Real>(static_cast<std::size_t>(shape.padded_reals())), shape);
  }
  const std::size_t reals = static_cast<std::size_t>(shape.reals());
  HostArray in(y.size() * sizeof(Real), pinned), out(reals * sizeof(Real), pinned);
  in.fill(y);
  out.poison();
  REQUIRE(idgpuOocExecC2R(plan, in.get(), out.get()) == IDGPU_STATUS_SUCCESS);
  return out.read<Real>(reals);
}

// One real plan's R2C, the C2R of its result (N times the input) and a C2R of its own input against
// the vendor, out of place and in place (see the top of this file).
template <class Real>
void check_real_plan_against_vendor(idgpuOocPlan_t plan, const RealShape& shape, bool pinned_data) {
  constexpr int kElementBytes = 2 * sizeof(Real);
  const double log_n = shape.log2_points();
  const std::uint64_t seed = seed_of(shape.spectrum(), kElementBytes) + static_cast<std::uint64_t>(shape.extents[2]);
  CAPTURE(seed, pinned_data);
  const std::vector<Real> x = random_reals<Real>(shape.reals(), seed);
  // The C2R input: the float64 R2C of other random reals, made exactly Hermitian, in the precision.
  std::vector<double> spectrum_wide =
      vendor_real_transforms<double>(random_reals<double>(shape.reals(), seed + 1), {}, shape).forward;
  make_hermitian(&spectrum_wide, shape);
  const std::vector<Real> y = narrow<Real>(spectrum_wide);
  const VendorRealResults<Real> vendor = vendor_real_transforms(x, y, shape);
  std::optional<VendorRealResults<double>> wide;
  if constexpr (sizeof(Real) == 4) wide = vendor_real_transforms(widen(x), widen(y), shape);
  REQUIRE(all_finite(vendor.forward));
  REQUIRE(all_finite(vendor.inverse));

  for (bool in_place : {false, true}) {
    CAPTURE(in_place);
    const std::vector<Real> spectrum = ooc_r2c(plan, shape, x, pinned_data, in_place);
    REQUIRE(all_finite(spectrum));
    check_against_vendor(spectrum, vendor.forward, wide ? &wide->forward : nullptr, log_n, "R2C");
    const std::vector<Real> back = ooc_c2r(plan, shape, spectrum, pinned_data, in_place);
    REQUIRE(all_finite(back));
    check_round_trip(back, vendor.round_trip, x, shape.transform_points(), log_n);
    const std::vector<Real> inverse = ooc_c2r(plan, shape, y, pinned_data, in_place);
    REQUIRE(all_finite(inverse));
    check_against_vendor(inverse, vendor.inverse, wide ? &wide->inverse : nullptr, log_n, "C2R");
  }
}

struct RealCase {
  RealShape shape;
  long long chunks = 8;  // chunks a phase the budget asks for; 0: deviceBytes 0
  bool pinned = false;   // the user's data in pinned memory
};

// The budget of `chunks` chunks a phase: budget_for_chunks of the half spectrum, the complex problem
// the plan is scheduled as. A 2D array (n0 = 1) is one plane whatever the budget; it gets a slot of
// one plane with twice its bytes of work area, so that a real plan whose cuFFT work area exceeds
// the plane's bytes is not refused (the complex tests' budget of exactly one plane would be).
long long real_budget_for_chunks(const RealShape& shape, int element_bytes, long long chunks) {
  const Shape spectrum = shape.spectrum();
  if (shape.one_plane()) {
    return ooc::device_bytes_for_slot(spectrum.elements() * element_bytes, ooc::kDefaultSlotCount, 2.0);
  }
  return budget_for_chunks(spectrum, element_bytes, chunks);
}

template <class Real>
void run_real_case(const RealCase& c) {
  constexpr int kElementBytes = 2 * sizeof(Real);
  const RealShape& shape = c.shape;
  CAPTURE(shape.text(), Traits<Real>::kName, c.chunks, c.pinned);
  if (shape.padded_reals() > max_points()) {
    WARN("skipped: more than IDGPU_TEST_MAX_POINTS points");
    return;
  }
  // A 3D array in chunks moves twice (slabs, then pencils); a plane or a batch once; deviceBytes 0
  // takes 80% of the free memory, where these arrays fit one slot: once, in one chunk.
  const bool chunked = c.chunks > 0;
  const int expected_round_trips = chunked && !shape.batched && !shape.one_plane() ? 2 : 1;
  long long budget = 0;
  std::optional<ooc::ScheduleResult> predicted;
  if (chunked) {
    budget = real_budget_for_chunks(shape, kElementBytes, c.chunks);
    predicted = predicted_schedule(shape.spectrum(), kElementBytes, budget);
    REQUIRE(predicted->schedule);
    REQUIRE(static_cast<int>(predicted->schedule->phases.size()) == expected_round_trips);
    for (const ooc::Phase& phase : predicted->schedule->phases) {
      if (shape.one_plane()) {
        REQUIRE(phase.chunk_count == 1);
      } else {
        REQUIRE(phase.chunk_count >= 4);
        REQUIRE(phase.chunk_count <= 16);
      }
    }
    CAPTURE(budget, predicted->schedule->to_string());
  }
  OocPlan plan;
  REQUIRE(make_real_plan(&plan, shape, Traits<Real>::kPrecision, static_cast<std::size_t>(budget)) ==
          IDGPU_STATUS_SUCCESS);
  int round_trips = 0;
  long long chunks = 0;
  REQUIRE(idgpuOocGetSchedule(plan.get(), &round_trips, &chunks) == IDGPU_STATUS_SUCCESS);
  CHECK(round_trips == expected_round_trips);
  if (!chunked || shape.one_plane()) {
    CHECK(chunks == 1);
  } else {
    // At least the predicted 4 a phase. More is not an error: the executor schedules again with
    // smaller chunks where the real plans ask cuFFT for more work area than a chunk's bytes.
    CHECK(chunks >= 4LL * expected_round_trips);
    if (chunks != static_cast<long long>(predicted->schedule->chunks.size())) {
      std::printf("ooc %s %s: %lld chunks, %zu predicted with work factor 1\n", shape.text().c_str(),
                  Traits<Real>::kName, chunks, predicted->schedule->chunks.size());
    }
  }
  check_real_plan_against_vendor<Real>(plan.get(), shape, c.pinned);
}

}  // namespace

TEST_CASE("out-of-core 3D transforms against the in-core vendor transform", "[ooc][3d]") {
  const std::vector<Case> cases = {
      {Shape::three_d(64, 64, 64), 4, false},     {Shape::three_d(64, 64, 64), 16, true},
      {Shape::three_d(128, 64, 32), 8, false},    {Shape::three_d(100, 60, 40), 7, false},
      {Shape::three_d(100, 60, 40), 12, true},    {Shape::three_d(1, 256, 256), 8, false},
      {Shape::three_d(256, 256, 256), 8, false},
  };
  for (const Case& c : cases) {
    run_chunked_case<float>(c);
    run_chunked_case<double>(c);
  }
}

TEST_CASE("out-of-core batched 1D transforms against the in-core vendor transform", "[ooc][1d]") {
  const std::vector<Case> cases = {
      {Shape::many_1d(4096, 8192), 8, false},
      {Shape::many_1d(1000, 3000), 5, false},
      {Shape::many_1d(1000, 3000), 16, true},
  };
  for (const Case& c : cases) {
    run_chunked_case<float>(c);
    run_chunked_case<double>(c);
  }
}

TEST_CASE("a budget of exactly the least one works, one byte less is refused", "[ooc][minimum]") {
  const std::vector<Shape> shapes = {Shape::three_d(64, 64, 64), Shape::three_d(100, 60, 40),
                                     Shape::many_1d(1000, 3000)};
  for (const Shape& shape : shapes) {
    for (idgpuPrecision_t precision : {IDGPU_PRECISION_SINGLE, IDGPU_PRECISION_DOUBLE}) {
      const int element_bytes = precision == IDGPU_PRECISION_DOUBLE ? 16 : 8;
      CAPTURE(shape.text(), element_bytes);
      if (shape.elements() > max_points()) continue;
      const long long least = predicted_schedule(shape, element_bytes, 1).minimum_device_bytes;
      REQUIRE(least > 0);
      const idgpuOocPlan_t sentinel = reinterpret_cast<idgpuOocPlan_t>(static_cast<std::uintptr_t>(0x00c));
      idgpuOocPlan_t refused = sentinel;
      const Extents& e = shape.extents;
      const idgpuStatus_t status =
          shape.batched ? idgpuOocPlanMany1d(&refused, e[2], e[0], precision, static_cast<std::size_t>(least - 1))
                        : idgpuOocPlan3d(&refused, e[0], e[1], e[2], precision, static_cast<std::size_t>(least - 1));
      CHECK(status == IDGPU_STATUS_INVALID_VALUE);
      CHECK(refused == sentinel);
      OocPlan plan;
      REQUIRE(make_plan(&plan, shape, precision, static_cast<std::size_t>(least)) == IDGPU_STATUS_SUCCESS);
      int round_trips = 0;
      long long chunks = 0;
      REQUIRE(idgpuOocGetSchedule(plan.get(), &round_trips, &chunks) == IDGPU_STATUS_SUCCESS);
      CHECK(round_trips == (shape.batched ? 1 : 2));
      CHECK(chunks == static_cast<long long>(predicted_schedule(shape, element_bytes, least).schedule->chunks.size()));
      if (precision == IDGPU_PRECISION_SINGLE) {
        check_plan_against_vendor<float>(plan.get(), shape, false);
      } else {
        check_plan_against_vendor<double>(plan.get(), shape, false);
      }
    }
  }
}

TEST_CASE("deviceBytes 0 takes 80% of the free device memory", "[ooc][default-budget]") {
  // 64^3 fp32 (2 MiB) and 1000 transforms of 1000 fp64 (16 MB) fit one slot of any device's 80%.
  for (const Shape& shape : {Shape::three_d(64, 64, 64), Shape::many_1d(1000, 1000)}) {
    CAPTURE(shape.text());
    OocPlan single, twice;
    REQUIRE(make_plan(&single, shape, IDGPU_PRECISION_SINGLE, 0) == IDGPU_STATUS_SUCCESS);
    REQUIRE(make_plan(&twice, shape, IDGPU_PRECISION_DOUBLE, 0) == IDGPU_STATUS_SUCCESS);
    for (idgpuOocPlan_t plan : {single.get(), twice.get()}) {
      int round_trips = 0;
      long long chunks = 0;
      REQUIRE(idgpuOocGetSchedule(plan, &round_trips, &chunks) == IDGPU_STATUS_SUCCESS);
      CHECK(round_trips == 1);
      CHECK(chunks == 1);
    }
    check_plan_against_vendor<float>(single.get(), shape, false);
    check_plan_against_vendor<double>(twice.get(), shape, true);
  }
}

TEST_CASE("IDGPU_OOC_DEVICE_BYTES is the budget of deviceBytes 0", "[.][ooc][env]") {
  const char* value = std::getenv("IDGPU_OOC_DEVICE_BYTES");
  REQUIRE(value != nullptr);
  const long long budget = std::atoll(value);  // the CTest entry sets a plain byte count
  const Shape shape = Shape::three_d(64, 64, 64);
  CAPTURE(value, budget);
  const ooc::ScheduleResult predicted = predicted_schedule(shape, 8, budget);
  REQUIRE(predicted.schedule);
  OocPlan plan;
  REQUIRE(make_plan(&plan, shape, IDGPU_PRECISION_SINGLE, 0) == IDGPU_STATUS_SUCCESS);
  int round_trips = 0;
  long long chunks = 0;
  REQUIRE(idgpuOocGetSchedule(plan.get(), &round_trips, &chunks) == IDGPU_STATUS_SUCCESS);
  CHECK(round_trips == predicted.schedule->round_trips);
  CHECK(chunks == static_cast<long long>(predicted.schedule->chunks.size()));
  check_plan_against_vendor<float>(plan.get(), shape, false);
  // A budget given by the call wins.
  OocPlan given;
  REQUIRE(make_plan(&given, shape, IDGPU_PRECISION_SINGLE, 1ull << 30) == IDGPU_STATUS_SUCCESS);
  REQUIRE(idgpuOocGetSchedule(given.get(), &round_trips, &chunks) == IDGPU_STATUS_SUCCESS);
  CHECK(round_trips == 1);
  CHECK(chunks == 1);
}

TEST_CASE("bad arguments give IDGPU_STATUS_INVALID_VALUE and change nothing", "[ooc][bad-input]") {
  const idgpuOocPlan_t sentinel = reinterpret_cast<idgpuOocPlan_t>(static_cast<std::uintptr_t>(0x00c));
  constexpr std::size_t kBudget = 64u << 20;
  struct Plan3d {
    const char* what;
    long long n0, n1, n2;
    int precision;
    std::size_t budget;
  };
  // Enumerations as a C caller may pass them: any int.
  const std::vector<Plan3d> bad_3d = {
      {"n0 = 0", 0, 8, 8, IDGPU_PRECISION_SINGLE, kBudget},
      {"n1 = 0", 8, 0, 8, IDGPU_PRECISION_SINGLE, kBudget},
      {"n2 = 0", 8, 8, 0, IDGPU_PRECISION_DOUBLE, kBudget},
      {"n0 < 0", -8, 8, 8, IDGPU_PRECISION_SINGLE, kBudget},
      {"n1 < 0", 8, -1, 8, IDGPU_PRECISION_DOUBLE, kBudget},
      {"n2 < 0", 8, 8, -8, IDGPU_PRECISION_SINGLE, 0},
      {"elements overflow", 1LL << 31, 1LL << 31, 1LL << 2, IDGPU_PRECISION_SINGLE, kBudget},
      {"bytes overflow", 1LL << 30, 1LL << 30, 1LL << 3, IDGPU_PRECISION_DOUBLE, kBudget},
      {"precision 2", 8, 8, 8, 2, kBudget},
      {"precision -1", 8, 8, 8, -1, kBudget},
      {"budget below the least (a plane of 512 x 512 fp64: 4 MiB a slot)", 8, 512, 512, IDGPU_PRECISION_DOUBLE,
       1u << 20},
      {"budget 1 byte", 8, 8, 8, IDGPU_PRECISION_SINGLE, 1},
  };
  for (const Plan3d& c : bad_3d) {
    CAPTURE(c.what);
    idgpuOocPlan_t plan = sentinel;
    CHECK(idgpuOocPlan3d(&plan, c.n0, c.n1, c.n2, static_cast<idgpuPrecision_t>(c.precision), c.budget) ==
          IDGPU_STATUS_INVALID_VALUE);
    CHECK(plan == sentinel);
  }
  CHECK(idgpuOocPlan3d(nullptr, 8, 8, 8, IDGPU_PRECISION_SINGLE, kBudget) == IDGPU_STATUS_INVALID_VALUE);
  struct Plan1d {
    const char* what;
    long long n, batch;
    int precision;
    std::size_t budget;
  };
  const std::vector<Plan1d> bad_1d = {
      {"n = 0", 0, 8, IDGPU_PRECISION_SINGLE, kBudget},
      {"batch = 0", 64, 0, IDGPU_PRECISION_SINGLE, kBudget},
      {"n < 0", -64, 8, IDGPU_PRECISION_DOUBLE, kBudget},
      {"batch < 0", 64, -8, IDGPU_PRECISION_DOUBLE, 0},
      {"precision 5", 64, 8, 5, kBudget},
      {"budget below one transform", 1 << 20, 4, IDGPU_PRECISION_SINGLE, 1u << 20},
  };
  for (const Plan1d& c : bad_1d) {
    CAPTURE(c.what);
    idgpuOocPlan_t plan = sentinel;
    CHECK(idgpuOocPlanMany1d(&plan, c.n, c.batch, static_cast<idgpuPrecision_t>(c.precision), c.budget) ==
          IDGPU_STATUS_INVALID_VALUE);
    CHECK(plan == sentinel);
  }
  CHECK(idgpuOocPlanMany1d(nullptr, 64, 8, IDGPU_PRECISION_SINGLE, kBudget) == IDGPU_STATUS_INVALID_VALUE);

  // The null plan everywhere.
  int round_trips = -1;
  long long chunks = -1;
  std::vector<float> values = random_values<float>(8 * 8 * 8, 20140499);
  CHECK(idgpuOocGetSchedule(nullptr, &round_trips, &chunks) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExec(nullptr, values.data(), IDGPU_OOC_FORWARD) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocDestroy(nullptr) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(round_trips == -1);
  CHECK(chunks == -1);

  // A valid plan with bad arguments: data untouched.
  OocPlan plan;
  REQUIRE(idgpuOocPlan3d(plan.out(), 8, 8, 8, IDGPU_PRECISION_SINGLE, kBudget) == IDGPU_STATUS_SUCCESS);
  CHECK(idgpuOocGetSchedule(plan.get(), nullptr, &chunks) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocGetSchedule(plan.get(), &round_trips, nullptr) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExec(plan.get(), nullptr, IDGPU_OOC_FORWARD) == IDGPU_STATUS_INVALID_VALUE);
  const std::vector<float> before = values;
  for (int direction : {0, 2, -2, 1000}) {
    CAPTURE(direction);
    CHECK(idgpuOocExec(plan.get(), values.data(), direction) == IDGPU_STATUS_INVALID_VALUE);
    CHECK(std::memcmp(values.data(), before.data(), values.size() * sizeof(float)) == 0);
  }
  // Device memory is not host data.
  const std::size_t bytes = values.size() * sizeof(float);
  DeviceBuffer device(bytes);
  REQUIRE(cudaMemcpy(device.get(), values.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  CHECK(idgpuOocExec(plan.get(), device.get(), IDGPU_OOC_FORWARD) == IDGPU_STATUS_INVALID_VALUE);
  std::vector<float> after(values.size());
  REQUIRE(cudaMemcpy(after.data(), device.get(), bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(std::memcmp(after.data(), before.data(), bytes) == 0);
  // The plan still works.
  CHECK(idgpuOocExec(plan.get(), values.data(), IDGPU_OOC_FORWARD) == IDGPU_STATUS_SUCCESS);
}

TEST_CASE("out-of-core real 3D transforms against the in-core vendor transform", "[ooc][real][3d]") {
  const std::vector<RealCase> cases = {
      {RealShape::three_d(16, 24, 40), 4, false},   {RealShape::three_d(16, 24, 40), 8, true},
      {RealShape::three_d(8, 32, 30), 4, true},     // even n2, two planes a slab
      {RealShape::three_d(9, 20, 33), 5, false},    // odd n2 (no Nyquist column) and odd n0
      {RealShape::three_d(9, 20, 33), 5, true},     {RealShape::three_d(1, 64, 50), 8, false},  // 2D
      {RealShape::three_d(64, 128, 130), 12, false}, {RealShape::three_d(64, 128, 130), 6, true},
  };
  for (const RealCase& c : cases) {
    run_real_case<float>(c);
    run_real_case<double>(c);
  }
}

TEST_CASE("out-of-core real batched 1D transforms against the in-core vendor transform", "[ooc][real][1d]") {
  const std::vector<RealCase> cases = {
      {RealShape::many_1d(1000, 100), 4, false},
      {RealShape::many_1d(1000, 100), 10, true},
      {RealShape::many_1d(4097, 37), 6, false},  // odd n
      {RealShape::many_1d(4097, 37), 4, true},
  };
  for (const RealCase& c : cases) {
    run_real_case<float>(c);
    run_real_case<double>(c);
  }
}

TEST_CASE("real transforms with deviceBytes 0: one chunk", "[ooc][real][default-budget]") {
  const std::vector<RealCase> cases = {
      {RealShape::three_d(16, 24, 40), 0, false},
      {RealShape::three_d(9, 20, 33), 0, true},
      {RealShape::many_1d(1000, 100), 0, false},
      {RealShape::many_1d(4097, 37), 0, true},
  };
  for (const RealCase& c : cases) {
    run_real_case<float>(c);
    run_real_case<double>(c);
  }
}

TEST_CASE("real transforms: bad arguments give IDGPU_STATUS_INVALID_VALUE and write nothing",
          "[ooc][real][bad-input]") {
  const idgpuOocPlan_t sentinel = reinterpret_cast<idgpuOocPlan_t>(static_cast<std::uintptr_t>(0x00c));
  constexpr std::size_t kBudget = 64u << 20;
  struct Plan3d {
    const char* what;
    long long n0, n1, n2;
    int precision;
    std::size_t budget;
  };
  // Enumerations as a C caller may pass them: any int.
  const std::vector<Plan3d> bad_3d = {
      {"n2 = 1 (a real axis needs two points)", 8, 8, 1, IDGPU_PRECISION_SINGLE, kBudget},
      {"n2 = 1, one plane", 1, 64, 1, IDGPU_PRECISION_DOUBLE, kBudget},
      {"n2 = 0", 8, 8, 0, IDGPU_PRECISION_SINGLE, kBudget},
      {"n2 < 0", 8, 8, -8, IDGPU_PRECISION_DOUBLE, 0},
      {"n0 = 0", 0, 8, 8, IDGPU_PRECISION_SINGLE, kBudget},
      {"n1 = 0", 8, 0, 8, IDGPU_PRECISION_SINGLE, kBudget},
      {"n0 < 0", -8, 8, 8, IDGPU_PRECISION_DOUBLE, kBudget},
      {"elements overflow", 1LL << 31, 1LL << 31, 1LL << 4, IDGPU_PRECISION_SINGLE, kBudget},
      {"precision 2", 8, 8, 8, 2, kBudget},
      {"precision -1", 8, 8, 8, -1, kBudget},
      {"budget 1 byte", 8, 8, 8, IDGPU_PRECISION_SINGLE, 1},
  };
  for (const Plan3d& c : bad_3d) {
    CAPTURE(c.what);
    idgpuOocPlan_t plan = sentinel;
    CHECK(idgpuOocPlanReal3d(&plan, c.n0, c.n1, c.n2, static_cast<idgpuPrecision_t>(c.precision), c.budget) ==
          IDGPU_STATUS_INVALID_VALUE);
    CHECK(plan == sentinel);
  }
  CHECK(idgpuOocPlanReal3d(nullptr, 8, 8, 8, IDGPU_PRECISION_SINGLE, kBudget) == IDGPU_STATUS_INVALID_VALUE);
  struct Plan1d {
    const char* what;
    long long n, batch;
    int precision;
    std::size_t budget;
  };
  const std::vector<Plan1d> bad_1d = {
      {"n = 1", 1, 8, IDGPU_PRECISION_SINGLE, kBudget},
      {"n = 0", 0, 8, IDGPU_PRECISION_DOUBLE, kBudget},
      {"n < 0", -64, 8, IDGPU_PRECISION_SINGLE, 0},
      {"batch = 0", 64, 0, IDGPU_PRECISION_SINGLE, kBudget},
      {"batch < 0", 64, -8, IDGPU_PRECISION_DOUBLE, kBudget},
      {"precision 5", 64, 8, 5, kBudget},
      {"budget 1 byte", 64, 8, IDGPU_PRECISION_DOUBLE, 1},
  };
  for (const Plan1d& c : bad_1d) {
    CAPTURE(c.what);
    idgpuOocPlan_t plan = sentinel;
    CHECK(idgpuOocPlanRealMany1d(&plan, c.n, c.batch, static_cast<idgpuPrecision_t>(c.precision), c.budget) ==
          IDGPU_STATUS_INVALID_VALUE);
    CHECK(plan == sentinel);
  }
  CHECK(idgpuOocPlanRealMany1d(nullptr, 64, 8, IDGPU_PRECISION_SINGLE, kBudget) == IDGPU_STATUS_INVALID_VALUE);

  // Arrays of an 8x8x8 real problem: the reals x, the half spectrum y (8x8x5), and a poisoned output
  // for each; every refused call must leave all four as they were.
  const RealShape shape = RealShape::three_d(8, 8, 8);
  const std::vector<float> x = random_reals<float>(shape.reals(), 20140501);
  const std::vector<float> y = random_reals<float>(shape.spectrum_values(), 20140502);
  std::vector<float> reals = x, spectrum = y;
  std::vector<float> reals_out(x.size()), spectrum_out(y.size());
  std::memset(reals_out.data(), idgpu::test::kPoisonByte, reals_out.size() * sizeof(float));
  std::memset(spectrum_out.data(), idgpu::test::kPoisonByte, spectrum_out.size() * sizeof(float));
  const std::vector<float> reals_poisoned = reals_out, spectrum_poisoned = spectrum_out;
  const auto unchanged = [&] {
    CHECK(std::memcmp(reals.data(), x.data(), x.size() * sizeof(float)) == 0);
    CHECK(std::memcmp(spectrum.data(), y.data(), y.size() * sizeof(float)) == 0);
    CHECK(std::memcmp(reals_out.data(), reals_poisoned.data(), x.size() * sizeof(float)) == 0);
    CHECK(std::memcmp(spectrum_out.data(), spectrum_poisoned.data(), y.size() * sizeof(float)) == 0);
  };

  // The null plan.
  CHECK(idgpuOocExecR2C(nullptr, reals.data(), spectrum_out.data()) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExecC2R(nullptr, spectrum.data(), reals_out.data()) == IDGPU_STATUS_INVALID_VALUE);
  unchanged();

  // A real plan: null arrays, and idgpuOocExec (complex only) refused.
  OocPlan real;
  REQUIRE(idgpuOocPlanReal3d(real.out(), 8, 8, 8, IDGPU_PRECISION_SINGLE, kBudget) == IDGPU_STATUS_SUCCESS);
  CHECK(idgpuOocExecR2C(real.get(), nullptr, spectrum_out.data()) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExecR2C(real.get(), reals.data(), nullptr) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExecC2R(real.get(), nullptr, reals_out.data()) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExecC2R(real.get(), spectrum.data(), nullptr) == IDGPU_STATUS_INVALID_VALUE);
  for (int direction : {IDGPU_OOC_FORWARD, IDGPU_OOC_INVERSE}) {
    CAPTURE(direction);
    CHECK(idgpuOocExec(real.get(), spectrum.data(), direction) == IDGPU_STATUS_INVALID_VALUE);
  }
  unchanged();

  // A complex plan of the half spectrum's shape: the real execs refused.
  OocPlan complex;
  REQUIRE(idgpuOocPlan3d(complex.out(), 8, 8, 5, IDGPU_PRECISION_SINGLE, kBudget) == IDGPU_STATUS_SUCCESS);
  CHECK(idgpuOocExecR2C(complex.get(), reals.data(), spectrum_out.data()) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExecC2R(complex.get(), spectrum.data(), reals_out.data()) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExecR2C(complex.get(), spectrum.data(), spectrum.data()) == IDGPU_STATUS_INVALID_VALUE);
  unchanged();

  // Device memory is not host data, on either side: refused, and the device arrays not written.
  const std::size_t real_bytes = x.size() * sizeof(float), spectrum_bytes = y.size() * sizeof(float);
  DeviceBuffer device_reals(real_bytes), device_spectrum(spectrum_bytes);
  const auto reset_device = [&] {
    REQUIRE(cudaMemcpy(device_reals.get(), x.data(), real_bytes, cudaMemcpyHostToDevice) == cudaSuccess);
    REQUIRE(cudaMemset(device_spectrum.get(), idgpu::test::kPoisonByte, spectrum_bytes) == cudaSuccess);
  };
  const auto device_unchanged = [&] {
    std::vector<float> after_reals(x.size()), after_spectrum(y.size());
    REQUIRE(cudaMemcpy(after_reals.data(), device_reals.get(), real_bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
    REQUIRE(cudaMemcpy(after_spectrum.data(), device_spectrum.get(), spectrum_bytes, cudaMemcpyDeviceToHost) ==
            cudaSuccess);
    CHECK(std::memcmp(after_reals.data(), x.data(), real_bytes) == 0);
    CHECK(std::memcmp(after_spectrum.data(), spectrum_poisoned.data(), spectrum_bytes) == 0);
  };
  reset_device();
  CHECK(idgpuOocExecR2C(real.get(), device_reals.get(), spectrum_out.data()) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExecR2C(real.get(), reals.data(), device_spectrum.get()) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExecR2C(real.get(), device_reals.get(), device_spectrum.get()) == IDGPU_STATUS_INVALID_VALUE);
  device_unchanged();
  unchanged();
  // C2R: the device spectrum (poisoned) as input, the device reals as output.
  CHECK(idgpuOocExecC2R(real.get(), device_spectrum.get(), reals_out.data()) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExecC2R(real.get(), spectrum.data(), device_reals.get()) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuOocExecC2R(real.get(), device_spectrum.get(), device_spectrum.get()) == IDGPU_STATUS_INVALID_VALUE);
  device_unchanged();
  unchanged();

  // The plans still work: the real one against the vendor, the complex one runs.
  const VendorRealResults<float> vendor = vendor_real_transforms(x, {}, shape);
  CHECK(idgpuOocExecR2C(real.get(), reals.data(), spectrum_out.data()) == IDGPU_STATUS_SUCCESS);
  REQUIRE(all_finite(spectrum_out));
  const double distance = relative_distance(spectrum_out, vendor.forward);
  CAPTURE(distance);
  CHECK(distance <= 8 * kEps32 * shape.log2_points());
  CHECK(idgpuOocExec(complex.get(), spectrum.data(), IDGPU_OOC_FORWARD) == IDGPU_STATUS_SUCCESS);
}

TEST_CASE("out-of-core bandwidth against the pinned copy bandwidth (printed)", "[ooc][bandwidth]") {
  const CopyBandwidth copies = measure_copies(256u << 20);
  std::printf("pinned copies of 256 MiB: H2D %.2f GB/s, D2H %.2f GB/s alone; at once on two streams H2D %.2f GB/s "
              "+ D2H %.2f GB/s (one round trip's bound, 2 x bytes / time: %.2f GB/s)\n",
              copies.h2d, copies.d2h, copies.h2d_both, copies.d2h_both, copies.both());
  struct Timed {
    Shape shape;
    long long chunks;  // 0: deviceBytes 0 (the whole array in one slot)
  };
  const Timed timed[] = {
      {Shape::three_d(256, 256, 256), 0},
      {Shape::three_d(256, 256, 256), 8},
      {Shape::many_1d(4096, 8192), 0},
      {Shape::many_1d(4096, 8192), 8},
  };
  for (const Timed& t : timed) {
    CAPTURE(t.shape.text(), t.chunks);
    if (t.shape.elements() > max_points()) continue;
    const long long budget = t.chunks == 0 ? 0 : budget_for_chunks(t.shape, 8, t.chunks);
    OocPlan plan;
    REQUIRE(make_plan(&plan, t.shape, IDGPU_PRECISION_SINGLE, static_cast<std::size_t>(budget)) ==
            IDGPU_STATUS_SUCCESS);
    int round_trips = 0;
    long long chunks = 0;
    REQUIRE(idgpuOocGetSchedule(plan.get(), &round_trips, &chunks) == IDGPU_STATUS_SUCCESS);
    const std::size_t bytes = static_cast<std::size_t>(t.shape.elements()) * 8;
    std::vector<float> pageable = random_values<float>(t.shape.elements(), seed_of(t.shape, 8));
    PinnedBuffer pinned(bytes);
    std::memcpy(pinned.get(), pageable.data(), bytes);
    for (int memory = 0; memory < 2; ++memory) {
      void* data = memory == 0 ? static_cast<void*>(pageable.data()) : pinned.get();
      const double seconds = best_exec_seconds(plan.get(), data, 3);
      const double rate = 2.0 * static_cast<double>(bytes) / seconds * 1e-9;
      std::printf("ooc %s fp32, %s data, %s: %d round trip%s, %lld chunks: %.2f ms, 2 x bytes / time %.2f GB/s = "
                  "%.0f%% of one round trip's bound; per round trip %.0f%%\n",
                  t.shape.text().c_str(), memory == 0 ? "pageable" : "pinned",
                  t.chunks == 0 ? "default budget" : "chunked budget", round_trips, round_trips == 1 ? "" : "s",
                  chunks, seconds * 1e3, rate, 100.0 * rate / copies.both(),
                  100.0 * rate * round_trips / copies.both());
    }
  }
}
