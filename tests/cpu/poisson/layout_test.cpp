// The FFT Poisson solver's plan on the host (src/poisson/layout.h): which problems it refuses,
// how it lays them out, and the tables it uploads. A host executor runs the device path's steps
// in double, indexed as the kernels index them (the half spectrum [outer][columns] of the inner
// axes' real FFTs; along the outer axis the FFT, the division by column_eigenvalues[c] +
// outer_eigenvalues[k] and the inverse FFT, or the z systems of ShiftedSystems with the pinned
// column's mean handling; the inverse real FFTs), and must agree with the host reference
// (src/poisson/reference.h), itself checked against dense solves.
#ifndef IDGPU_TEST_EXTERNAL_CATCH_MAIN
#define CATCH_CONFIG_MAIN
#endif
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "poisson/kernels/kernels.h"
#include "poisson/layout.h"
#include "poisson/reference.h"

namespace {

namespace poisson = idgpu::poisson;
namespace reference = idgpu::poisson::reference;
using Complex = std::complex<double>;
constexpr double kPi = 3.141592653589793238462643383279502884;

poisson::Problem problem(long long nx, long long ny, long long nz, poisson::Boundary z, double hx = 1.0,
                         double hy = 1.0, double hz = 1.0) {
  poisson::Problem p;
  p.nx = nx;
  p.ny = ny;
  p.nz = nz;
  p.hx = hx;
  p.hy = hy;
  p.hz = hz;
  p.z = z;
  return p;
}

reference::Grid grid_of(const poisson::Problem& p) {
  reference::Grid grid;
  grid.nx = p.nx;
  grid.ny = p.ny;
  grid.nz = p.nz;
  grid.hx = p.hx;
  grid.hy = p.hy;
  grid.hz = p.hz;
  grid.z = p.z == poisson::Boundary::kPeriodic  ? reference::ZBoundary::kPeriodic
           : p.z == poisson::Boundary::kNeumann ? reference::ZBoundary::kNeumann
                                                 : reference::ZBoundary::kDirichlet;
  return grid;
}

// Unnormalised DFT of `count` points `stride` apart, sign -1 forward.
void dft(Complex* data, long long count, long long stride, int sign) {
  std::vector<Complex> out(static_cast<std::size_t>(count));
  for (long long k = 0; k < count; ++k) {
    Complex sum = 0;
    for (long long j = 0; j < count; ++j) {
      sum += data[j * stride] * std::polar(1.0, sign * 2.0 * kPi * static_cast<double>((j * k) % count) / count);
    }
    out[static_cast<std::size_t>(k)] = sum;
  }
  for (long long k = 0; k < count; ++k) data[k * stride] = out[static_cast<std::size_t>(k)];
}

// The device path on the host. The inner FFTs are the layout's fft_dims (outermost first) over
// fft_batch planes; their half spectrum is [planes][inner outer dims...][nx / 2 + 1].
std::vector<double> execute_on_host(const poisson::Problem& p, double mean, const std::vector<double>& f) {
  const poisson::Layout layout = poisson::layout_of(p);
  const poisson::Tables tables = poisson::tables_of(p, layout);
  const long long half = p.nx / 2 + 1;
  const long long rows = p.nz * p.ny;  // rows of nx reals, each a half-spectrum row of `half`
  std::vector<Complex> spectrum(static_cast<std::size_t>(rows * half));
  // R2C along x: the first `half` outputs of each row's DFT.
  for (long long r = 0; r < rows; ++r) {
    std::vector<Complex> row(f.begin() + r * p.nx, f.begin() + (r + 1) * p.nx);
    dft(row.data(), p.nx, 1, -1);
    for (long long k = 0; k < half; ++k) spectrum[static_cast<std::size_t>(r * half + k)] = row[k];
  }
  // The other FFT axes of the layout (y when ny > 1 and in fft_dims; z for kPeriodicSpectrum).
  const auto along = [&](long long n, long long stride, int sign) {
    const long long lines = rows * half / n;
    for (long long line = 0; line < rows * half; ++line) {
      if ((line / stride) % n != 0) continue;
      dft(&spectrum[static_cast<std::size_t>(line)], n, stride, sign);
    }
    (void)lines;
  };
  const std::size_t rank = layout.fft_dims.size();
  REQUIRE(layout.fft_dims.back() == p.nx);
  if (rank >= 2) along(layout.fft_dims[rank - 2], half, -1);
  if (rank == 3) along(layout.fft_dims[0], half * layout.fft_dims[1], -1);

  const long long columns = layout.columns;
  switch (layout.path) {
    case poisson::Path::kPeriodicColumns:
      REQUIRE(layout.outer * columns == rows * half);
      for (long long c = 0; c < columns; ++c) {
        Complex* column = &spectrum[static_cast<std::size_t>(c)];
        dft(column, layout.outer, columns, -1);
        for (long long k = 0; k < layout.outer; ++k) {
          const double lambda = tables.column_eigenvalues[c] + tables.outer_eigenvalues[k];
          Complex& v = column[k * columns];
          v = lambda == 0 ? Complex(mean) : v * (layout.scale / lambda);
        }
        dft(column, layout.outer, columns, +1);
      }
      break;
    case poisson::Path::kPeriodicSpectrum:
      for (long long i = 0; i < rows * half; ++i) {
        const long long kx = i % half, ky = (i / half) % p.ny, kz = i / (half * p.ny);
        const double lambda = tables.axis_eigenvalues[0][kx] + tables.axis_eigenvalues[1][ky] +
                              tables.axis_eigenvalues[2][kz];
        Complex& v = spectrum[static_cast<std::size_t>(i)];
        v = lambda == 0 ? Complex(mean) : v * (layout.scale / lambda);
      }
      break;
    case poisson::Path::kZSystems: {
      const long long m = p.nz;
      for (long long c = 0; c < columns; ++c) {
        // ShiftedSystems as the partition solver reads it, solved by Thomas's algorithm.
        std::vector<Complex> a(m), b(m), cu(m), d(m);
        Complex shift = 0;
        const bool pinned = c == tables.pinned;
        if (pinned) {
          double total = 0;
          for (long long k = 0; k < m; ++k) {
            const double w = k == 0 || k == m - 1 ? 0.5 : 1.0;
            shift += w * spectrum[static_cast<std::size_t>(k * columns + c)];
            total += w;
          }
          shift /= total;
        }
        for (long long k = 0; k < m; ++k) {
          a[k] = k == 0 ? 0.0 : k + 1 == m ? tables.last_lower : tables.off;
          cu[k] = k + 1 == m ? 0.0 : k == 0 ? tables.first_upper : tables.off;
          b[k] = tables.diagonal[c];
          d[k] = spectrum[static_cast<std::size_t>(k * columns + c)] - (pinned ? shift : Complex(0));
          if (pinned && k == 0) a[k] = cu[k] = d[k] = 0.0, b[k] = 1.0;
        }
        for (long long k = 1; k < m; ++k) {
          const Complex factor = a[k] / b[k - 1];
          b[k] -= factor * cu[k - 1];
          d[k] -= factor * d[k - 1];
        }
        d[m - 1] /= b[m - 1];
        for (long long k = m - 1; k-- > 0;) d[k] = (d[k] - cu[k] * d[k + 1]) / b[k];
        for (long long k = 0; k < m; ++k) spectrum[static_cast<std::size_t>(k * columns + c)] = d[k] * layout.scale;
        if (pinned) {  // set_column_mean: the weighted mean to `mean`
          Complex average = 0;
          for (long long k = 0; k < m; ++k) average += (k == 0 || k == m - 1 ? 0.5 : 1.0) * d[k] * layout.scale;
          average /= static_cast<double>(m - 1);
          for (long long k = 0; k < m; ++k) spectrum[static_cast<std::size_t>(k * columns + c)] += mean - average;
        }
      }
      break;
    }
  }
  if (rank == 3) along(layout.fft_dims[0], half * layout.fft_dims[1], +1);
  if (rank >= 2) along(layout.fft_dims[rank - 2], half, +1);
  // C2R along x: the Hermitian extension of each row, real parts.
  std::vector<double> u(static_cast<std::size_t>(rows * p.nx));
  for (long long r = 0; r < rows; ++r) {
    std::vector<Complex> row(static_cast<std::size_t>(p.nx));
    for (long long k = 0; k < p.nx; ++k) {
      row[k] = k < half ? spectrum[static_cast<std::size_t>(r * half + k)]
                        : std::conj(spectrum[static_cast<std::size_t>(r * half + p.nx - k)]);
    }
    // cuFFT's C2R takes the real part of the DC and Nyquist terms.
    row[0] = row[0].real();
    if (p.nx % 2 == 0) row[p.nx / 2] = row[p.nx / 2].real();
    dft(row.data(), p.nx, 1, +1);
    for (long long k = 0; k < p.nx; ++k) u[static_cast<std::size_t>(r * p.nx + k)] = row[k].real();
  }
  return u;
}

std::vector<double> random_field(long long points, unsigned seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> f(static_cast<std::size_t>(points));
  for (double& x : f) x = uniform(generator);
  return f;
}

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return std::sqrt(num / den);
}

double weighted_mean(const poisson::Problem& p, const std::vector<double>& u) {
  const std::vector<double> w = reference::mean_weights(grid_of(p));
  double sum = 0, total = 0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    sum += w[i] * u[i];
    total += w[i];
  }
  return sum / total;
}

}  // namespace

TEST_CASE("the Poisson solver refuses what it cannot solve, with a reason", "[cpu][poisson]") {
  using poisson::Boundary;
  CHECK(poisson::refusal(problem(8, 8, 8, Boundary::kPeriodic)).empty());
  CHECK(poisson::refusal(problem(2, 1, 1, Boundary::kPeriodic)).empty());
  CHECK(poisson::refusal(problem(8, 1, 2, Boundary::kNeumann)).empty());
  CHECK(poisson::refusal(problem(8, 1, 1, Boundary::kDirichlet)).empty());
  CHECK(!poisson::refusal(problem(1, 8, 8, Boundary::kPeriodic)).empty());
  CHECK(!poisson::refusal(problem(8, 0, 8, Boundary::kPeriodic)).empty());
  CHECK(!poisson::refusal(problem(8, 8, 0, Boundary::kPeriodic)).empty());
  CHECK(!poisson::refusal(problem(8, 8, 1, Boundary::kNeumann)).empty());
  CHECK(!poisson::refusal(problem(1 << 11, 1 << 10, 1 << 10, Boundary::kPeriodic)).empty());
  CHECK(!poisson::refusal(problem(8, 8, 8, static_cast<Boundary>(3))).empty());
  CHECK(!poisson::refusal(problem(8, 8, 8, Boundary::kPeriodic, 0.0)).empty());
  CHECK(!poisson::refusal(problem(8, 8, 8, Boundary::kPeriodic, 1.0, -1.0)).empty());
  CHECK(!poisson::refusal(problem(8, 8, 8, Boundary::kPeriodic, 1.0, 1.0, std::nan(""))).empty());
  CHECK(!poisson::refusal(problem(8, 8, 8, Boundary::kPeriodic, 1.0, 1.0, INFINITY)).empty());
}

TEST_CASE("the Poisson solver's layouts: the outer axis, the FFTs and the path", "[cpu][poisson]") {
  using poisson::Boundary;
  using poisson::Path;
  const poisson::Layout cube = poisson::layout_of(problem(256, 256, 256, Boundary::kPeriodic));
  CHECK(cube.path == Path::kPeriodicColumns);
  CHECK(cube.fft_dims == std::vector<int>{256, 256});
  CHECK(cube.fft_batch == 256);
  CHECK(cube.outer == 256);
  CHECK(cube.log_outer == 8);
  CHECK(cube.columns == 256 * 129);
  CHECK(cube.scale == Approx(1.0 / (256.0 * 256 * 256)));

  const poisson::Layout plane = poisson::layout_of(problem(64, 32, 1, Boundary::kPeriodic));
  CHECK(plane.path == Path::kPeriodicColumns);  // the outer axis is y
  CHECK(plane.fft_dims == std::vector<int>{64});
  CHECK(plane.fft_batch == 32);
  CHECK(plane.columns == 33);

  // No power of two along z (or one the kernels are not compiled for): the full spectrum.
  const poisson::Layout odd = poisson::layout_of(problem(24, 20, 12, Boundary::kPeriodic));
  CHECK(odd.path == Path::kPeriodicSpectrum);
  CHECK(odd.fft_dims == std::vector<int>{12, 20, 24});
  CHECK(odd.fft_batch == 1);
  CHECK(poisson::layout_of(problem(16, 16, 1 << 12, Boundary::kPeriodic)).path == Path::kPeriodicSpectrum);
  CHECK(poisson::layout_of(problem(16, 16, 2, Boundary::kPeriodic)).path == Path::kPeriodicSpectrum);
  CHECK(poisson::layout_of(problem(64, 1, 1, Boundary::kPeriodic)).fft_dims == std::vector<int>{64});

  const poisson::Layout neumann = poisson::layout_of(problem(128, 64, 100, Boundary::kNeumann));
  CHECK(neumann.path == Path::kZSystems);
  CHECK(neumann.fft_dims == std::vector<int>{64, 128});
  CHECK(neumann.fft_batch == 100);
  CHECK(neumann.columns == 64 * 65);
  CHECK(neumann.scale == Approx(1.0 / (128.0 * 64)));
  const poisson::Layout xz = poisson::layout_of(problem(32, 1, 16, Boundary::kDirichlet));
  CHECK(xz.fft_dims == std::vector<int>{32});
  CHECK(xz.columns == 17);
}

TEST_CASE("the Poisson solver's eigenvalues and z systems", "[cpu][poisson]") {
  const std::vector<double> values = poisson::eigenvalues(12, 0.5, 12);
  for (long long k = 0; k < 12; ++k) {
    CAPTURE(k);
    CHECK(values[k] == Approx((2 * std::cos(2 * kPi * k / 12.0) - 2) / 0.25).margin(1e-14));
    CHECK(values[k] == values[(12 - k) % 12]);  // exactly: the angle is folded first
  }
  CHECK(values[0] == 0.0);
  for (long long k = 1; k < 12; ++k) CHECK(values[k] < 0.0);

  const poisson::Problem p = problem(8, 4, 6, poisson::Boundary::kNeumann, 1.0, 2.0, 0.5);
  const poisson::Tables tables = poisson::tables_of(p, poisson::layout_of(p));
  CHECK(tables.off == 4.0);
  CHECK(tables.first_upper == 8.0);
  CHECK(tables.last_lower == 8.0);
  CHECK(tables.pinned == 0);
  REQUIRE(tables.diagonal.size() == 4 * 5);
  CHECK(tables.diagonal[0] == -8.0);
  // Column ky * 5 + kx.
  CHECK(tables.diagonal[2 * 5 + 1] ==
        Approx(poisson::eigenvalues(8, 1.0, 5)[1] + poisson::eigenvalues(4, 2.0, 4)[2] - 8.0));
  const poisson::Problem dirichlet = problem(8, 4, 6, poisson::Boundary::kDirichlet);
  const poisson::Tables plain = poisson::tables_of(dirichlet, poisson::layout_of(dirichlet));
  CHECK(plain.first_upper == plain.off);
  CHECK(plain.pinned == -1);
}

TEST_CASE("the periodic kernel's blocks fit the device and load rows without bank conflicts", "[cpu][poisson]") {
  for (int fp64 = 0; fp64 < 2; ++fp64) {
    for (int log = idgpu::poisson::kernels::kPeriodicMinLog; log <= idgpu::poisson::kernels::kPeriodicMaxLog; ++log) {
      CAPTURE(fp64, log);
      const poisson::ColumnBlock block = poisson::column_block(log, fp64 != 0);
      const long long n = 1LL << log;
      const int threads = idgpu::poisson::kernels::periodic_column_threads(log);
      CHECK((block.per_block & (block.per_block - 1)) == 0);  // the kernel indexes rows by shifts
      CHECK(block.per_block * threads <= 512);
      CHECK(block.per_block * threads >= 128);
      CHECK(block.stride >= n + ((n - 1) >> block.shift) + 1);  // every padded point of a column
      CHECK(block.shared_bytes <= 227u * 1024u);
      // Rows of adjacent columns: 128 bytes up to 2^9 points (fp32; 2^8 fp64), then at least a
      // 32-byte sector (512 threads a block hold fewer columns of the longer axes).
      const int row_bytes = block.per_block * (fp64 ? 16 : 8);
      CHECK(row_bytes >= (log <= (fp64 ? 8 : 9) ? 128 : 32));
      // The lanes of one shared-memory wavefront (128 bytes: W = 16 fp32 / 8 fp64 complex lanes),
      // lane = column + per_block tid, reading point tid of their column (a stage's first access):
      // distinct banks, i.e. distinct addresses modulo W.
      const int wavefront = fp64 ? 8 : 16;
      std::vector<int> seen(static_cast<std::size_t>(wavefront), 0);
      for (int lane = 0; lane < std::min(wavefront, block.per_block * threads); ++lane) {
        const int column = lane % block.per_block;
        const int point = lane / block.per_block;
        const long long address = static_cast<long long>(column) * block.stride + point + (point >> block.shift);
        ++seen[static_cast<std::size_t>(address % wavefront)];
      }
      for (int bank = 0; bank < wavefront; ++bank) CHECK(seen[static_cast<std::size_t>(bank)] <= 1);
    }
  }
}

TEST_CASE("the device path's steps, run on the host, solve as the reference does", "[cpu][poisson]") {
  using poisson::Boundary;
  struct Case {
    poisson::Problem p;
    double mean;
  };
  const Case cases[] = {
      {problem(8, 4, 16, Boundary::kPeriodic, 0.5, 0.25, 0.125), 0.0},  // kPeriodicColumns along z
      {problem(16, 8, 1, Boundary::kPeriodic, 1.0, 0.5), 0.0},          // along y
      {problem(9, 5, 6, Boundary::kPeriodic, 1.0, 0.7, 0.3), 0.0},      // kPeriodicSpectrum, odd
      {problem(12, 1, 1, Boundary::kPeriodic), 0.0},                    // 1D
      {problem(8, 6, 7, Boundary::kNeumann, 1.0, 1.0, 0.5), 0.0},
      {problem(7, 1, 9, Boundary::kNeumann, 0.3), 0.0},
      {problem(8, 6, 5, Boundary::kDirichlet, 1.0, 2.0, 0.25), 0.0},
      {problem(6, 3, 1, Boundary::kDirichlet), 0.0},
      {problem(8, 4, 16, Boundary::kPeriodic), 2.5},
      {problem(8, 6, 7, Boundary::kNeumann), -1.25},
  };
  unsigned seed = 11;
  for (const Case& c : cases) {
    const poisson::Problem& p = c.p;
    CAPTURE(p.nx, p.ny, p.nz, static_cast<int>(p.z), c.mean);
    REQUIRE(poisson::refusal(p).empty());
    const std::vector<double> f = random_field(p.nx * p.ny * p.nz, seed++);
    const std::vector<double> u = execute_on_host(p, c.mean, f);
    std::vector<double> expected = reference::solve(grid_of(p), f);
    if (p.z != Boundary::kDirichlet) {
      for (double& x : expected) x += c.mean;  // the reference's solution has weighted mean zero
      CHECK(weighted_mean(p, u) == Approx(c.mean).margin(1e-12));
    }
    CHECK(relative_difference(u, expected) < 1e-12);
  }
}
