// The host reference of the FFT Poisson solvers (src/poisson/reference.h):
//  - against a dense direct solve (Gaussian elimination with partial pivoting in long double) of
//    the same finite-difference system, its matrix built column by column from apply_laplacian,
//    on small 2D and 3D grids with every z boundary; the singular problems bordered by their
//    weighted-mean condition;
//  - second-order convergence on manufactured solutions (products of sines and cosines) over
//    three grid sizes: the maximum error falls about fourfold each time h halves.
#ifndef IDGPU_TEST_EXTERNAL_CATCH_MAIN
#define CATCH_CONFIG_MAIN
#endif
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "poisson/reference.h"

namespace {

using idgpu::poisson::reference::Grid;
using idgpu::poisson::reference::ZBoundary;
namespace reference = idgpu::poisson::reference;
constexpr double kPi = 3.141592653589793238462643383279502884;

// x of A x = b (n x n, row-major) by Gaussian elimination with partial pivoting, in long double.
std::vector<double> dense_solve(std::vector<long double> a, std::vector<long double> b) {
  const std::size_t n = b.size();
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t pivot = col;
    for (std::size_t row = col + 1; row < n; ++row) {
      if (std::fabs(a[row * n + col]) > std::fabs(a[pivot * n + col])) pivot = row;
    }
    REQUIRE(a[pivot * n + col] != 0.0L);
    if (pivot != col) {
      for (std::size_t k = 0; k < n; ++k) std::swap(a[col * n + k], a[pivot * n + k]);
      std::swap(b[col], b[pivot]);
    }
    for (std::size_t row = col + 1; row < n; ++row) {
      const long double factor = a[row * n + col] / a[col * n + col];
      if (factor == 0.0L) continue;
      for (std::size_t k = col; k < n; ++k) a[row * n + k] -= factor * a[col * n + k];
      b[row] -= factor * b[col];
    }
  }
  std::vector<double> x(n);
  for (std::size_t row = n; row-- > 0;) {
    long double sum = b[row];
    for (std::size_t k = row + 1; k < n; ++k) sum -= a[row * n + k] * static_cast<long double>(x[k]);
    x[row] = static_cast<double>(sum / a[row * n + row]);
  }
  return x;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::fmax(m, std::fabs(x));
  return m;
}

bool singular(const Grid& grid) { return grid.z != ZBoundary::kDirichlet; }

}  // namespace

TEST_CASE("poisson reference: the FFT solve against a dense direct solve", "[poisson][cpu]") {
  struct Case {
    long long nx, ny, nz;
    ZBoundary z;
  };
  const std::vector<Case> cases = {
      {6, 4, 5, ZBoundary::kPeriodic}, {8, 6, 1, ZBoundary::kPeriodic},  {5, 4, 6, ZBoundary::kNeumann},
      {8, 1, 6, ZBoundary::kNeumann},  {4, 6, 5, ZBoundary::kDirichlet}, {7, 3, 2, ZBoundary::kNeumann},
      {3, 5, 1, ZBoundary::kDirichlet}};
  std::mt19937_64 engine(20261127);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (const Case& c : cases) {
    Grid grid;
    grid.nx = c.nx;
    grid.ny = c.ny;
    grid.nz = c.nz;
    grid.hx = 0.3;
    grid.hy = 0.5;
    grid.hz = 0.2;
    grid.z = c.z;
    CAPTURE(c.nx, c.ny, c.nz, static_cast<int>(c.z));
    const std::size_t n = static_cast<std::size_t>(grid.points());
    std::vector<double> f(n);
    for (double& v : f) v = uniform(engine);
    const std::vector<double> w = reference::mean_weights(grid);
    if (singular(grid)) {
      // Solvable only with f's weighted mean removed (the left null vector's weights).
      double wf = 0, ww = 0;
      for (std::size_t i = 0; i < n; ++i) {
        wf += w[i] * f[i];
        ww += w[i];
      }
      for (double& v : f) v -= wf / ww;
    }
    // The matrix, one column per unit vector; bordered where singular: A u + mu 1 = f, w.u = 0.
    const std::size_t m = singular(grid) ? n + 1 : n;
    std::vector<long double> a(m * m, 0.0L);
    std::vector<long double> b(m, 0.0L);
    for (std::size_t j = 0; j < n; ++j) {
      std::vector<double> unit(n, 0.0);
      unit[j] = 1.0;
      const std::vector<double> column = reference::apply_laplacian(grid, unit);
      for (std::size_t i = 0; i < n; ++i) a[i * m + j] = column[i];
    }
    for (std::size_t i = 0; i < n; ++i) b[i] = f[i];
    if (singular(grid)) {
      for (std::size_t i = 0; i < n; ++i) {
        a[i * m + n] = 1.0L;
        a[n * m + i] = w[i];
      }
    }
    std::vector<double> dense = dense_solve(a, b);
    dense.resize(n);
    const std::vector<double> u = reference::solve(grid, f);
    REQUIRE(u.size() == n);
    std::vector<double> difference(n);
    for (std::size_t i = 0; i < n; ++i) difference[i] = u[i] - dense[i];
    CHECK(max_abs(difference) <= 1e-11 * max_abs(dense));
    // The residual of the FFT solve itself, and its weighted mean.
    const std::vector<double> lap = reference::apply_laplacian(grid, u);
    std::vector<double> residual(n);
    for (std::size_t i = 0; i < n; ++i) residual[i] = lap[i] - f[i];
    CHECK(max_abs(residual) <= 1e-11 * max_abs(f) * (1.0 / (0.2 * 0.2)));
    if (singular(grid)) {
      double wu = 0;
      for (std::size_t i = 0; i < n; ++i) wu += w[i] * u[i];
      CHECK(std::fabs(wu) <= 1e-12 * max_abs(u) * static_cast<double>(n));
    }
  }
}

TEST_CASE("poisson reference: second-order convergence on manufactured solutions", "[poisson][cpu]") {
  // u and Lap u on the unit domain: periodic in x and y ([0, 1)); in z periodic ([0, 1)),
  // Neumann (z_k = k / (nz - 1) on [0, 1], du/dz = 0 at both ends) or Dirichlet (interior
  // z_k = (k + 1) / (nz + 1), u = 0 at 0 and 1). Every u has zero weighted mean where the problem
  // is singular (a sine or cosine of a full period in x).
  for (ZBoundary boundary : {ZBoundary::kPeriodic, ZBoundary::kNeumann, ZBoundary::kDirichlet}) {
    CAPTURE(static_cast<int>(boundary));
    std::vector<double> errors;
    for (long long n : {8LL, 16LL, 32LL}) {
      Grid grid;
      grid.nx = n;
      grid.ny = n / 2;
      grid.z = boundary;
      grid.nz = boundary == ZBoundary::kPeriodic ? n : boundary == ZBoundary::kNeumann ? n + 1 : n - 1;
      grid.hx = 1.0 / static_cast<double>(grid.nx);
      grid.hy = 1.0 / static_cast<double>(grid.ny);
      grid.hz = 1.0 / static_cast<double>(n);
      const auto z_of = [&](long long k) {
        return boundary == ZBoundary::kDirichlet ? static_cast<double>(k + 1) * grid.hz : static_cast<double>(k) * grid.hz;
      };
      // u = sin(2 pi x) cos(2 pi y) g(z): g = sin(4 pi z), cos(pi z), sin(pi z).
      const double kz = boundary == ZBoundary::kPeriodic ? 4.0 * kPi : kPi;
      const double lap_factor = -(4.0 * kPi * kPi + 4.0 * kPi * kPi + kz * kz);
      std::vector<double> u(static_cast<std::size_t>(grid.points())), f(u.size());
      for (long long z = 0; z < grid.nz; ++z) {
        const double g = boundary == ZBoundary::kNeumann ? std::cos(kz * z_of(z)) : std::sin(kz * z_of(z));
        for (long long y = 0; y < grid.ny; ++y) {
          for (long long x = 0; x < grid.nx; ++x) {
            const std::size_t i = static_cast<std::size_t>((z * grid.ny + y) * grid.nx + x);
            u[i] = std::sin(2.0 * kPi * static_cast<double>(x) * grid.hx) *
                   std::cos(2.0 * kPi * static_cast<double>(y) * grid.hy) * g;
            f[i] = lap_factor * u[i];
          }
        }
      }
      const std::vector<double> solved = reference::solve(grid, f);
      std::vector<double> error(u.size());
      for (std::size_t i = 0; i < u.size(); ++i) error[i] = solved[i] - u[i];
      errors.push_back(max_abs(error));
      CAPTURE(n, errors.back());
    }
    INFO("errors " << errors[0] << " " << errors[1] << " " << errors[2]);
    for (std::size_t i = 1; i < errors.size(); ++i) {
      const double ratio = errors[i - 1] / errors[i];
      CHECK(ratio > 3.5);
      CHECK(ratio < 4.6);
    }
  }
}

TEST_CASE("poisson reference: bad grids are refused", "[poisson][cpu]") {
  Grid grid;
  grid.nx = 4;
  grid.ny = 4;
  grid.nz = 1;
  grid.z = ZBoundary::kNeumann;  // Neumann needs two z planes
  CHECK_THROWS_AS(reference::solve(grid, std::vector<double>(16, 0.0)), std::invalid_argument);
  grid.z = ZBoundary::kPeriodic;
  CHECK_THROWS_AS(reference::solve(grid, std::vector<double>(15, 0.0)), std::invalid_argument);
  grid.hx = 0;
  CHECK_THROWS_AS(reference::solve(grid, std::vector<double>(16, 0.0)), std::invalid_argument);
}
