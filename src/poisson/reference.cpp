#include "poisson/reference.h"

#include <cmath>
#include <complex>
#include <stdexcept>

namespace idgpu::poisson::reference {
namespace {

using Complex = std::complex<double>;
constexpr double kPi = 3.141592653589793238462643383279502884;

void check(const Grid& grid) {
  if (grid.nx < 1 || grid.ny < 1 || grid.nz < 1 || !(grid.hx > 0) || !(grid.hy > 0) || !(grid.hz > 0)) {
    throw std::invalid_argument("poisson reference: sizes and spacings must be positive");
  }
  if (grid.z == ZBoundary::kNeumann && grid.nz < 2) {
    throw std::invalid_argument("poisson reference: Neumann in z needs two z planes or more");
  }
}

// A naive DFT (exp(sign 2 pi i j k / n), unnormalised) along `axis` (0: x, 1: y, 2: z) of every line.
void dft_axis(const Grid& grid, int axis, int sign, std::vector<Complex>* data) {
  const long long dims[3] = {grid.nx, grid.ny, grid.nz};
  const long long strides[3] = {1, grid.nx, grid.nx * grid.ny};
  const long long n = dims[axis];
  if (n == 1) return;
  const long long stride = strides[axis];
  std::vector<Complex> roots(static_cast<std::size_t>(n)), line(static_cast<std::size_t>(n));
  for (long long e = 0; e < n; ++e) roots[e] = std::polar(1.0, sign * 2.0 * kPi * static_cast<double>(e) / n);
  for (long long start = 0; start < grid.points(); ++start) {
    if ((start / stride) % n != 0) continue;  // one start per line: its first element
    for (long long k = 0; k < n; ++k) {
      Complex sum = 0;
      for (long long j = 0; j < n; ++j) sum += (*data)[start + j * stride] * roots[(j * k) % n];
      line[k] = sum;
    }
    for (long long k = 0; k < n; ++k) (*data)[start + k * stride] = line[k];
  }
}

// (2 cos(2 pi k / n) - 2) / h^2: the eigenvalue of the periodic second difference for mode k.
double eigenvalue(long long k, long long n, double h) {
  return (2.0 * std::cos(2.0 * kPi * static_cast<double>(k) / static_cast<double>(n)) - 2.0) / (h * h);
}

// Solves the tridiagonal system (lower a, diagonal b, upper c; a[0] and c[m-1] unused) for y in
// place by Thomas's algorithm (the systems here are diagonally dominant).
void thomas(std::vector<double> a, std::vector<double> b, std::vector<double> c, std::vector<Complex>* y) {
  const std::size_t m = b.size();
  for (std::size_t k = 1; k < m; ++k) {
    const double factor = a[k] / b[k - 1];
    b[k] -= factor * c[k - 1];
    (*y)[k] -= factor * (*y)[k - 1];
  }
  (*y)[m - 1] /= b[m - 1];
  for (std::size_t k = m - 1; k-- > 0;) (*y)[k] = ((*y)[k] - c[k] * (*y)[k + 1]) / b[k];
}

// The z system of one (kx, ky) with lambda_xy, solved for the column `column` (nz values).
void solve_column(const Grid& grid, double lambda_xy, std::vector<Complex>* column) {
  const long long nz = grid.nz;
  const double c = 1.0 / (grid.hz * grid.hz);
  std::vector<double> lower(static_cast<std::size_t>(nz), c), diag(static_cast<std::size_t>(nz), -2.0 * c + lambda_xy),
      upper(static_cast<std::size_t>(nz), c);
  const bool neumann = grid.z == ZBoundary::kNeumann;
  if (neumann) {
    upper[0] = 2.0 * c;
    lower[static_cast<std::size_t>(nz - 1)] = 2.0 * c;
  }
  if (!(neumann && lambda_xy == 0.0)) {
    thomas(lower, diag, upper, column);
    return;
  }
  // The singular mode: f's weighted mean removed, u_0 fixed at zero for rows 1..nz-1, then u's
  // weighted mean removed (mean_weights).
  const std::vector<double> w = [&] {
    std::vector<double> weights(static_cast<std::size_t>(nz), 1.0);
    weights.front() = weights.back() = 0.5;
    return weights;
  }();
  Complex mean_f = 0;
  double total = 0;
  for (long long k = 0; k < nz; ++k) {
    mean_f += w[k] * (*column)[k];
    total += w[k];
  }
  mean_f /= total;
  std::vector<Complex> rest(static_cast<std::size_t>(nz - 1));
  for (long long k = 1; k < nz; ++k) rest[k - 1] = (*column)[k] - mean_f;
  thomas(std::vector<double>(lower.begin() + 1, lower.end()), std::vector<double>(diag.begin() + 1, diag.end()),
         std::vector<double>(upper.begin() + 1, upper.end()), &rest);
  Complex mean_u = 0;
  for (long long k = 1; k < nz; ++k) mean_u += w[k] * rest[k - 1];
  mean_u /= total;
  (*column)[0] = -mean_u;
  for (long long k = 1; k < nz; ++k) (*column)[k] = rest[k - 1] - mean_u;
}

}  // namespace

std::vector<double> mean_weights(const Grid& grid) {
  std::vector<double> weights(static_cast<std::size_t>(grid.points()), 1.0);
  if (grid.z == ZBoundary::kNeumann) {
    const long long plane = grid.nx * grid.ny;
    for (long long s = 0; s < plane; ++s) {
      weights[s] = 0.5;
      weights[(grid.nz - 1) * plane + s] = 0.5;
    }
  }
  return weights;
}

std::vector<double> apply_laplacian(const Grid& grid, const std::vector<double>& u) {
  check(grid);
  const long long nx = grid.nx, ny = grid.ny, nz = grid.nz;
  const auto at = [&](long long x, long long y, long long z) -> double {
    x = (x + nx) % nx;
    y = (y + ny) % ny;
    switch (grid.z) {
      case ZBoundary::kPeriodic: z = (z + nz) % nz; break;
      case ZBoundary::kNeumann:
        if (z < 0) z = 1;
        if (z >= nz) z = nz - 2;
        break;
      case ZBoundary::kDirichlet:
        if (z < 0 || z >= nz) return 0.0;
        break;
    }
    return u[static_cast<std::size_t>((z * ny + y) * nx + x)];
  };
  std::vector<double> result(u.size());
  for (long long z = 0; z < nz; ++z) {
    for (long long y = 0; y < ny; ++y) {
      for (long long x = 0; x < nx; ++x) {
        const double centre = at(x, y, z);
        double sum = (at(x - 1, y, z) - 2 * centre + at(x + 1, y, z)) / (grid.hx * grid.hx);
        if (ny > 1) sum += (at(x, y - 1, z) - 2 * centre + at(x, y + 1, z)) / (grid.hy * grid.hy);
        if (nz > 1 || grid.z == ZBoundary::kDirichlet) {
          sum += (at(x, y, z - 1) - 2 * centre + at(x, y, z + 1)) / (grid.hz * grid.hz);
        }
        result[static_cast<std::size_t>((z * ny + y) * nx + x)] = sum;
      }
    }
  }
  return result;
}

std::vector<double> solve(const Grid& grid, const std::vector<double>& f) {
  check(grid);
  if (static_cast<long long>(f.size()) != grid.points()) throw std::invalid_argument("poisson reference: f's size");
  std::vector<Complex> data(f.begin(), f.end());
  const bool periodic = grid.z == ZBoundary::kPeriodic;
  const int axes = periodic ? 3 : 2;
  for (int axis = 0; axis < axes; ++axis) dft_axis(grid, axis, -1, &data);
  const long long nx = grid.nx, ny = grid.ny, nz = grid.nz, plane = nx * ny;
  for (long long ky = 0; ky < ny; ++ky) {
    for (long long kx = 0; kx < nx; ++kx) {
      // A 2D grid (ny = 1 or nz = 1) has no second difference along its missing axis.
      const double lambda_xy =
          eigenvalue(kx, nx, grid.hx) + (ny > 1 ? eigenvalue(ky, ny, grid.hy) : 0.0);
      const long long s = ky * nx + kx;
      if (periodic) {
        for (long long kz = 0; kz < nz; ++kz) {
          const double lambda = lambda_xy + (nz > 1 ? eigenvalue(kz, nz, grid.hz) : 0.0);
          Complex& value = data[static_cast<std::size_t>(kz * plane + s)];
          // The zero mode (lambda exactly 0 at k = 0 only): f's mean removed, u's mean zero.
          value = lambda == 0.0 ? Complex(0.0) : value / lambda;
        }
        continue;
      }
      std::vector<Complex> column(static_cast<std::size_t>(nz));
      for (long long k = 0; k < nz; ++k) column[k] = data[static_cast<std::size_t>(k * plane + s)];
      solve_column(grid, lambda_xy, &column);
      for (long long k = 0; k < nz; ++k) data[static_cast<std::size_t>(k * plane + s)] = column[k];
    }
  }
  for (int axis = 0; axis < axes; ++axis) dft_axis(grid, axis, +1, &data);
  const double scale = 1.0 / static_cast<double>(periodic ? grid.points() : plane);
  std::vector<double> u(data.size());
  for (std::size_t i = 0; i < data.size(); ++i) u[i] = data[i].real() * scale;
  return u;
}

}  // namespace idgpu::poisson::reference
