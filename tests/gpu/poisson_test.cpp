// The FFT Poisson solver (idgpuPoisson*, include/idgpu/idgpu.h) on the GPU.
//
// Two oracles for every solve: the float64 host reference of the same finite-difference problem
// (src/poisson/reference.h, the same algorithm by naive DFTs and Thomas's algorithm), and the
// reference-free residual Lap_h u - f_c computed on the host in double (apply_laplacian; f_c: f
// minus its weighted mean where the problem is singular). The reference is a naive DFT, O(n) per
// point along each axis (a 128^3 grid takes about 5 s on one core), so all references of a run are
// computed at once on host threads. On grids up to 128^3, exact continuous solutions (products of
// sines and cosines) must be approached at second order: the maximum error falls fourfold each
// time h halves.
//
// Tolerances, for eps the unit roundoff of the plan's precision (2^-24, 2^-53), N the points,
// kappa = lambda_max / lambda_min the ratio of the largest to the smallest nonzero eigenvalue
// magnitude of Lap_h on the grid (spectrum() below) and r = ||f|| / ||f_c|| (about 1 but on the
// smallest grids, where removing the mean can cancel much of f):
//  - error against the reference, ||u - u_ref|| / ||u_ref|| <= r eps (kappa + 8 log2 N) + eps64 kappa.
//    A white random f and the white rounding noise of its transforms (eps log N ||f||) are scaled
//    alike by the inverse operator, so the FFTs contribute r eps O(log N), unamplified. An
//    eigenvalue, or the z tridiagonal system of one (kx, ky), computed with a normwise backward
//    error of eps lambda_max puts a relative error of up to eps kappa on the lowest modes, where the
//    solution's energy sits. The reference computes its eigenvalues as 2 cos - 2 in double and
//    carries eps64 kappa itself. A float32 model of the algorithm on the host (radix-2 FFTs,
//    eigenvalues as 2 cos - 2 or as -4 sin^2, Thomas's algorithm) stayed 4x (grids of 4 to 16
//    points, the worst of 2000 seeds) to 100x below this bound; on the largest grids 10x (Neumann,
//    64 x 32 x 128, hz = 0.25: 6e-5 against 5e-4), where a fixed 1e-4 would have left 1.7x. The
//    bound grows as n^2 along a long axis (kappa >= (n / pi)^2): in float32 it only catches gross
//    errors on the 2048- and 4096-point axes, which are there for the paths they take.
//  - residual, ||Lap_h u - f_c|| / ||f_c|| <= eps (8 r log2 N + (8 + log2 N) lambda_max ||u|| / ||f_c||):
//    the rounding of f's transforms comes back through Lap_h unamplified (eps log N ||f||); an error
//    e of u comes back as Lap_h e, at most lambda_max ||e||, with ||e|| up to eps log N ||u|| from
//    the inverse transforms and a few eps ||u|| from the eigenvalues (relative to lambda_max, as
//    above: Lap_h undoes the 1 / lambda) and from u's own rounding; lambda_max ||u|| also bounds
//    the rounding of the host's Lap_h in double. The float32 model stayed 13x to 50x below; the
//    float64 reference itself, whose naive DFTs round as eps sqrt(n), 1.4x below on 4 x 1 x 4096.
//
// Every output is poisoned (NaN bytes) before its solve; inputs are random (fixed seeds, printed
// with a failure through CAPTURE) and rounded to float, so that both precisions solve the same f
// and one reference serves both. Grids cover every z boundary, powers of two and other lengths
// along the outer axes (the solver's fast and general paths), anisotropic spacings, 2D grids
// (nz = 1; ny = 1: an x-z plane) and the smallest sizes. IDGPU_TEST_MAX_POINTS skips the grids
// above that many points (compute-sanitizer runs).
//
// Beyond accuracy: the weighted mean set by idgpuPoissonSetMean; in place against out of place,
// bit for bit; a plan on a non-blocking stream, solved while the legacy default stream is held by
// a host function; a solve captured in a CUDA graph and replayed on new inputs; eight plans on eight
// host threads at once against each plan run alone; and the bad-input statuses of every entry point.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#define IDGPU_NATIVE_TEST_MAIN
#include "native_test_support.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <future>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "idgpu/idgpu.h"
#include "poisson/reference.h"

namespace {

using idgpu::poisson::reference::Grid;
using idgpu::poisson::reference::ZBoundary;
namespace reference = idgpu::poisson::reference;
using idgpu::test::max_points;

constexpr double kPi = 3.141592653589793238462643383279502884;
constexpr double kEps32 = 5.9604644775390625e-8;   // 2^-24
constexpr double kEps64 = 1.1102230246251565e-16;  // 2^-53
constexpr idgpuPrecision_t kPrecisions[] = {IDGPU_PRECISION_SINGLE, IDGPU_PRECISION_DOUBLE};
constexpr ZBoundary kBoundaries[] = {ZBoundary::kPeriodic, ZBoundary::kNeumann, ZBoundary::kDirichlet};

double unit_roundoff(idgpuPrecision_t precision) {
  return precision == IDGPU_PRECISION_SINGLE ? kEps32 : kEps64;
}
std::size_t real_bytes(idgpuPrecision_t precision) { return precision == IDGPU_PRECISION_SINGLE ? 4 : 8; }
const char* precision_name(idgpuPrecision_t precision) {
  return precision == IDGPU_PRECISION_SINGLE ? "fp32" : "fp64";
}

idgpuPoissonBoundary_t api_boundary(ZBoundary boundary) {
  switch (boundary) {
    case ZBoundary::kPeriodic: return IDGPU_POISSON_PERIODIC;
    case ZBoundary::kNeumann: return IDGPU_POISSON_NEUMANN;
    case ZBoundary::kDirichlet: break;
  }
  return IDGPU_POISSON_DIRICHLET;
}
const char* boundary_name(ZBoundary boundary) {
  switch (boundary) {
    case ZBoundary::kPeriodic: return "periodic";
    case ZBoundary::kNeumann: return "neumann";
    case ZBoundary::kDirichlet: break;
  }
  return "dirichlet";
}

// Periodic everywhere, or Neumann in z: constants are in the operator's null space.
bool singular(const Grid& grid) { return grid.z != ZBoundary::kDirichlet; }

Grid make_grid(long long nx, long long ny, long long nz, double hx, double hy, double hz, ZBoundary z) {
  Grid grid;
  grid.nx = nx;
  grid.ny = ny;
  grid.nz = nz;
  grid.hx = hx;
  grid.hy = hy;
  grid.hz = hz;
  grid.z = z;
  return grid;
}

std::string describe(const Grid& grid) {
  std::ostringstream text;
  text << grid.nx << "x" << grid.ny << "x" << grid.nz << " " << boundary_name(grid.z) << " h=(" << grid.hx << ","
       << grid.hy << "," << grid.hz << ")";
  return text.str();
}

// ---- The operator's spectrum and the tolerances it gives (see the top of this file) ------------

// The largest and the smallest nonzero eigenvalue magnitudes of Lap_h. Along a periodic axis of n
// points they are 4 sin^2(pi k / n) / h^2 (k = 0 .. n - 1), along a Neumann z 4 sin^2(pi k /
// (2 (nz - 1))) / hz^2 (k = 0 .. nz - 1), along a Dirichlet z 4 sin^2(pi k / (2 (nz + 1))) / hz^2
// (k = 1 .. nz); an eigenvalue of Lap_h is a sum of one per axis, so the smallest nonzero one has a
// single nonzero term (the Dirichlet one: the smallest along z plus zeros in x and y).
struct Spectrum {
  double smallest = std::numeric_limits<double>::infinity();
  double largest = 0;
  double condition() const { return largest / smallest; }
};

Spectrum spectrum(const Grid& grid) {
  const auto term = [](double angle, double h) {
    const double s = std::sin(angle);
    return 4.0 * s * s / (h * h);
  };
  Spectrum result;
  const auto periodic_axis = [&](long long n, double h) {
    if (n < 2) return;
    result.largest += term(kPi * static_cast<double>(n / 2) / static_cast<double>(n), h);
    result.smallest = std::min(result.smallest, term(kPi / static_cast<double>(n), h));
  };
  periodic_axis(grid.nx, grid.hx);
  periodic_axis(grid.ny, grid.hy);
  const double nz = static_cast<double>(grid.nz);
  switch (grid.z) {
    case ZBoundary::kPeriodic: periodic_axis(grid.nz, grid.hz); break;
    case ZBoundary::kNeumann:
      result.largest += term(kPi / 2.0, grid.hz);
      result.smallest = std::min(result.smallest, term(kPi / (2.0 * (nz - 1.0)), grid.hz));
      break;
    case ZBoundary::kDirichlet:
      result.largest += term(kPi * nz / (2.0 * (nz + 1.0)), grid.hz);
      result.smallest = term(kPi / (2.0 * (nz + 1.0)), grid.hz);
      break;
  }
  return result;
}

double log2_points(const Grid& grid) { return std::log2(static_cast<double>(grid.points())); }

// Bound of ||u - u_ref|| / ||u_ref||; f_ratio = ||f|| / ||f_c|| (see the top of this file).
double error_bound(const Grid& grid, idgpuPrecision_t precision, double f_ratio) {
  const double kappa = spectrum(grid).condition();
  return f_ratio * unit_roundoff(precision) * (kappa + 8.0 * log2_points(grid)) + kEps64 * kappa;
}

// Bound of ||Lap_h u - f_c|| / ||f_c||.
double residual_bound(const Grid& grid, idgpuPrecision_t precision, double u_norm, double f_norm,
                      double f_centred_norm) {
  const double log_n = log2_points(grid);
  return unit_roundoff(precision) * (8.0 * (f_norm / f_centred_norm) * log_n +
                                     (8.0 + log_n) * spectrum(grid).largest * u_norm / f_centred_norm);
}

// ---- Host arrays -------------------------------------------------------------------------------

double norm(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x * x;
  return std::sqrt(sum);
}

double distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum);
}

double max_distance(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

bool all_finite(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// The weighted mean with reference::mean_weights (1; 1/2 on the first and last z planes with Neumann).
double weighted_mean(const Grid& grid, const std::vector<double>& v) {
  const std::vector<double> weights = reference::mean_weights(grid);
  double sum = 0, total = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    sum += weights[i] * v[i];
    total += weights[i];
  }
  return sum / total;
}

// f minus its weighted mean where the problem is singular (what the solver solves for), else f.
std::vector<double> centred(const Grid& grid, std::vector<double> f) {
  if (!singular(grid)) return f;
  const double mean = weighted_mean(grid, f);
  for (double& x : f) x -= mean;
  return f;
}

double relative_residual(const Grid& grid, const std::vector<double>& u, const std::vector<double>& f_centred) {
  return distance(reference::apply_laplacian(grid, u), f_centred) / norm(f_centred);
}

// ||f|| / ||f_c||: rounding in the solve scales with f, the solution with f_c.
double centring_ratio(const Grid& grid, const std::vector<double>& f) { return norm(f) / norm(centred(grid, f)); }

// Uniform in (-1, 1) and rounded to float, so that both precisions solve the same f.
std::vector<double> random_field(long long count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> values(static_cast<std::size_t>(count));
  for (double& x : values) x = static_cast<double>(static_cast<float>(uniform(engine)));
  return values;
}

// The values in the plan's precision, as bytes (what the device array holds).
std::vector<unsigned char> to_bytes(const std::vector<double>& values, idgpuPrecision_t precision) {
  std::vector<unsigned char> bytes(values.size() * real_bytes(precision));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (precision == IDGPU_PRECISION_SINGLE) {
      const float narrow = static_cast<float>(values[i]);
      std::memcpy(&bytes[i * 4], &narrow, 4);
    } else {
      std::memcpy(&bytes[i * 8], &values[i], 8);
    }
  }
  return bytes;
}

std::vector<double> widen(const std::vector<unsigned char>& bytes, idgpuPrecision_t precision) {
  const std::size_t size = real_bytes(precision);
  std::vector<double> values(bytes.size() / size);
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (precision == IDGPU_PRECISION_SINGLE) {
      float narrow = 0;
      std::memcpy(&narrow, &bytes[i * 4], 4);
      values[i] = narrow;
    } else {
      std::memcpy(&values[i], &bytes[i * 8], 8);
    }
  }
  return values;
}

// "" when a and b hold the same bits, else where they first differ (a short text: Catch would
// print whole vectors).
std::string bits_difference(const std::vector<unsigned char>& a, const std::vector<unsigned char>& b,
                            idgpuPrecision_t precision) {
  if (a.size() != b.size()) return "sizes differ: " + std::to_string(a.size()) + " and " + std::to_string(b.size());
  if (a == b) return "";
  const std::size_t size = real_bytes(precision);
  std::size_t first = a.size(), differing = 0;
  for (std::size_t i = 0; i < a.size(); i += size) {
    if (std::memcmp(&a[i], &b[i], size) != 0) {
      first = std::min(first, i / size);
      ++differing;
    }
  }
  const std::vector<unsigned char> a_first(a.begin() + first * size, a.begin() + (first + 1) * size);
  const std::vector<unsigned char> b_first(b.begin() + first * size, b.begin() + (first + 1) * size);
  std::ostringstream text;
  text.precision(17);
  text << differing << " elements differ, the first at " << first << ": " << widen(a_first, precision)[0] << " and "
       << widen(b_first, precision)[0];
  return text.str();
}

// ---- One plan with its device arrays -----------------------------------------------------------

enum class StreamKind { kDefault, kNonBlocking };

// A plan, its device arrays f and u, a pinned staging buffer and, for StreamKind::kNonBlocking, a
// stream of its own (otherwise the plan's default, the legacy default stream). Copies, poisoning
// and solves are enqueued on that stream, and download() synchronises that stream alone. Usable
// from one host thread at a time, any thread: it records its first failure instead of asserting
// (Catch2's assertions are not thread-safe).
class Run {
 public:
  Run(const Grid& grid, idgpuPrecision_t precision, StreamKind stream_kind = StreamKind::kDefault)
      : grid_(grid),
        precision_(precision),
        bytes_(static_cast<std::size_t>(grid.points()) * real_bytes(precision)) {
    if (stream_kind == StreamKind::kNonBlocking &&
        !check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking) == cudaSuccess, "cudaStreamCreateWithFlags")) {
      return;
    }
    if (!check(idgpuPoissonCreate(&plan_, static_cast<int>(grid.nx), static_cast<int>(grid.ny),
                                  static_cast<int>(grid.nz), grid.hx, grid.hy, grid.hz, api_boundary(grid.z),
                                  precision) == IDGPU_STATUS_SUCCESS,
               "idgpuPoissonCreate")) {
      plan_ = nullptr;
      return;
    }
    if (stream_ != nullptr &&
        !check(idgpuPoissonSetStream(plan_, stream_) == IDGPU_STATUS_SUCCESS, "idgpuPoissonSetStream")) {
      return;
    }
    check(cudaMalloc(&f_, bytes_) == cudaSuccess && cudaMalloc(&u_, bytes_) == cudaSuccess &&
              cudaMallocHost(&staging_, bytes_) == cudaSuccess,
          "cudaMalloc / cudaMallocHost");
  }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;
  ~Run() {
    cudaStreamSynchronize(stream_);
    if (plan_ != nullptr) idgpuPoissonDestroy(plan_);
    cudaFree(f_);
    cudaFree(u_);
    cudaFreeHost(staging_);
    if (stream_ != nullptr) cudaStreamDestroy(stream_);
  }

  bool ok() const { return failure_.empty(); }
  const std::string& failure() const { return failure_; }
  const Grid& grid() const { return grid_; }
  idgpuPrecision_t precision() const { return precision_; }
  idgpuPoissonPlan_t plan() const { return plan_; }
  cudaStream_t stream() const { return stream_; }
  void* f() const { return f_; }
  void* u() const { return u_; }
  std::size_t bytes() const { return bytes_; }

  // f's values, in the plan's precision, into the device's f (enqueued on the stream).
  bool upload(const std::vector<double>& values) {
    if (!ok()) return false;
    // The staging buffer may still be read by an earlier copy.
    if (!check(cudaStreamSynchronize(stream_) == cudaSuccess, "cudaStreamSynchronize before staging")) return false;
    const std::vector<unsigned char> bytes = to_bytes(values, precision_);
    std::memcpy(staging_, bytes.data(), bytes_);
    return check(cudaMemcpyAsync(f_, staging_, bytes_, cudaMemcpyHostToDevice, stream_) == cudaSuccess, "upload");
  }

  // u poisoned with NaN bytes (out of place), then the solve of f into u (or into f, in place).
  bool solve(bool in_place = false) {
    if (!ok()) return false;
    if (!in_place && !poison_u()) return false;
    return check(exec(f_, in_place ? f_ : u_) == IDGPU_STATUS_SUCCESS, "idgpuPoissonExec");
  }

  bool poison_u() { return check(cudaMemsetAsync(u_, 0xff, bytes_, stream_) == cudaSuccess, "cudaMemsetAsync"); }

  // The plan's exec call of its precision, on device arrays.
  idgpuStatus_t exec(const void* f, void* u) const {
    if (precision_ == IDGPU_PRECISION_SINGLE) {
      return idgpuPoissonExecS(plan_, static_cast<const float*>(f), static_cast<float*>(u));
    }
    return idgpuPoissonExecD(plan_, static_cast<const double*>(f), static_cast<double*>(u));
  }

  // The bytes of u (or of f) once the stream's work is done: copied through the stream, which
  // alone is synchronised. Empty on a failure.
  std::vector<unsigned char> download(bool from_f = false) {
    if (!ok()) return {};
    if (!check(cudaMemcpyAsync(staging_, from_f ? f_ : u_, bytes_, cudaMemcpyDeviceToHost, stream_) == cudaSuccess &&
                   cudaStreamSynchronize(stream_) == cudaSuccess,
               "download")) {
      return {};
    }
    const unsigned char* first = static_cast<const unsigned char*>(staging_);
    return std::vector<unsigned char>(first, first + bytes_);
  }

  std::vector<double> solve_and_download(const std::vector<double>& f) {
    if (!upload(f) || !solve()) return {};
    return widen(download(), precision_);
  }

 private:
  bool check(bool condition, const char* what) {
    if (!condition && failure_.empty()) {
      const cudaError_t error = cudaGetLastError();
      failure_ = std::string(what) + " failed (" + cudaGetErrorString(error) + ")";
    }
    return condition;
  }

  Grid grid_;
  idgpuPrecision_t precision_;
  std::size_t bytes_;
  idgpuPoissonPlan_t plan_ = nullptr;
  cudaStream_t stream_ = nullptr;
  void* f_ = nullptr;
  void* u_ = nullptr;
  void* staging_ = nullptr;
  std::string failure_;
};

// The worst ratio of an observed error to its bound, for the summary printed after a case.
struct Worst {
  double ratio = 0;
  std::string where;
  void note(double error, double bound, const std::string& what) {
    if (error / bound > ratio) {
      ratio = error / bound;
      where = what;
    }
  }
};

// Fails the test case with the run's first failure, if it has one.
void require_ok(const Run& run) {
  INFO(run.failure());
  REQUIRE(run.ok());
}

// Checks the residual of one solution of f (reference-free) and records it in `worst`.
void check_residual(const Grid& grid, idgpuPrecision_t precision, const std::vector<double>& u,
                    const std::vector<double>& f, Worst* worst) {
  const std::vector<double> f_centred = centred(grid, f);
  const double residual = relative_residual(grid, u, f_centred);
  const double bound = residual_bound(grid, precision, norm(u), norm(f), norm(f_centred));
  CAPTURE(residual, bound);
  CHECK(residual <= bound);
  if (worst != nullptr) worst->note(residual, bound, describe(grid) + " " + precision_name(precision));
}

// ---- Grids ----------------------------------------------------------------------------------------

struct Shape {
  long long nx, ny, nz;
  double hx, hy, hz;
  std::vector<ZBoundary> boundaries;
};

const std::vector<ZBoundary> kAll = {ZBoundary::kPeriodic, ZBoundary::kNeumann, ZBoundary::kDirichlet};

// The grids checked against the reference (the largest about 7 s of host time for its three
// boundaries, on host threads beside the rest).
std::vector<Shape> reference_shapes() {
  const double h128 = 1.0 / 128.0;
  return {
      // 3D, every length a power of two (the fast path of the outer axes)
      {16, 16, 16, 1.0, 1.0, 1.0, kAll},
      {32, 16, 8, 0.7, 1.3, 0.4, kAll},
      {64, 64, 64, 1.0, 1.0, 1.0, kAll},
      {128, 128, 128, h128, h128, h128, kAll},
      {8, 8, 256, 1.0, 1.0, 0.5, kAll},
      {8, 6, 4, 1.0, 1.0, 1.0, kAll},
      // the longest power-of-two outer axis the fast path may take (2^11), and one beyond
      {4, 2, 2048, 1.0, 1.0, 1.0 / 512.0, kAll},
      {4, 1, 4096, 1.0, 1.0, 1.0 / 1024.0, kAll},
      {6, 2048, 1, 1.0, 1.0 / 256.0, 1.0, {ZBoundary::kPeriodic}},
      // outer lengths not powers of two (the general path), or one of each
      {24, 20, 12, 0.5, 0.25, 1.0, kAll},
      {15, 9, 7, 0.3, 0.5, 0.2, kAll},
      {17, 13, 11, 1.0, 0.8, 1.2, kAll},
      {32, 32, 24, 1.0, 1.0, 0.5, kAll},
      {30, 18, 32, 0.25, 0.5, 1.0, kAll},
      {32, 32, 33, 1.0, 1.0, 1.0, kAll},
      {96, 80, 72, 1.0, 1.0, 1.0, kAll},
      {6, 4, 500, 1.0, 1.0, 0.1, kAll},
      // 2D: nz = 1
      {64, 48, 1, 1.0, 0.5, 1.0, {ZBoundary::kPeriodic}},
      {128, 128, 1, 1.0, 1.0, 1.0, {ZBoundary::kPeriodic}},
      {63, 20, 1, 0.3, 0.7, 1.0, {ZBoundary::kPeriodic}},
      // nz = 1 with Dirichlet: one plane between two planes of zeros, as the reference reads it
      // (the z difference, -2 u / hz^2, stays in the operator)
      {32, 24, 1, 1.0, 1.0, 0.5, {ZBoundary::kDirichlet}},
      // 2D: ny = 1, an x-z plane
      {64, 1, 32, 1.0, 1.0, 1.0, kAll},
      {50, 1, 33, 0.5, 1.0, 0.25, kAll},
      {128, 1, 128, 1.0, 1.0, 1.0, kAll},
      // the smallest grids
      {2, 1, 1, 1.0, 1.0, 1.0, {ZBoundary::kPeriodic, ZBoundary::kDirichlet}},
      {2, 1, 2, 1.0, 1.0, 1.0, kAll},
      {3, 2, 2, 0.5, 1.0, 2.0, kAll},
      {4, 1, 3, 1.0, 1.0, 1.0, kAll},
  };
}

std::vector<Grid> grids_of(const std::vector<Shape>& shapes) {
  std::vector<Grid> grids;
  for (const Shape& s : shapes) {
    for (ZBoundary boundary : s.boundaries) {
      const Grid grid = make_grid(s.nx, s.ny, s.nz, s.hx, s.hy, s.hz, boundary);
      if (grid.points() <= max_points()) grids.push_back(grid);
    }
  }
  return grids;
}

// ---- Manufactured solutions ---------------------------------------------------------------------

// The domain: [0, 1) x [0, 1.5) periodic in x and y; in z [0, 2) periodic, [0, 2] with Neumann
// (z_k = k hz) or the interior of [0, 2] with Dirichlet (z_k = (k + 1) hz).
constexpr double kLengthX = 1.0, kLengthY = 1.5, kLengthZ = 2.0;

// The grid of level n: n points along x and y, n intervals along z.
Grid manufactured_grid(long long n, ZBoundary boundary) {
  const double steps = static_cast<double>(n);
  switch (boundary) {
    case ZBoundary::kPeriodic: break;
    case ZBoundary::kNeumann: return make_grid(n, n, n + 1, kLengthX / steps, kLengthY / steps, kLengthZ / steps, boundary);
    case ZBoundary::kDirichlet: return make_grid(n, n, n - 1, kLengthX / steps, kLengthY / steps, kLengthZ / steps, boundary);
  }
  return make_grid(n, n, n, kLengthX / steps, kLengthY / steps, kLengthZ / steps, boundary);
}

struct Manufactured {
  std::vector<double> u, f;  // the exact solution and its continuous Laplacian, at the grid's points
};

// u = sin(2 pi x) cos(4 pi y / 1.5) g1(z) + 1/2 cos(2 pi x) sin(2 pi y / 1.5) g2(z), with g1, g2
// sin(2 pi z / 2), cos(4 pi z / 2) periodic; cos(pi z / 2), cos(2 pi z / 2) Neumann (du/dz = 0 at 0
// and 2); sin(pi z / 2), sin(2 pi z / 2) Dirichlet. Both terms have zero weighted mean (a full
// period in x), so u is the solution the singular problems return with mean 0.
Manufactured manufactured(const Grid& grid) {
  const double ax = 2 * kPi / kLengthX, b1 = 4 * kPi / kLengthY, b2 = 2 * kPi / kLengthY;
  const bool periodic = grid.z == ZBoundary::kPeriodic;
  const double c1 = (periodic ? 2 * kPi : kPi) / kLengthZ, c2 = (periodic ? 4 * kPi : 2 * kPi) / kLengthZ;
  const double lap1 = -(ax * ax + b1 * b1 + c1 * c1), lap2 = -(ax * ax + b2 * b2 + c2 * c2);
  std::vector<double> sx(grid.nx), cx(grid.nx), y1(grid.ny), y2(grid.ny), z1(grid.nz), z2(grid.nz);
  for (long long i = 0; i < grid.nx; ++i) {
    sx[i] = std::sin(ax * static_cast<double>(i) * grid.hx);
    cx[i] = std::cos(ax * static_cast<double>(i) * grid.hx);
  }
  for (long long j = 0; j < grid.ny; ++j) {
    y1[j] = std::cos(b1 * static_cast<double>(j) * grid.hy);
    y2[j] = std::sin(b2 * static_cast<double>(j) * grid.hy);
  }
  for (long long k = 0; k < grid.nz; ++k) {
    const double z = static_cast<double>(grid.z == ZBoundary::kDirichlet ? k + 1 : k) * grid.hz;
    const bool cosine = grid.z == ZBoundary::kNeumann;
    z1[k] = cosine ? std::cos(c1 * z) : std::sin(c1 * z);
    z2[k] = cosine || periodic ? std::cos(c2 * z) : std::sin(c2 * z);
  }
  Manufactured m;
  m.u.resize(static_cast<std::size_t>(grid.points()));
  m.f.resize(m.u.size());
  for (long long k = 0; k < grid.nz; ++k) {
    for (long long j = 0; j < grid.ny; ++j) {
      for (long long i = 0; i < grid.nx; ++i) {
        const std::size_t at = static_cast<std::size_t>((k * grid.ny + j) * grid.nx + i);
        const double term1 = sx[i] * y1[j] * z1[k], term2 = 0.5 * cx[i] * y2[j] * z2[k];
        m.u[at] = term1 + term2;
        m.f[at] = lap1 * term1 + lap2 * term2;
      }
    }
  }
  return m;
}

// ---- The legacy default stream held by a host function -------------------------------------------

// Holds the stream it is enqueued on until opened, or for at most 10 s (so that a failing case
// cannot hang the run); `expired` then says the hold ran out.
struct Gate {
  std::atomic<bool> open{false};
  std::atomic<bool> expired{false};
};

void CUDART_CB hold_until_open(void* data) {
  Gate* gate = static_cast<Gate*>(data);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!gate->open.load()) {
    if (std::chrono::steady_clock::now() > deadline) {
      gate->expired.store(true);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace

// ---- Against the float64 host reference ------------------------------------------------------------

TEST_CASE("Poisson solves against the float64 host reference", "[poisson][reference]") {
  const std::vector<Grid> grids = grids_of(reference_shapes());
  std::vector<std::uint64_t> seeds;
  std::vector<std::vector<double>> inputs;
  for (std::size_t i = 0; i < grids.size(); ++i) {
    seeds.push_back(20260100 + i);
    inputs.push_back(random_field(grids[i].points(), seeds.back()));
  }
  // Every reference at once on host threads (the 128^3 ones take seconds each); then the GPU.
  std::vector<std::future<std::vector<double>>> references;
  for (std::size_t i = 0; i < grids.size(); ++i) {
    references.push_back(std::async(std::launch::async, [&grids, &inputs, i] {
      return reference::solve(grids[i], inputs[i]);
    }));
  }
  Worst worst_error[2], worst_residual[2];
  for (std::size_t i = 0; i < grids.size(); ++i) {
    const Grid& grid = grids[i];
    const std::vector<double>& f = inputs[i];
    CAPTURE(describe(grid), seeds[i]);
    const std::vector<double> u_ref = references[i].get();
    const double f_ratio = centring_ratio(grid, f);
    for (int p = 0; p < 2; ++p) {
      const idgpuPrecision_t precision = kPrecisions[p];
      CAPTURE(precision_name(precision));
      Run run(grid, precision);
      size_t work_bytes = 0;
      if (run.ok()) CHECK(idgpuPoissonGetWorkSize(run.plan(), &work_bytes) == IDGPU_STATUS_SUCCESS);
      CHECK(work_bytes > 0);
      run.upload(f);
      run.solve();
      const std::vector<unsigned char> u_bytes = run.download();
      const std::vector<unsigned char> f_after = run.download(true);
      require_ok(run);
      // Out of place, f is not written.
      CHECK(bits_difference(f_after, to_bytes(f, precision), precision) == "");
      const std::vector<double> u = widen(u_bytes, precision);
      REQUIRE(all_finite(u));
      const double error = distance(u, u_ref) / norm(u_ref);
      const double bound = error_bound(grid, precision, f_ratio);
      CAPTURE(error, bound);
      CHECK(error <= bound);
      worst_error[p].note(error, bound, describe(grid));
      check_residual(grid, precision, u, f, &worst_residual[p]);
    }
  }
  for (int p = 0; p < 2; ++p) {
    std::printf("poisson reference, %s: worst error / bound %.3g (%s), worst residual / bound %.3g (%s)\n",
                precision_name(kPrecisions[p]), worst_error[p].ratio, worst_error[p].where.c_str(),
                worst_residual[p].ratio, worst_residual[p].where.c_str());
  }
}

// ---- Manufactured solutions: second-order convergence ------------------------------------------------

TEST_CASE("Poisson solves converge at second order to exact solutions", "[poisson][manufactured]") {
  // Three levels, h halving; smaller ladders where IDGPU_TEST_MAX_POINTS leaves out the largest.
  const std::vector<std::vector<long long>> ladders = {{32, 64, 128}, {16, 32, 64}, {16, 24, 32}};
  for (ZBoundary boundary : kBoundaries) {
    CAPTURE(boundary_name(boundary));
    const std::vector<long long>* ladder = nullptr;
    for (const std::vector<long long>& candidate : ladders) {
      if (manufactured_grid(candidate.back(), boundary).points() <= max_points()) {
        ladder = &candidate;
        break;
      }
    }
    if (ladder == nullptr) {
      WARN("every manufactured grid is above IDGPU_TEST_MAX_POINTS: skipped");
      continue;
    }
    std::vector<double> errors[2];
    for (long long n : *ladder) {
      const Grid grid = manufactured_grid(n, boundary);
      CAPTURE(describe(grid));
      const Manufactured m = manufactured(grid);
      for (int p = 0; p < 2; ++p) {
        const idgpuPrecision_t precision = kPrecisions[p];
        CAPTURE(precision_name(precision));
        Run run(grid, precision);
        const std::vector<double> u = run.solve_and_download(m.f);
        require_ok(run);
        REQUIRE(all_finite(u));
        check_residual(grid, precision, u, m.f, nullptr);
        errors[p].push_back(max_distance(u, m.u));
      }
    }
    for (int p = 0; p < 2; ++p) {
      CAPTURE(precision_name(kPrecisions[p]));
      // Discretisation errors of about 6e-4 at the finest level against rounding of 1e-6 relative
      // (float32: the solution is two smooth modes), so both precisions show the order.
      for (std::size_t level = 1; level < errors[p].size(); ++level) {
        const double refinement = static_cast<double>((*ladder)[level]) / static_cast<double>((*ladder)[level - 1]);
        const double order = std::log(errors[p][level - 1] / errors[p][level]) / std::log(refinement);
        CAPTURE(level, errors[p][level - 1], errors[p][level], order);
        CHECK(order >= 1.8);
        CHECK(order <= 2.2);
      }
    }
  }
}

// ---- The zero mode ---------------------------------------------------------------------------------

TEST_CASE("the solution's weighted mean is the plan's mean value", "[poisson][mean]") {
  const std::vector<Grid> grids = grids_of({{24, 20, 12, 0.5, 0.25, 1.0, kAll},
                                            {32, 16, 8, 0.7, 1.3, 0.4, kAll},
                                            {64, 1, 33, 1.0, 1.0, 0.5, kAll},
                                            {48, 40, 1, 1.0, 1.0, 1.0, {ZBoundary::kPeriodic}}});
  constexpr double kMean = 2.5;
  std::uint64_t seed = 20260200;
  for (const Grid& grid : grids) {
    for (idgpuPrecision_t precision : kPrecisions) {
      ++seed;
      CAPTURE(describe(grid), precision_name(precision), seed);
      const std::vector<double> f = random_field(grid.points(), seed);
      Run run(grid, precision);
      run.upload(f);
      run.solve();
      const std::vector<unsigned char> zero_bytes = run.download();
      require_ok(run);
      REQUIRE(idgpuPoissonSetMean(run.plan(), kMean) == IDGPU_STATUS_SUCCESS);
      run.solve();
      const std::vector<unsigned char> mean_bytes = run.download();
      REQUIRE(idgpuPoissonSetMean(run.plan(), 0.0) == IDGPU_STATUS_SUCCESS);
      run.solve();
      const std::vector<unsigned char> back_bytes = run.download();
      require_ok(run);
      // The mean set back to 0 gives the first solve's bits.
      CHECK(bits_difference(back_bytes, zero_bytes, precision) == "");
      if (!singular(grid)) {
        // With Dirichlet in z nothing is removed and the mean value is unused.
        CHECK(bits_difference(mean_bytes, zero_bytes, precision) == "");
        continue;
      }
      const std::vector<double> u0 = widen(zero_bytes, precision), um = widen(mean_bytes, precision);
      REQUIRE(all_finite(u0));
      REQUIRE(all_finite(um));
      // Each solution is within error_bound of its exact value (relative, L2); the weighted mean of
      // an error e is at most 2 rms(e) (weights in [1/2, 1], at least half of them 1).
      const double bound = error_bound(grid, precision, centring_ratio(grid, f));
      const double points = static_cast<double>(grid.points());
      const double rms0 = norm(u0) / std::sqrt(points);
      CHECK(std::fabs(weighted_mean(grid, u0)) <= 2 * bound * rms0);
      CHECK(std::fabs(weighted_mean(grid, um) - kMean) <= 2 * bound * (rms0 + kMean));
      // The mean-0 solution plus the mean.
      std::vector<double> shifted = u0;
      for (double& x : shifted) x += kMean;
      const double difference = distance(um, shifted) / (norm(u0) + kMean * std::sqrt(points));
      CAPTURE(difference, bound);
      CHECK(difference <= 2 * bound);
    }
  }
}

// ---- In place ----------------------------------------------------------------------------------------

TEST_CASE("in place (u = f) gives the bits of out of place", "[poisson][in-place]") {
  const std::vector<Grid> grids = grids_of({{24, 20, 12, 0.5, 0.25, 1.0, kAll},
                                            {32, 32, 32, 1.0, 1.0, 1.0, kAll},
                                            {15, 9, 7, 0.3, 0.5, 0.2, kAll},
                                            {64, 1, 33, 1.0, 1.0, 0.5, kAll},
                                            {48, 40, 1, 1.0, 1.0, 1.0, {ZBoundary::kPeriodic}}});
  std::uint64_t seed = 20260300;
  for (const Grid& grid : grids) {
    for (idgpuPrecision_t precision : kPrecisions) {
      ++seed;
      CAPTURE(describe(grid), precision_name(precision), seed);
      const std::vector<double> f = random_field(grid.points(), seed);
      Run run(grid, precision);
      run.upload(f);
      run.solve(false);
      const std::vector<unsigned char> expected = run.download();
      run.upload(f);
      run.solve(true);
      const std::vector<unsigned char> got = run.download(true);
      require_ok(run);
      REQUIRE(all_finite(widen(expected, precision)));
      CHECK(bits_difference(got, expected, precision) == "");
    }
  }
}

// ---- Streams and graphs ------------------------------------------------------------------------------

namespace {

struct StreamCase {
  Grid grid;
  idgpuPrecision_t precision;
};

// The cases within the cap of points a call (a copy, not erase(remove_if): GCC 13 warns of an
// out-of-bounds memmove in that, a false positive that -Werror makes an error).
std::vector<StreamCase> within_cap(const std::vector<StreamCase>& cases) {
  std::vector<StreamCase> kept;
  for (const StreamCase& c : cases) {
    if (c.grid.points() <= max_points()) kept.push_back(c);
  }
  return kept;
}

std::vector<StreamCase> stream_cases() {
  std::vector<StreamCase> cases = {
      {make_grid(32, 24, 20, 1.0, 1.0, 1.0, ZBoundary::kPeriodic), IDGPU_PRECISION_SINGLE},
      {make_grid(64, 64, 32, 1.0, 0.5, 1.0, ZBoundary::kPeriodic), IDGPU_PRECISION_DOUBLE},
      {make_grid(30, 18, 32, 0.5, 1.0, 1.0, ZBoundary::kNeumann), IDGPU_PRECISION_DOUBLE},
      {make_grid(64, 32, 17, 1.0, 1.0, 0.5, ZBoundary::kNeumann), IDGPU_PRECISION_SINGLE},
      {make_grid(64, 1, 31, 1.0, 1.0, 1.0, ZBoundary::kDirichlet), IDGPU_PRECISION_SINGLE},
      {make_grid(40, 36, 64, 1.0, 1.0, 1.0, ZBoundary::kDirichlet), IDGPU_PRECISION_DOUBLE},
  };
  return within_cap(cases);
}

}  // namespace

// Not under compute-sanitizer (perf/gpu-check.sh leaves it out): the sanitizer serialises the
// streams, so the solve waits for the legacy stream this test holds.
TEST_CASE("a plan on a non-blocking stream needs that stream alone", "[poisson][stream]") {
  std::uint64_t seed = 20260400;
  for (const StreamCase& c : stream_cases()) {
    CAPTURE(describe(c.grid), precision_name(c.precision), seed + 1);
    const std::vector<double> first = random_field(c.grid.points(), ++seed);
    const std::vector<double> second = random_field(c.grid.points(), ++seed);
    // The same solves on a plan on the legacy default stream.
    Run plain(c.grid, c.precision);
    const std::vector<double> plain_first = plain.solve_and_download(first);
    const std::vector<double> plain_second = plain.solve_and_download(second);
    require_ok(plain);
    REQUIRE(all_finite(plain_first));
    check_residual(c.grid, c.precision, plain_first, first, nullptr);

    Run run(c.grid, c.precision, StreamKind::kNonBlocking);
    // Solve, synchronise the plan's stream alone (download()), read: the stream orders the solve.
    run.upload(first);
    run.solve();
    const std::vector<unsigned char> on_stream = run.download();
    require_ok(run);
    CHECK(bits_difference(on_stream, to_bytes(plain_first, c.precision), c.precision) == "");

    // With the legacy default stream held by a host function, a solve on the plan's stream still
    // completes: nothing of it waits on the legacy stream or synchronises the device.
    Gate gate;
    REQUIRE(cudaLaunchHostFunc(cudaStreamLegacy, hold_until_open, &gate) == cudaSuccess);
    run.upload(second);
    run.solve();
    const std::vector<unsigned char> while_held = run.download();
    const bool still_held = !gate.expired.load();
    gate.open.store(true);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    require_ok(run);
    CHECK(still_held);
    CHECK(bits_difference(while_held, to_bytes(plain_second, c.precision), c.precision) == "");
  }
}

TEST_CASE("a solve captured in a CUDA graph gives the bits of a direct solve", "[poisson][graph]") {
  std::uint64_t seed = 20260500;
  for (const StreamCase& c : stream_cases()) {
    CAPTURE(describe(c.grid), precision_name(c.precision), seed + 1);
    std::vector<std::vector<double>> inputs;
    for (int i = 0; i < 3; ++i) inputs.push_back(random_field(c.grid.points(), ++seed));
    Run run(c.grid, c.precision, StreamKind::kNonBlocking);
    std::vector<std::vector<unsigned char>> direct;
    for (const std::vector<double>& f : inputs) {
      run.upload(f);
      run.solve();
      direct.push_back(run.download());
    }
    require_ok(run);
    REQUIRE(all_finite(widen(direct[0], c.precision)));

    // Capture one solve of the arrays f -> u; the capture itself runs nothing (u stays poisoned).
    run.upload(inputs[0]);
    run.poison_u();
    require_ok(run);
    REQUIRE(cudaStreamSynchronize(run.stream()) == cudaSuccess);
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t instance = nullptr;
    REQUIRE(cudaStreamBeginCapture(run.stream(), cudaStreamCaptureModeThreadLocal) == cudaSuccess);
    const idgpuStatus_t captured = run.exec(run.f(), run.u());
    REQUIRE(cudaStreamEndCapture(run.stream(), &graph) == cudaSuccess);
    REQUIRE(captured == IDGPU_STATUS_SUCCESS);
    REQUIRE(cudaGraphInstantiate(&instance, graph, 0) == cudaSuccess);
    const std::vector<unsigned char> after_capture = run.download();
    CHECK(bits_difference(after_capture, std::vector<unsigned char>(run.bytes(), 0xff), c.precision) == "");

    // Replayed twice, each time on new values copied into the same f.
    for (int i = 1; i < 3; ++i) {
      CAPTURE(i);
      run.upload(inputs[i]);
      run.poison_u();
      require_ok(run);
      REQUIRE(cudaGraphLaunch(instance, run.stream()) == cudaSuccess);
      const std::vector<unsigned char> replayed = run.download();
      require_ok(run);
      CHECK(bits_difference(replayed, direct[static_cast<std::size_t>(i)], c.precision) == "");
    }
    cudaGraphExecDestroy(instance);
    cudaGraphDestroy(graph);
  }
}

// ---- Eight host threads ------------------------------------------------------------------------------

TEST_CASE("eight plans on eight host threads at once give the bits of each plan run alone", "[poisson][threads]") {
  std::vector<StreamCase> jobs = {
      {make_grid(64, 64, 64, 1.0, 1.0, 1.0, ZBoundary::kPeriodic), IDGPU_PRECISION_SINGLE},
      {make_grid(64, 48, 40, 1.0, 0.5, 1.0, ZBoundary::kNeumann), IDGPU_PRECISION_DOUBLE},
      {make_grid(96, 1, 65, 1.0, 1.0, 1.0, ZBoundary::kDirichlet), IDGPU_PRECISION_SINGLE},
      {make_grid(128, 128, 1, 1.0, 1.0, 1.0, ZBoundary::kPeriodic), IDGPU_PRECISION_DOUBLE},
      {make_grid(30, 18, 32, 0.5, 1.0, 1.0, ZBoundary::kDirichlet), IDGPU_PRECISION_DOUBLE},
      {make_grid(32, 32, 33, 1.0, 1.0, 1.0, ZBoundary::kNeumann), IDGPU_PRECISION_SINGLE},
      {make_grid(15, 9, 7, 0.3, 0.5, 0.2, ZBoundary::kPeriodic), IDGPU_PRECISION_DOUBLE},
      {make_grid(80, 60, 50, 1.0, 1.0, 1.0, ZBoundary::kPeriodic), IDGPU_PRECISION_SINGLE},
  };
  jobs = within_cap(jobs);
  constexpr int kCalls = 4;
  std::vector<std::vector<double>> inputs;
  for (std::size_t j = 0; j < jobs.size(); ++j) inputs.push_back(random_field(jobs[j].grid.points(), 20260600 + j));
  // Each thread makes its plan and stream, solves kCalls times, and hands the plan back for the
  // solo run (one host thread at a time per plan).
  std::vector<std::unique_ptr<Run>> runs(jobs.size());
  std::vector<std::vector<std::vector<unsigned char>>> results(jobs.size());
  std::vector<std::thread> threads;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    threads.emplace_back([&, j] {
      runs[j] = std::make_unique<Run>(jobs[j].grid, jobs[j].precision, StreamKind::kNonBlocking);
      for (int call = 0; call < kCalls && runs[j]->upload(inputs[j]) && runs[j]->solve(); ++call) {
        results[j].push_back(runs[j]->download());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    Run& run = *runs[j];
    CAPTURE(describe(jobs[j].grid), precision_name(jobs[j].precision), 20260600 + j);
    require_ok(run);
    REQUIRE(results[j].size() == static_cast<std::size_t>(kCalls));
    run.upload(inputs[j]);
    run.solve();
    const std::vector<unsigned char> alone = run.download();
    require_ok(run);
    const std::vector<double> u = widen(alone, jobs[j].precision);
    REQUIRE(all_finite(u));
    check_residual(jobs[j].grid, jobs[j].precision, u, inputs[j], nullptr);
    for (int call = 0; call < kCalls; ++call) {
      CAPTURE(call);
      CHECK(bits_difference(results[j][static_cast<std::size_t>(call)], alone, jobs[j].precision) == "");
    }
  }
}

// ---- Bad input --------------------------------------------------------------------------------------

TEST_CASE("bad arguments give IDGPU_STATUS_INVALID_VALUE and change nothing", "[poisson][bad-input]") {
  const idgpuPoissonPlan_t sentinel = reinterpret_cast<idgpuPoissonPlan_t>(static_cast<std::uintptr_t>(0x5e47));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  struct Create {
    const char* what;
    int nx, ny, nz;
    double hx, hy, hz;
    int boundary, precision;
  };
  // Enumerations as a C caller may pass them: any int.
  const std::vector<Create> bad = {
      {"nx = 1", 1, 8, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE},
      {"nx = 0", 0, 8, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE},
      {"nx < 0", -8, 8, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_DOUBLE},
      {"ny = 0", 8, 0, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE},
      {"ny < 0", 8, -1, 8, 1, 1, 1, IDGPU_POISSON_DIRICHLET, IDGPU_PRECISION_SINGLE},
      {"nz = 0", 8, 8, 0, 1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_DOUBLE},
      {"nz < 0", 8, 8, -2, 1, 1, 1, IDGPU_POISSON_DIRICHLET, IDGPU_PRECISION_DOUBLE},
      {"Neumann with nz = 1", 8, 8, 1, 1, 1, 1, IDGPU_POISSON_NEUMANN, IDGPU_PRECISION_SINGLE},
      {"nx ny nz = 2^31", 2048, 1024, 1024, 1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE},
      {"hx = 0", 8, 8, 8, 0, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE},
      {"hx < 0", 8, 8, 8, -1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE},
      {"hx NaN", 8, 8, 8, nan, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_DOUBLE},
      {"hy = 0", 8, 8, 8, 1, 0, 1, IDGPU_POISSON_NEUMANN, IDGPU_PRECISION_SINGLE},
      {"hy infinite", 8, 8, 8, 1, inf, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE},
      {"hz < 0", 8, 8, 8, 1, 1, -0.5, IDGPU_POISSON_DIRICHLET, IDGPU_PRECISION_DOUBLE},
      {"hz NaN", 8, 8, 8, 1, 1, nan, IDGPU_POISSON_NEUMANN, IDGPU_PRECISION_DOUBLE},
      {"boundary 3", 8, 8, 8, 1, 1, 1, 3, IDGPU_PRECISION_SINGLE},
      {"boundary -1", 8, 8, 8, 1, 1, 1, -1, IDGPU_PRECISION_SINGLE},
      {"precision 2", 8, 8, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, 2},
      {"precision -1", 8, 8, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, -1},
  };
  for (const Create& c : bad) {
    CAPTURE(c.what);
    idgpuPoissonPlan_t plan = sentinel;
    CHECK(idgpuPoissonCreate(&plan, c.nx, c.ny, c.nz, c.hx, c.hy, c.hz, static_cast<idgpuPoissonBoundary_t>(c.boundary),
                             static_cast<idgpuPrecision_t>(c.precision)) == IDGPU_STATUS_INVALID_VALUE);
    CHECK(plan == sentinel);
  }
  CHECK(idgpuPoissonCreate(nullptr, 8, 8, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE) ==
        IDGPU_STATUS_INVALID_VALUE);

  // The null plan everywhere.
  size_t work_bytes = 0;
  CHECK(idgpuPoissonDestroy(nullptr) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuPoissonSetStream(nullptr, nullptr) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuPoissonSetMean(nullptr, 1.0) == IDGPU_STATUS_INVALID_VALUE);
  CHECK(idgpuPoissonGetWorkSize(nullptr, &work_bytes) == IDGPU_STATUS_INVALID_VALUE);

  // Calls on valid plans with bad arguments: nothing written (u keeps its poison).
  const Grid grid = make_grid(16, 12, 10, 1.0, 1.0, 1.0, ZBoundary::kNeumann);
  const std::vector<double> f = random_field(grid.points(), 20260700);
  for (idgpuPrecision_t precision : kPrecisions) {
    CAPTURE(precision_name(precision));
    Run run(grid, precision);
    run.upload(f);
    run.poison_u();
    require_ok(run);
    CHECK(idgpuPoissonGetWorkSize(run.plan(), &work_bytes) == IDGPU_STATUS_SUCCESS);
    CHECK(work_bytes > 0);
    CHECK(idgpuPoissonGetWorkSize(run.plan(), nullptr) == IDGPU_STATUS_INVALID_VALUE);
    CHECK(idgpuPoissonSetMean(run.plan(), nan) == IDGPU_STATUS_INVALID_VALUE);
    CHECK(idgpuPoissonSetMean(run.plan(), inf) == IDGPU_STATUS_INVALID_VALUE);
    CHECK(idgpuPoissonSetMean(run.plan(), -inf) == IDGPU_STATUS_INVALID_VALUE);
    const bool single = precision == IDGPU_PRECISION_SINGLE;
    // The other precision's call.
    if (single) {
      CHECK(idgpuPoissonExecD(run.plan(), static_cast<const double*>(run.f()), static_cast<double*>(run.u())) ==
            IDGPU_STATUS_INVALID_VALUE);
    } else {
      CHECK(idgpuPoissonExecS(run.plan(), static_cast<const float*>(run.f()), static_cast<float*>(run.u())) ==
            IDGPU_STATUS_INVALID_VALUE);
    }
    // Null arrays and the null plan.
    CHECK(run.exec(nullptr, run.u()) == IDGPU_STATUS_INVALID_VALUE);
    CHECK(run.exec(run.f(), nullptr) == IDGPU_STATUS_INVALID_VALUE);
    CHECK((single ? idgpuPoissonExecS(nullptr, static_cast<const float*>(run.f()), static_cast<float*>(run.u()))
                  : idgpuPoissonExecD(nullptr, static_cast<const double*>(run.f()), static_cast<double*>(run.u()))) ==
          IDGPU_STATUS_INVALID_VALUE);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(bits_difference(run.download(), std::vector<unsigned char>(run.bytes(), 0xff), precision) == "");
    CHECK(bits_difference(run.download(true), to_bytes(f, precision), precision) == "");
    // The plan still solves, its mean still 0 (the refused SetMean calls changed nothing).
    run.solve();
    const std::vector<double> u = widen(run.download(), precision);
    require_ok(run);
    REQUIRE(all_finite(u));
    CHECK(std::fabs(weighted_mean(grid, u)) <= 2 * error_bound(grid, precision, centring_ratio(grid, f)) * norm(u) /
                                                   std::sqrt(static_cast<double>(grid.points())));
    check_residual(grid, precision, u, f, nullptr);
  }
}
