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
// Bandwidth (printed, not asserted; [bandwidth]): pinned H2D and D2H copies of 256 MiB, each way
// alone and both at once on two streams, and the out-of-core transforms of 256^3 fp32 and of 8192
// transforms of 4096 points, as 2 x bytes / time against two directions at once: the fraction of
// one round trip's bound.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#define IDGPU_NATIVE_TEST_MAIN
#include "native_test_support.h"

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
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "idgpu/idgpu.h"
#include "ooc/schedule.h"

namespace {

namespace ooc = idgpu::ooc;
using idgpu::test::max_points;
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

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) { REQUIRE(cudaMalloc(&data_, bytes) == cudaSuccess); }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};

class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
    REQUIRE(cudaHostAlloc(&data_, bytes, cudaHostAllocDefault) == cudaSuccess);
  }
  ~PinnedBuffer() { cudaFreeHost(data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* get() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
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

// One plan's forward, round trip and inverse against the vendor (see the top of this file).
template <class Real>
void check_plan_against_vendor(idgpuOocPlan_t plan, const Shape& shape, bool pinned_data) {
  constexpr int kElementBytes = 2 * sizeof(Real);
  const double eps = Traits<Real>::kEps;
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
  const auto check_transform = [&](const std::vector<Real>& ours, const std::vector<Real>& vendors,
                                   const std::vector<double>* reference, const char* what) {
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
  };
  check_transform(data, vendor.forward, wide ? &wide->forward : nullptr, "forward");
  REQUIRE(ooc_exec(plan, &data, IDGPU_OOC_INVERSE, staging) == IDGPU_STATUS_SUCCESS);
  {
    const double scale = static_cast<double>(shape.transform_points());
    const double error = relative_distance(data, x, scale);
    const double vendor_error = relative_distance(vendor.round_trip, x, scale);
    CAPTURE(error, vendor_error);
    CHECK(error <= 2 * vendor_error + 2 * eps);
    CHECK(error <= 16 * eps * log_n);
  }
  // The inverse of the original input.
  data = x;
  REQUIRE(ooc_exec(plan, &data, IDGPU_OOC_INVERSE, staging) == IDGPU_STATUS_SUCCESS);
  check_transform(data, vendor.inverse, wide ? &wide->inverse : nullptr, "inverse");
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
  for (const ooc::Phase& phase : predicted.schedule->phases) {
    if (one_plane) {
      REQUIRE(phase.chunk_count == 1);
    } else {
      REQUIRE(phase.chunk_count >= 4);
      REQUIRE(phase.chunk_count <= 16);
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
    CHECK(chunks <= 16LL * expected_round_trips);
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

struct CopyBandwidth {
  double h2d = 0, d2h = 0;                 // GB/s, one direction alone
  double h2d_both = 0, d2h_both = 0;       // GB/s of each direction while both run
  double both() const { return 2 * std::min(h2d_both, d2h_both); }  // one round trip's bound, 2 x bytes / time
};

// Pinned copies of `bytes` each way, alone and both at once on two streams (best of three).
CopyBandwidth measure_copies(std::size_t bytes) {
  PinnedBuffer host_in(bytes), host_out(bytes);
  DeviceBuffer device_in(bytes), device_out(bytes);
  std::memset(host_in.get(), 1, bytes);
  cudaStream_t streams[2];
  cudaEvent_t start, ends[2];
  for (cudaStream_t& stream : streams) {
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  }
  REQUIRE(cudaEventCreate(&start) == cudaSuccess);
  for (cudaEvent_t& end : ends) REQUIRE(cudaEventCreate(&end) == cudaSuccess);
  const auto gigabytes_per_second = [&](float milliseconds) {
    return static_cast<double>(bytes) / (milliseconds * 1e6);
  };
  CopyBandwidth bandwidth;
  for (int run = 0; run < 3; ++run) {
    float h2d_ms = 0, d2h_ms = 0, both_h2d_ms = 0, both_d2h_ms = 0;
    REQUIRE(cudaEventRecord(start, streams[0]) == cudaSuccess);
    REQUIRE(cudaMemcpyAsync(device_in.get(), host_in.get(), bytes, cudaMemcpyHostToDevice, streams[0]) == cudaSuccess);
    REQUIRE(cudaEventRecord(ends[0], streams[0]) == cudaSuccess);
    REQUIRE(cudaEventSynchronize(ends[0]) == cudaSuccess);
    REQUIRE(cudaEventElapsedTime(&h2d_ms, start, ends[0]) == cudaSuccess);
    REQUIRE(cudaEventRecord(start, streams[0]) == cudaSuccess);
    REQUIRE(cudaMemcpyAsync(host_out.get(), device_out.get(), bytes, cudaMemcpyDeviceToHost, streams[0]) ==
            cudaSuccess);
    REQUIRE(cudaEventRecord(ends[0], streams[0]) == cudaSuccess);
    REQUIRE(cudaEventSynchronize(ends[0]) == cudaSuccess);
    REQUIRE(cudaEventElapsedTime(&d2h_ms, start, ends[0]) == cudaSuccess);
    // Both at once: the second stream starts with the first.
    REQUIRE(cudaEventRecord(start, streams[0]) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(streams[1], start, 0) == cudaSuccess);
    REQUIRE(cudaMemcpyAsync(device_in.get(), host_in.get(), bytes, cudaMemcpyHostToDevice, streams[0]) == cudaSuccess);
    REQUIRE(cudaMemcpyAsync(host_out.get(), device_out.get(), bytes, cudaMemcpyDeviceToHost, streams[1]) ==
            cudaSuccess);
    REQUIRE(cudaEventRecord(ends[0], streams[0]) == cudaSuccess);
    REQUIRE(cudaEventRecord(ends[1], streams[1]) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(cudaEventElapsedTime(&both_h2d_ms, start, ends[0]) == cudaSuccess);
    REQUIRE(cudaEventElapsedTime(&both_d2h_ms, start, ends[1]) == cudaSuccess);
    bandwidth.h2d = std::max(bandwidth.h2d, gigabytes_per_second(h2d_ms));
    bandwidth.d2h = std::max(bandwidth.d2h, gigabytes_per_second(d2h_ms));
    bandwidth.h2d_both = std::max(bandwidth.h2d_both, gigabytes_per_second(both_h2d_ms));
    bandwidth.d2h_both = std::max(bandwidth.d2h_both, gigabytes_per_second(both_d2h_ms));
  }
  for (cudaEvent_t end : ends) cudaEventDestroy(end);
  cudaEventDestroy(start);
  for (cudaStream_t stream : streams) cudaStreamDestroy(stream);
  return bandwidth;
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
