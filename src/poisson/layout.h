// The host side of the FFT Poisson solver's plan (poisson/solver.h): which problems it takes,
// how it lays a problem out (the path, the FFTs, the outer axis), the eigenvalue tables and the
// periodic kernel's block shape. Host code only, so that CPU tests check it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace idgpu::poisson {

enum class Boundary : int { kPeriodic = 0, kNeumann = 1, kDirichlet = 2 };

struct Problem {
  long long nx = 0, ny = 1, nz = 1;
  double hx = 1, hy = 1, hz = 1;
  Boundary z = Boundary::kPeriodic;
  bool fp64 = false;
};

// Why the problem cannot be solved (the C API's IDGPU_STATUS_INVALID_VALUE), empty where it can.
std::string refusal(const Problem& problem);

// How a problem is solved: the path, the inner FFTs and the outer axis (host data; CPU-tested).
enum class Path { kPeriodicColumns, kPeriodicSpectrum, kZSystems };
struct Layout {
  Path path = Path::kPeriodicSpectrum;
  std::vector<int> fft_dims;  // the real FFTs' axes, outermost first (cuFFT's n[])
  long long fft_batch = 1;    // planes of the outer axis (1 for kPeriodicSpectrum)
  long long outer = 1;        // the outer axis's length (z, or y on an x-y grid)
  long long columns = 0;      // the half spectrum's elements per outer index
  int log_outer = 0;          // kPeriodicColumns: outer = 2^log_outer
  double scale = 1;           // 1 / the points the unnormalised FFTs multiply by
};
Layout layout_of(const Problem& problem);

// (2 cos(2 pi k / n) - 2) / h^2 = -4 sin^2(pi k / n) / h^2 for k < count: the eigenvalues of
// the periodic second difference.
std::vector<double> eigenvalues(long long n, double h, long long count);

// The tables the solver uploads (in the precision), as the kernels read them:
//  - kPeriodicColumns: column_eigenvalues[c] = lambda(kx) + lambda(ky) of column c = ky half + kx
//    (lambda(kx) alone when the outer axis is y), outer_eigenvalues[k] of the outer axis;
//  - kPeriodicSpectrum: the three axes' eigenvalues (x: nx / 2 + 1 of them; an axis of one point: {0});
//  - kZSystems: the z systems (tridiag/kernels/kernels.h, ShiftedSystems): off-diagonals
//    1 / hz^2 (Neumann: 2 / hz^2 in row 0's upper and row nz-1's lower), diagonal[c] =
//    lambda(kx) + lambda(ky) - 2 / hz^2, the singular column 0 pinned with Neumann.
struct Tables {
  std::vector<double> column_eigenvalues;
  std::vector<double> outer_eigenvalues;
  std::vector<double> axis_eigenvalues[3];
  double off = 0, first_upper = 0, last_lower = 0;
  std::vector<double> diagonal;
  long long pinned = -1;
};
Tables tables_of(const Problem& problem, const Layout& layout);

// The periodic outer-axis kernel's block for 2^log_n points (poisson/kernels/kernels.h): columns
// per block, each padded as the power-of-two passes pad (fft/stockham_index.h), the stride made
// to put the lanes of a stage's shared-memory accesses (across the columns first) on distinct
// banks.
struct ColumnBlock {
  int per_block = 0;
  int stride = 0;
  int shift = 0;
  std::size_t shared_bytes = 0;
};
ColumnBlock column_block(int log_n, bool fp64);

}  // namespace idgpu::poisson
