// The out-of-core Poisson solve (idgpuOocPoisson*, include/idgpu/idgpu.h) on the GPU.
//
// Oracle: the in-core device solver (idgpuPoissonCreate / ExecS / ExecD) on the same f, itself
// checked against a float64 host reference, the residual and exact solutions by gpu.poisson
// (poisson_test.cpp). Both run the same algorithm: real-to-complex FFTs of the xy planes, the z work
// on whole columns of the half spectrum (periodic z: the z FFT, the division by the eigenvalues and
// the inverse z FFT; Neumann or Dirichlet z: one tridiagonal system a column), the inverse FFTs. The
// out-of-core solve splits it into three round trips over the bus through the plan's host copy of
// the half spectrum (slabs of xy planes, pencils of whole z columns, slabs again), so the two differ
// by rounding only (a slab's FFT plans are not the whole grid's, nor need a pencil's z work be the
// in-core kernel). Tolerance, u the unit roundoff of the precision (2^-24, 2^-53) and N the points:
// the relative L2 distance between the two solutions is at most 16 u log2 N. A white random f and
// the white rounding noise of its transforms are scaled alike by the inverse operator (poisson_test.cpp
// says more), so each FFT's rounding, of order u log2 N relative (Higham's bound for a radix FFT is
// about 6 u log2 N), reaches u unamplified; the eigenvalues are sums of non-negative per-axis terms
// and agree to a few u however they are summed. A wrong chunk, column, eigenvalue, spacing or
// boundary gives a distance of order 1.
//
// Budgets: the solve is scheduled as the complex two-phase schedule (src/ooc/schedule.h, compiled
// in; force = kTwoPhase, keep_pencils) of the half spectrum [nz][ny][nx / 2 + 1], of 8 (fp32) or 16 (fp64) bytes
// an element. The budget is device_bytes_for_slot of slabs of ceil(nz / c) planes with a work factor
// of 2 (a slot's work area holds cuFFT's work and the z solve's scratch); for each grid c is chosen
// so that schedule.h gives 4 to 16 chunks in every phase at that work factor and at least 4 at
// factor 1 (the executor schedules again with the factor its plans ask for). Those budgets are below
// twice the grid's real bytes, against the in-core solve's about three times, so the solve takes
// the three round trips: idgpuOocPoissonGetSchedule must report 3 round trips and at least 12
// chunks (4 a phase; the slab phase runs twice), idgpuOocPoissonGetHostBytes the half spectrum's
// nz ny (nx / 2 + 1) complex values. deviceBytes 0 (80% of the free memory) takes the in-core path
// for these grids: 1 round trip, 1 chunk, no host bytes.
//
// Cases: grids with nz a power of two (32, 64, 128) and not (20, 24, 48), nx even and odd,
// anisotropic spacings, every z boundary, fp32 and fp64, f and u in pageable and in pinned host
// memory, out of place (f not written, bit for bit) and in place (f == u: the bits of out of place);
// the weighted mean set by idgpuOocPoissonSetMean (weights 1, with Neumann 1/2 on the first and last
// z planes: poisson_test.cpp's definition), unused with Dirichlet z; bad arguments and device
// pointers refused, writing nothing. Inputs are random (fixed seeds, printed through CAPTURE with a
// failure; never zero), rounded to float so that both precisions solve the same f; outputs are
// poisoned (NaN bytes) before each solve. IDGPU_TEST_MAX_POINTS skips the grids above that many
// points.
//
// Bandwidth (hidden, [.][bandwidth]; printed, not asserted): 256^3 fp32 periodic in about 8 chunks
// a phase, f and u pinned: the time of idgpuOocPoissonExec (best of 3), the rate of its traffic and
// the pinned copy bandwidth both ways at once (ooc_test_support.h measure_copies).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#define IDGPU_NATIVE_TEST_MAIN
#include "native_test_support.h"
#include "ooc_test_support.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
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
using idgpu::test::kPoisonByte;
using idgpu::test::max_points;
using idgpu::test::measure_copies;

constexpr double kEps32 = 5.9604644775390625e-8;   // 2^-24
constexpr double kEps64 = 1.1102230246251565e-16;  // 2^-53
constexpr idgpuPrecision_t kPrecisions[] = {IDGPU_PRECISION_SINGLE, IDGPU_PRECISION_DOUBLE};
constexpr idgpuPoissonBoundary_t kBoundaries[] = {IDGPU_POISSON_PERIODIC, IDGPU_POISSON_NEUMANN,
                                                  IDGPU_POISSON_DIRICHLET};
// The slots' work area per slot byte assumed by the budgets (see the top of this file).
constexpr double kBudgetWorkFactor = 2.0;
constexpr double kMean = 0.25;

double unit_roundoff(idgpuPrecision_t precision) { return precision == IDGPU_PRECISION_SINGLE ? kEps32 : kEps64; }
std::size_t real_bytes(idgpuPrecision_t precision) { return precision == IDGPU_PRECISION_SINGLE ? 4 : 8; }
std::size_t complex_bytes(idgpuPrecision_t precision) { return 2 * real_bytes(precision); }
const char* precision_name(idgpuPrecision_t precision) {
  return precision == IDGPU_PRECISION_SINGLE ? "fp32" : "fp64";
}
const char* boundary_name(idgpuPoissonBoundary_t boundary) {
  switch (boundary) {
    case IDGPU_POISSON_PERIODIC: return "periodic";
    case IDGPU_POISSON_NEUMANN: return "neumann";
    case IDGPU_POISSON_DIRICHLET: break;
  }
  return "dirichlet";
}

struct Grid {
  long long nx = 2, ny = 1, nz = 2;
  double hx = 1, hy = 1, hz = 1;
  idgpuPoissonBoundary_t z = IDGPU_POISSON_PERIODIC;

  long long points() const { return nx * ny * nz; }
  long long half() const { return nx / 2 + 1; }  // of the half spectrum's x axis
  // Periodic everywhere, or Neumann in z: constants are in the operator's null space.
  bool singular() const { return z != IDGPU_POISSON_DIRICHLET; }
  std::string text() const {
    std::ostringstream out;
    out << nx << "x" << ny << "x" << nz << " " << boundary_name(z) << " h=(" << hx << "," << hy << "," << hz << ")";
    return out.str();
  }
};

// A grid's sizes and spacings, with the chunks a phase its budget asks for.
struct GridSpec {
  long long nx, ny, nz;
  double hx, hy, hz;
  long long chunks;
};

std::vector<Grid> grids_of(const GridSpec& spec) {
  std::vector<Grid> grids;
  for (idgpuPoissonBoundary_t boundary : kBoundaries) {
    grids.push_back({spec.nx, spec.ny, spec.nz, spec.hx, spec.hy, spec.hz, boundary});
  }
  return grids;
}

// The three-round-trip grids, with c for each (schedule.h's counts checked in run_chunked()).
const std::vector<GridSpec> kChunkedSpecs = {
    {32, 24, 32, 1.0, 0.7, 1.3, 8},             // nz a power of two
    {32, 16, 64, 0.5, 1.0, 0.25, 8},            // a longer z
    {64, 64, 48, 1.0, 1.0, 1.0, 12},            // nz = 48: no power of two
    {40, 30, 20, 1.0, 0.8, 0.6, 6},             // nx even
    {41, 30, 24, 0.7, 1.0, 1.2, 8},             // nx odd
    {128, 128, 128, 1.0 / 128, 1.0 / 128, 1.0 / 128, 12},
};

// ---- Host arrays -----------------------------------------------------------------------------------

// Uniform in (-1, 1), never zero, rounded to float so that both precisions solve the same f.
std::vector<double> random_field(long long count, std::uint64_t seed) {
  std::mt19937_64 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> values(static_cast<std::size_t>(count));
  for (double& x : values) {
    do {
      x = static_cast<double>(static_cast<float>(uniform(engine)));
    } while (x == 0);
  }
  return values;
}

// The values in the plan's precision, as bytes (what f and u hold).
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

bool all_finite(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

double norm(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x * x;
  return std::sqrt(sum);
}

double relative_distance(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(sum) / norm(b);
}

double rms(const std::vector<double>& v) { return norm(v) / std::sqrt(static_cast<double>(v.size())); }

// The weighted mean of poisson_test.cpp (reference::mean_weights): weights 1, and 1/2 on the first
// and last z planes with Neumann z.
double weighted_mean(const Grid& grid, const std::vector<double>& v) {
  const long long plane = grid.nx * grid.ny;
  double sum = 0, total = 0;
  for (long long i = 0; i < grid.points(); ++i) {
    const long long k = i / plane;
    const double weight = grid.z == IDGPU_POISSON_NEUMANN && (k == 0 || k == grid.nz - 1) ? 0.5 : 1.0;
    sum += weight * v[static_cast<std::size_t>(i)];
    total += weight;
  }
  return sum / total;
}

// "" when a and b hold the same bits, else how many elements differ and the first (a short text:
// Catch would print whole vectors).
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

// ---- The two solvers ---------------------------------------------------------------------------------

// An out-of-core Poisson plan, destroyed with the scope.
class OocPoissonPlan {
 public:
  OocPoissonPlan() = default;
  ~OocPoissonPlan() {
    if (plan_ != nullptr) idgpuOocPoissonDestroy(plan_);
  }
  OocPoissonPlan(const OocPoissonPlan&) = delete;
  OocPoissonPlan& operator=(const OocPoissonPlan&) = delete;
  idgpuOocPoissonPlan_t* out() { return &plan_; }
  idgpuOocPoissonPlan_t get() const { return plan_; }

 private:
  idgpuOocPoissonPlan_t plan_ = nullptr;
};

idgpuStatus_t make_plan(OocPoissonPlan* plan, const Grid& grid, idgpuPrecision_t precision, std::size_t budget) {
  return idgpuOocPoissonCreate(plan->out(), grid.nx, grid.ny, grid.nz, grid.hx, grid.hy, grid.hz, grid.z, precision,
                               budget);
}

// The in-core device solve of f (bytes in the precision) with the given mean value: u's bytes.
std::vector<unsigned char> in_core_solve(const Grid& grid, idgpuPrecision_t precision,
                                         const std::vector<unsigned char>& f, double mean) {
  struct Plan {
    idgpuPoissonPlan_t handle = nullptr;
    ~Plan() {
      if (handle != nullptr) idgpuPoissonDestroy(handle);
    }
  } plan;
  REQUIRE(idgpuPoissonCreate(&plan.handle, static_cast<int>(grid.nx), static_cast<int>(grid.ny),
                             static_cast<int>(grid.nz), grid.hx, grid.hy, grid.hz, grid.z,
                             precision) == IDGPU_STATUS_SUCCESS);
  REQUIRE(idgpuPoissonSetMean(plan.handle, mean) == IDGPU_STATUS_SUCCESS);
  const std::size_t bytes = f.size();
  DeviceBuffer device_f(bytes), device_u(bytes);
  REQUIRE(cudaMemcpy(device_f.get(), f.data(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemset(device_u.get(), kPoisonByte, bytes) == cudaSuccess);
  const idgpuStatus_t status =
      precision == IDGPU_PRECISION_SINGLE
          ? idgpuPoissonExecS(plan.handle, static_cast<const float*>(device_f.get()),
                              static_cast<float*>(device_u.get()))
          : idgpuPoissonExecD(plan.handle, static_cast<const double*>(device_f.get()),
                              static_cast<double*>(device_u.get()));
  REQUIRE(status == IDGPU_STATUS_SUCCESS);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  std::vector<unsigned char> u(bytes);
  REQUIRE(cudaMemcpy(u.data(), device_u.get(), bytes, cudaMemcpyDeviceToHost) == cudaSuccess);
  return u;
}

// idgpuOocPoissonExec of f (bytes) in host memory of the given kind: out of place into a poisoned u
// (f checked unchanged, bit for bit), or in place (f == u). u's bytes.
std::vector<unsigned char> ooc_solve(idgpuOocPoissonPlan_t plan, const std::vector<unsigned char>& f, bool pinned,
                                     bool in_place) {
  HostArray f_array(f.size(), pinned);
  f_array.fill(f);
  if (in_place) {
    REQUIRE(idgpuOocPoissonExec(plan, f_array.get(), f_array.get()) == IDGPU_STATUS_SUCCESS);
    return f_array.read_bytes();
  }
  HostArray u_array(f.size(), pinned);
  u_array.poison();
  REQUIRE(idgpuOocPoissonExec(plan, f_array.get(), u_array.get()) == IDGPU_STATUS_SUCCESS);
  CHECK(f_array.read_bytes() == f);
  return u_array.read_bytes();
}

// ---- Budgets and schedules ---------------------------------------------------------------------

// The budget of slots of ceil(nz / chunks) planes of the half spectrum, at kBudgetWorkFactor.
long long budget_for_chunks(const Grid& grid, idgpuPrecision_t precision, long long chunks) {
  const long long planes = (grid.nz + chunks - 1) / chunks;
  const long long slot_bytes = planes * grid.ny * grid.half() * static_cast<long long>(complex_bytes(precision));
  return ooc::device_bytes_for_slot(slot_bytes, ooc::kDefaultSlotCount, kBudgetWorkFactor);
}

// The schedule schedule.h gives the half spectrum within `budget` at `work_factor`.
ooc::ScheduleResult predicted_schedule(const Grid& grid, idgpuPrecision_t precision, long long budget,
                                       double work_factor) {
  ooc::Options options;
  options.device_bytes = budget;
  options.work_factor = work_factor;
  options.force = ooc::ScheduleKind::kTwoPhase;
  options.keep_pencils = true;  // as the plan asks (no difference here: no budget holds the whole grid)
  return ooc::make_schedule(
      ooc::three_d(grid.nz, grid.ny, grid.half(), static_cast<int>(complex_bytes(precision))), options);
}

long long half_spectrum_bytes(const Grid& grid, idgpuPrecision_t precision) {
  return grid.nz * grid.ny * grid.half() * static_cast<long long>(complex_bytes(precision));
}

// The budget of `chunks` chunks a phase for `grid`, after checking (REQUIRE: a fault of the test's
// choice of c, not of the library) that schedule.h gives 4 to 16 chunks in both phases at the budget's
// work factor and at least 4 at factor 1, and that the budget is far from the in-core path's.
long long chunked_budget(const Grid& grid, idgpuPrecision_t precision, long long chunks) {
  const long long budget = budget_for_chunks(grid, precision, chunks);
  CAPTURE(budget);
  REQUIRE(budget < 2 * grid.points() * static_cast<long long>(real_bytes(precision)));
  for (double work_factor : {kBudgetWorkFactor, 1.0}) {
    CAPTURE(work_factor);
    const ooc::ScheduleResult predicted = predicted_schedule(grid, precision, budget, work_factor);
    INFO(predicted.reason);
    REQUIRE(predicted.schedule);
    CAPTURE(predicted.schedule->to_string());
    REQUIRE(predicted.schedule->phases.size() == 2u);
    for (const ooc::Phase& phase : predicted.schedule->phases) {
      REQUIRE(phase.chunk_count >= 4);
      if (work_factor == kBudgetWorkFactor) REQUIRE(phase.chunk_count <= 16);
    }
  }
  return budget;
}

// The plan's schedule and host bytes: three round trips with at least 4 chunks a phase and the
// half spectrum on the host, or (chunked false) one round trip in one chunk and nothing on the host.
void check_schedule(idgpuOocPoissonPlan_t plan, const Grid& grid, idgpuPrecision_t precision, bool chunked,
                    long long budget) {
  int round_trips = 0;
  long long chunks = 0;
  std::size_t host_bytes = 1;
  REQUIRE(idgpuOocPoissonGetSchedule(plan, &round_trips, &chunks) == IDGPU_STATUS_SUCCESS);
  REQUIRE(idgpuOocPoissonGetHostBytes(plan, &host_bytes) == IDGPU_STATUS_SUCCESS);
  CAPTURE(round_trips, chunks, host_bytes);
  if (!chunked) {
    CHECK(round_trips == 1);
    CHECK(chunks == 1);
    CHECK(host_bytes == 0);
    return;
  }
  CHECK(round_trips == 3);
  CHECK(chunks >= 3 * 4);
  CHECK(host_bytes == static_cast<std::size_t>(half_spectrum_bytes(grid, precision)));
  // The slab phase runs twice. Another count is not an error: the executor schedules again with the
  // work factor its plans and z solve ask for.
  const ooc::ScheduleResult predicted = predicted_schedule(grid, precision, budget, kBudgetWorkFactor);
  if (predicted.schedule) {
    const long long expected =
        2LL * predicted.schedule->phases[0].chunk_count + predicted.schedule->phases[1].chunk_count;
    if (chunks != expected) {
      std::printf("ooc poisson %s %s: %lld chunks, %lld predicted with work factor %.0f\n", grid.text().c_str(),
                  precision_name(precision), chunks, expected, kBudgetWorkFactor);
    }
  }
}

// ---- Comparison with the in-core solve ----------------------------------------------------------------

double tolerance(const Grid& grid, idgpuPrecision_t precision) {
  return 16 * unit_roundoff(precision) * std::log2(static_cast<double>(grid.points()));
}

// The worst ratio of a distance to its tolerance, for the summary printed after a case.
struct Worst {
  double ratio = 0;
  std::string where;
  void note(double distance, double bound, const std::string& what) {
    if (distance / bound > ratio) {
      ratio = distance / bound;
      where = what;
    }
  }
};

// The out-of-core u (bytes) against the in-core one: finite, within tolerance().
void check_against_in_core(const Grid& grid, idgpuPrecision_t precision, const std::vector<unsigned char>& ours,
                           const std::vector<unsigned char>& in_core, Worst* worst, const char* what) {
  const std::vector<double> u = widen(ours, precision), reference = widen(in_core, precision);
  REQUIRE(all_finite(reference));
  REQUIRE(all_finite(u));
  const double distance = relative_distance(u, reference), bound = tolerance(grid, precision);
  CAPTURE(what, distance, bound);
  CHECK(distance <= bound);
  if (worst != nullptr) worst->note(distance, bound, grid.text() + " " + precision_name(precision) + " " + what);
}

// True (with a warning) for a grid above IDGPU_TEST_MAX_POINTS.
bool above_cap(const Grid& grid) {
  if (grid.points() <= max_points()) return false;
  WARN("skipped: more than IDGPU_TEST_MAX_POINTS points");
  return true;
}

std::uint64_t seed_of(const Grid& grid, idgpuPrecision_t precision, std::uint64_t base) {
  std::uint64_t seed = base + static_cast<std::uint64_t>(grid.z) * 7u + static_cast<std::uint64_t>(precision);
  for (long long n : {grid.nx, grid.ny, grid.nz}) seed = seed * 1000003u + static_cast<std::uint64_t>(n);
  return seed;
}

}  // namespace

// ---- Three round trips ------------------------------------------------------------------------------

TEST_CASE("out-of-core Poisson solves in three round trips against the in-core solver", "[ooc][poisson][chunked]") {
  Worst worst[2];
  for (const GridSpec& spec : kChunkedSpecs) {
    for (const Grid& grid : grids_of(spec)) {
      for (int p = 0; p < 2; ++p) {
        const idgpuPrecision_t precision = kPrecisions[p];
        const std::uint64_t seed = seed_of(grid, precision, 20260800);
        CAPTURE(grid.text(), precision_name(precision), spec.chunks, seed);
        if (above_cap(grid)) continue;
        const long long budget = chunked_budget(grid, precision, spec.chunks);
        OocPoissonPlan plan;
        REQUIRE(make_plan(&plan, grid, precision, static_cast<std::size_t>(budget)) == IDGPU_STATUS_SUCCESS);
        check_schedule(plan.get(), grid, precision, true, budget);
        const std::vector<unsigned char> f = to_bytes(random_field(grid.points(), seed), precision);
        const std::vector<unsigned char> in_core = in_core_solve(grid, precision, f, 0.0);
        check_against_in_core(grid, precision, ooc_solve(plan.get(), f, false, false), in_core, &worst[p], "pageable");
        check_against_in_core(grid, precision, ooc_solve(plan.get(), f, true, false), in_core, &worst[p], "pinned");
      }
    }
  }
  for (int p = 0; p < 2; ++p) {
    std::printf("ooc poisson, three round trips, %s: worst distance / tolerance %.3g (%s)\n",
                precision_name(kPrecisions[p]), worst[p].ratio, worst[p].where.c_str());
  }
}

// ---- The in-core path ---------------------------------------------------------------------------------

TEST_CASE("deviceBytes 0: one round trip around the in-core solve", "[ooc][poisson][default-budget]") {
  // Grids of a few MB at most: the in-core solve's memory fits 80% of any device's free memory.
  const std::vector<GridSpec> specs = {
      {32, 24, 32, 1.0, 0.7, 1.3, 0},
      {40, 30, 20, 1.0, 0.8, 0.6, 0},
      {41, 30, 24, 0.7, 1.0, 1.2, 0},
      {64, 1, 48, 1.0, 1.0, 0.5, 0},  // an x-z plane
  };
  for (const GridSpec& spec : specs) {
    for (const Grid& grid : grids_of(spec)) {
      for (idgpuPrecision_t precision : kPrecisions) {
        const std::uint64_t seed = seed_of(grid, precision, 20260900);
        CAPTURE(grid.text(), precision_name(precision), seed);
        if (above_cap(grid)) continue;
        OocPoissonPlan plan;
        REQUIRE(make_plan(&plan, grid, precision, 0) == IDGPU_STATUS_SUCCESS);
        check_schedule(plan.get(), grid, precision, false, 0);
        const std::vector<unsigned char> f = to_bytes(random_field(grid.points(), seed), precision);
        const std::vector<unsigned char> in_core = in_core_solve(grid, precision, f, 0.0);
        check_against_in_core(grid, precision, ooc_solve(plan.get(), f, false, false), in_core, nullptr, "pageable");
        check_against_in_core(grid, precision, ooc_solve(plan.get(), f, true, false), in_core, nullptr, "pinned");
      }
    }
  }
}

// ---- The zero mode ------------------------------------------------------------------------------------

TEST_CASE("the solution's weighted mean is the plan's mean value", "[ooc][poisson][mean]") {
  // Both paths: three round trips (c = 6) and the in-core one (deviceBytes 0).
  const std::vector<GridSpec> specs = {
      {40, 30, 20, 1.0, 0.8, 0.6, 6},
      {41, 30, 24, 0.7, 1.0, 1.2, 0},
  };
  for (const GridSpec& spec : specs) {
    for (const Grid& grid : grids_of(spec)) {
      for (idgpuPrecision_t precision : kPrecisions) {
        const std::uint64_t seed = seed_of(grid, precision, 20261000);
        CAPTURE(grid.text(), precision_name(precision), spec.chunks, seed);
        if (above_cap(grid)) continue;
        const bool chunked = spec.chunks > 0;
        const long long budget = chunked ? chunked_budget(grid, precision, spec.chunks) : 0;
        OocPoissonPlan plan;
        REQUIRE(make_plan(&plan, grid, precision, static_cast<std::size_t>(budget)) == IDGPU_STATUS_SUCCESS);
        check_schedule(plan.get(), grid, precision, chunked, budget);
        const std::vector<unsigned char> f = to_bytes(random_field(grid.points(), seed), precision);
        const std::vector<unsigned char> zero_bytes = ooc_solve(plan.get(), f, false, false);
        REQUIRE(idgpuOocPoissonSetMean(plan.get(), kMean) == IDGPU_STATUS_SUCCESS);
        const std::vector<unsigned char> mean_bytes = ooc_solve(plan.get(), f, false, false);
        REQUIRE(idgpuOocPoissonSetMean(plan.get(), 0.0) == IDGPU_STATUS_SUCCESS);
        const std::vector<unsigned char> back_bytes = ooc_solve(plan.get(), f, false, false);
        // Against the in-core solve with the same mean value.
        check_against_in_core(grid, precision, mean_bytes, in_core_solve(grid, precision, f, kMean), nullptr,
                              "mean 0.25");
        // The mean set back to 0 gives the first solve's bits (the same plan, input and memory kind).
        CHECK(bits_difference(back_bytes, zero_bytes, precision) == "");
        if (!grid.singular()) {
          // With Dirichlet in z nothing is removed and the mean value is unused.
          CHECK(bits_difference(mean_bytes, zero_bytes, precision) == "");
          continue;
        }
        const std::vector<double> u0 = widen(zero_bytes, precision), um = widen(mean_bytes, precision);
        REQUIRE(all_finite(u0));
        REQUIRE(all_finite(um));
        // The solver sets the mean in the spectrum; the weighted mean of a rounding error e is at most
        // 2 rms(e) (weights in [1/2, 1], at least half of them 1), and e is within the tolerance.
        const double bound = tolerance(grid, precision);
        const double mean0 = weighted_mean(grid, u0), mean_m = weighted_mean(grid, um);
        CAPTURE(mean0, mean_m, rms(u0), bound);
        CHECK(std::fabs(mean0) <= 2 * bound * rms(u0));
        CHECK(std::fabs(mean_m - kMean) <= 2 * bound * (rms(u0) + kMean));
        // The mean-0 solution plus the mean.
        std::vector<double> shifted = u0;
        for (double& x : shifted) x += kMean;
        const double difference = relative_distance(um, shifted);
        CAPTURE(difference);
        CHECK(difference <= 2 * bound);
      }
    }
  }
}

// ---- In place -----------------------------------------------------------------------------------------

TEST_CASE("in place (u = f) gives the bits of out of place", "[ooc][poisson][in-place]") {
  // Three round trips: f is read by the first phase and u written by the third, so f == u needs no
  // copy of f; the same chunks compute the same bits. And the in-core path.
  const std::vector<GridSpec> specs = {
      {32, 24, 32, 1.0, 0.7, 1.3, 8},
      {41, 30, 24, 0.7, 1.0, 1.2, 8},
      {40, 30, 20, 1.0, 0.8, 0.6, 0},
  };
  for (const GridSpec& spec : specs) {
    for (const Grid& grid : grids_of(spec)) {
      for (idgpuPrecision_t precision : kPrecisions) {
        const std::uint64_t seed = seed_of(grid, precision, 20261100);
        CAPTURE(grid.text(), precision_name(precision), spec.chunks, seed);
        if (above_cap(grid)) continue;
        const bool chunked = spec.chunks > 0;
        const long long budget = chunked ? chunked_budget(grid, precision, spec.chunks) : 0;
        OocPoissonPlan plan;
        REQUIRE(make_plan(&plan, grid, precision, static_cast<std::size_t>(budget)) == IDGPU_STATUS_SUCCESS);
        check_schedule(plan.get(), grid, precision, chunked, budget);
        const std::vector<unsigned char> f = to_bytes(random_field(grid.points(), seed), precision);
        for (bool pinned : {false, true}) {
          CAPTURE(pinned);
          const std::vector<unsigned char> expected = ooc_solve(plan.get(), f, pinned, false);
          REQUIRE(all_finite(widen(expected, precision)));
          CHECK(bits_difference(ooc_solve(plan.get(), f, pinned, true), expected, precision) == "");
        }
      }
    }
  }
}

// ---- Bad input ----------------------------------------------------------------------------------------

TEST_CASE("bad arguments give IDGPU_STATUS_INVALID_VALUE and change nothing", "[ooc][poisson][bad-input]") {
  const idgpuOocPoissonPlan_t sentinel =
      reinterpret_cast<idgpuOocPoissonPlan_t>(static_cast<std::uintptr_t>(0x5e47));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  constexpr std::size_t kBudget = 64u << 20;
  struct Create {
    const char* what;
    long long nx, ny, nz;
    double hx, hy, hz;
    int boundary, precision;
    std::size_t budget;
  };
  // Enumerations as a C caller may pass them: any int.
  const std::vector<Create> bad = {
      {"nx = 1", 1, 8, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE, kBudget},
      {"nx = 0", 0, 8, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE, kBudget},
      {"nx < 0", -8, 8, 8, 1, 1, 1, IDGPU_POISSON_NEUMANN, IDGPU_PRECISION_DOUBLE, kBudget},
      {"ny = 0", 8, 0, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE, kBudget},
      {"ny < 0", 8, -1, 8, 1, 1, 1, IDGPU_POISSON_DIRICHLET, IDGPU_PRECISION_SINGLE, kBudget},
      {"nz = 1, periodic (the in-core solver's 2D grid; not here)", 8, 8, 1, 1, 1, 1, IDGPU_POISSON_PERIODIC,
       IDGPU_PRECISION_SINGLE, kBudget},
      {"nz = 1, Dirichlet", 8, 8, 1, 1, 1, 1, IDGPU_POISSON_DIRICHLET, IDGPU_PRECISION_DOUBLE, kBudget},
      {"nz = 0", 8, 8, 0, 1, 1, 1, IDGPU_POISSON_NEUMANN, IDGPU_PRECISION_DOUBLE, kBudget},
      {"nz < 0", 8, 8, -2, 1, 1, 1, IDGPU_POISSON_DIRICHLET, IDGPU_PRECISION_DOUBLE, kBudget},
      {"points overflow", 1LL << 31, 1LL << 31, 1LL << 4, 1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE,
       kBudget},
      {"hx = 0", 8, 8, 8, 0, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE, kBudget},
      {"hx < 0", 8, 8, 8, -1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE, kBudget},
      {"hx NaN", 8, 8, 8, nan, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_DOUBLE, kBudget},
      {"hy = 0", 8, 8, 8, 1, 0, 1, IDGPU_POISSON_NEUMANN, IDGPU_PRECISION_SINGLE, kBudget},
      {"hy infinite", 8, 8, 8, 1, inf, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE, kBudget},
      {"hz < 0", 8, 8, 8, 1, 1, -0.5, IDGPU_POISSON_DIRICHLET, IDGPU_PRECISION_DOUBLE, kBudget},
      {"hz NaN", 8, 8, 8, 1, 1, nan, IDGPU_POISSON_NEUMANN, IDGPU_PRECISION_DOUBLE, kBudget},
      {"hz -infinite", 8, 8, 8, 1, 1, -inf, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE, kBudget},
      {"boundary 3", 8, 8, 8, 1, 1, 1, 3, IDGPU_PRECISION_SINGLE, kBudget},
      {"boundary -1", 8, 8, 8, 1, 1, 1, -1, IDGPU_PRECISION_SINGLE, kBudget},
      {"precision 2", 8, 8, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, 2, kBudget},
      {"precision -1", 8, 8, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, -1, kBudget},
      {"budget 1 byte", 8, 8, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE, 1},
      {"budget 1 byte, fp64 Neumann", 16, 12, 10, 1, 1, 1, IDGPU_POISSON_NEUMANN, IDGPU_PRECISION_DOUBLE, 1},
  };
  for (const Create& c : bad) {
    CAPTURE(c.what);
    idgpuOocPoissonPlan_t plan = sentinel;
    CHECK(idgpuOocPoissonCreate(&plan, c.nx, c.ny, c.nz, c.hx, c.hy, c.hz,
                                static_cast<idgpuPoissonBoundary_t>(c.boundary),
                                static_cast<idgpuPrecision_t>(c.precision), c.budget) == IDGPU_STATUS_INVALID_VALUE);
    CHECK(plan == sentinel);
  }
  CHECK(idgpuOocPoissonCreate(nullptr, 8, 8, 8, 1, 1, 1, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE, kBudget) ==
        IDGPU_STATUS_INVALID_VALUE);

  // f random, u poisoned: every refused call below must leave both as they are.
  const Grid grid{40, 30, 20, 1.0, 0.8, 0.6, IDGPU_POISSON_NEUMANN};
  const std::vector<double> f_values = random_field(grid.points(), 20261200);

  // The null plan everywhere.
  {
    const std::vector<unsigned char> f = to_bytes(f_values, IDGPU_PRECISION_SINGLE);
    std::vector<unsigned char> f_copy = f, u(f.size(), kPoisonByte);
    int round_trips = -1;
    long long chunks = -1;
    std::size_t host_bytes = 12345;
    CHECK(idgpuOocPoissonSetMean(nullptr, 1.0) == IDGPU_STATUS_INVALID_VALUE);
    CHECK(idgpuOocPoissonGetSchedule(nullptr, &round_trips, &chunks) == IDGPU_STATUS_INVALID_VALUE);
    CHECK(idgpuOocPoissonGetHostBytes(nullptr, &host_bytes) == IDGPU_STATUS_INVALID_VALUE);
    CHECK(idgpuOocPoissonExec(nullptr, f_copy.data(), u.data()) == IDGPU_STATUS_INVALID_VALUE);
    CHECK(idgpuOocPoissonDestroy(nullptr) == IDGPU_STATUS_INVALID_VALUE);
    CHECK(round_trips == -1);
    CHECK(chunks == -1);
    CHECK(host_bytes == 12345);
    CHECK(f_copy == f);
    CHECK(u == std::vector<unsigned char>(f.size(), kPoisonByte));
  }

  // Valid plans (three round trips and in-core) with bad arguments: nothing written.
  if (above_cap(grid)) return;
  for (idgpuPrecision_t precision : kPrecisions) {
    for (long long chunks_asked : {6LL, 0LL}) {
      CAPTURE(precision_name(precision), chunks_asked);
      const bool chunked = chunks_asked > 0;
      const long long budget = chunked ? chunked_budget(grid, precision, chunks_asked) : 0;
      OocPoissonPlan plan;
      REQUIRE(make_plan(&plan, grid, precision, static_cast<std::size_t>(budget)) == IDGPU_STATUS_SUCCESS);
      check_schedule(plan.get(), grid, precision, chunked, budget);
      int round_trips = -1;
      long long chunks = -1;
      CHECK(idgpuOocPoissonGetSchedule(plan.get(), nullptr, &chunks) == IDGPU_STATUS_INVALID_VALUE);
      CHECK(idgpuOocPoissonGetSchedule(plan.get(), &round_trips, nullptr) == IDGPU_STATUS_INVALID_VALUE);
      CHECK(idgpuOocPoissonGetHostBytes(plan.get(), nullptr) == IDGPU_STATUS_INVALID_VALUE);
      CHECK(round_trips == -1);
      CHECK(chunks == -1);
      CHECK(idgpuOocPoissonSetMean(plan.get(), nan) == IDGPU_STATUS_INVALID_VALUE);
      CHECK(idgpuOocPoissonSetMean(plan.get(), inf) == IDGPU_STATUS_INVALID_VALUE);
      CHECK(idgpuOocPoissonSetMean(plan.get(), -inf) == IDGPU_STATUS_INVALID_VALUE);

      const std::vector<unsigned char> f = to_bytes(f_values, precision);
      const std::vector<unsigned char> poisoned(f.size(), kPoisonByte);
      std::vector<unsigned char> f_host = f, u_host = poisoned;
      CHECK(idgpuOocPoissonExec(plan.get(), nullptr, u_host.data()) == IDGPU_STATUS_INVALID_VALUE);
      CHECK(idgpuOocPoissonExec(plan.get(), f_host.data(), nullptr) == IDGPU_STATUS_INVALID_VALUE);
      CHECK(u_host == poisoned);
      // Device memory is not host data: f or u (or both) on the device.
      DeviceBuffer f_device(f.size()), u_device(f.size());
      REQUIRE(cudaMemcpy(f_device.get(), f.data(), f.size(), cudaMemcpyHostToDevice) == cudaSuccess);
      REQUIRE(cudaMemset(u_device.get(), kPoisonByte, f.size()) == cudaSuccess);
      CHECK(idgpuOocPoissonExec(plan.get(), f_device.get(), u_host.data()) == IDGPU_STATUS_INVALID_VALUE);
      CHECK(idgpuOocPoissonExec(plan.get(), f_host.data(), u_device.get()) == IDGPU_STATUS_INVALID_VALUE);
      CHECK(idgpuOocPoissonExec(plan.get(), f_device.get(), u_device.get()) == IDGPU_STATUS_INVALID_VALUE);
      CHECK(idgpuOocPoissonExec(plan.get(), f_device.get(), f_device.get()) == IDGPU_STATUS_INVALID_VALUE);
      std::vector<unsigned char> f_after(f.size()), u_after(f.size());
      REQUIRE(cudaMemcpy(f_after.data(), f_device.get(), f.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
      REQUIRE(cudaMemcpy(u_after.data(), u_device.get(), f.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
      CHECK(bits_difference(f_after, f, precision) == "");
      CHECK(bits_difference(u_after, poisoned, precision) == "");
      CHECK(bits_difference(u_host, poisoned, precision) == "");
      CHECK(bits_difference(f_host, f, precision) == "");

      // The plan still solves, against the in-core solver, its mean still 0 (the refused SetMean
      // calls changed nothing).
      const std::vector<unsigned char> u = ooc_solve(plan.get(), f, false, false);
      check_against_in_core(grid, precision, u, in_core_solve(grid, precision, f, 0.0), nullptr, "after bad input");
      const std::vector<double> u_values = widen(u, precision);
      CHECK(std::fabs(weighted_mean(grid, u_values)) <= 2 * tolerance(grid, precision) * rms(u_values));
    }
  }
}

// ---- Bandwidth (hidden) -------------------------------------------------------------------------------

TEST_CASE("out-of-core Poisson bandwidth against the pinned copy bandwidth (printed)",
          "[.][ooc][poisson][bandwidth]") {
  const Grid grid{256, 256, 256, 1.0, 1.0, 1.0, IDGPU_POISSON_PERIODIC};
  const idgpuPrecision_t precision = IDGPU_PRECISION_SINGLE;
  if (above_cap(grid)) return;
  const CopyBandwidth copies = measure_copies(256u << 20);
  std::printf("pinned copies of 256 MiB: H2D %.2f GB/s, D2H %.2f GB/s alone; at once on two streams H2D %.2f GB/s "
              "+ D2H %.2f GB/s (one round trip's bound, 2 x bytes / time: %.2f GB/s)\n",
              copies.h2d, copies.d2h, copies.h2d_both, copies.d2h_both, copies.both());
  const long long budget = chunked_budget(grid, precision, 8);
  OocPoissonPlan plan;
  REQUIRE(make_plan(&plan, grid, precision, static_cast<std::size_t>(budget)) == IDGPU_STATUS_SUCCESS);
  int round_trips = 0;
  long long chunks = 0;
  REQUIRE(idgpuOocPoissonGetSchedule(plan.get(), &round_trips, &chunks) == IDGPU_STATUS_SUCCESS);
  CHECK(round_trips == 3);
  const std::size_t data_bytes = static_cast<std::size_t>(grid.points()) * real_bytes(precision);
  const double spectrum_bytes = static_cast<double>(half_spectrum_bytes(grid, precision));
  HostArray f(data_bytes, true), u(data_bytes, true);
  f.fill(to_bytes(random_field(grid.points(), 20261300), precision));
  u.poison();
  REQUIRE(idgpuOocPoissonExec(plan.get(), f.get(), u.get()) == IDGPU_STATUS_SUCCESS);  // warm-up
  REQUIRE(all_finite(widen(u.read_bytes(), precision)));
  double best = 1e30;
  for (int run = 0; run < 3; ++run) {
    const auto start = std::chrono::steady_clock::now();
    REQUIRE(idgpuOocPoissonExec(plan.get(), f.get(), u.get()) == IDGPU_STATUS_SUCCESS);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  // The bus carries f and the spectrum twice host to device (f + 2 S), the spectrum twice and u
  // device to host (2 S + u). The rate asked for, 2 x (f + 2 S + u) / time, is printed as such,
  // beside the bytes that actually crossed, (f + 4 S + u) / time, comparable with both().
  const double f_bytes = static_cast<double>(data_bytes), u_bytes = f_bytes;
  const double asked = 2.0 * (f_bytes + 2.0 * spectrum_bytes + u_bytes) / best * 1e-9;
  const double crossed = (f_bytes + 4.0 * spectrum_bytes + u_bytes) / best * 1e-9;
  std::printf("ooc poisson %s fp32, pinned f and u: %d round trips, %lld chunks: %.2f ms; 2 x (f + 2 S + u) / time "
              "%.2f GB/s; bytes crossed (f + 4 S + u) / time %.2f GB/s = %.0f%% of two directions at once\n",
              grid.text().c_str(), round_trips, chunks, best * 1e3, asked, crossed, 100.0 * crossed / copies.both());
}
