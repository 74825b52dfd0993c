#include "poisson/layout.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "fft/planner.h"
#include "poisson/kernels/kernels.h"

namespace idgpu::poisson {
namespace {

constexpr double kPi = 3.141592653589793238462643383279502884;

bool positive_finite(double value) { return std::isfinite(value) && value > 0; }

int log2_exact(long long n) {
  int log = 0;
  while ((1LL << log) < n) ++log;
  return (1LL << log) == n ? log : -1;
}

}  // namespace

ColumnBlock column_block(int log_n, bool fp64) {
  ColumnBlock block;
  const std::size_t element = fp64 ? 16 : 8;
  const long long n = 1LL << log_n;
  block.per_block = kernels::periodic_per_block(log_n, fp64);
  block.shift = fft::smem_shift(element);
  // The stages' lanes run across the columns first, as a column pass's (lane = column + per_block
  // tid): the planner's padding for that layout puts them on distinct banks.
  block.stride = fft::pass_smem_stride(n, block.shift, element, block.per_block,
                                       kernels::periodic_column_threads(log_n), true);
  block.shared_bytes = static_cast<std::size_t>(block.per_block) * static_cast<std::size_t>(block.stride) * element;
  return block;
}

namespace {

// The largest dynamic shared memory a block may have on the planner's reference device.
constexpr std::size_t kMaxSharedBytes = 227 * 1024;

}  // namespace

std::string refusal(const Problem& p) {
  if (p.nx < 2) return "nx must be at least 2";
  if (p.ny < 1 || p.nz < 1) return "ny and nz must be at least 1";
  if (p.z != Boundary::kPeriodic && p.z != Boundary::kNeumann && p.z != Boundary::kDirichlet) {
    return "unknown z boundary";
  }
  if (p.z == Boundary::kNeumann && p.nz < 2) return "Neumann in z needs nz >= 2";
  if (p.nx > std::numeric_limits<int>::max() / p.ny || p.nx * p.ny > std::numeric_limits<int>::max() / p.nz) {
    return "nx * ny * nz must be below 2^31";
  }
  if (!positive_finite(p.hx) || !positive_finite(p.hy) || !positive_finite(p.hz)) {
    return "spacings must be positive and finite";
  }
  return {};
}

Layout layout_of(const Problem& p) {
  Layout layout;
  const long long half = p.nx / 2 + 1;
  const std::vector<int> inner =
      p.ny > 1 ? std::vector<int>{static_cast<int>(p.ny), static_cast<int>(p.nx)} : std::vector<int>{static_cast<int>(p.nx)};
  layout.columns = p.ny * half;
  layout.outer = p.nz;
  if (p.z != Boundary::kPeriodic) {
    layout.path = Path::kZSystems;
    layout.fft_dims = inner;
    layout.fft_batch = p.nz;
    layout.scale = 1.0 / static_cast<double>(p.nx * p.ny);
    return layout;
  }
  layout.scale = 1.0 / static_cast<double>(p.nx * p.ny * p.nz);
  // The outer axis: z, or y on an x-y grid.
  const long long outer = p.nz > 1 ? p.nz : p.ny;
  const int log = outer > 1 ? log2_exact(outer) : -1;
  if (log >= kernels::kPeriodicMinLog && log <= kernels::kPeriodicMaxLog &&
      column_block(log, p.fp64).shared_bytes <= kMaxSharedBytes) {
    layout.path = Path::kPeriodicColumns;
    layout.log_outer = log;
    layout.outer = outer;
    layout.fft_batch = outer;
    if (p.nz > 1) {
      layout.fft_dims = inner;
    } else {
      layout.fft_dims = {static_cast<int>(p.nx)};
      layout.columns = half;
    }
    return layout;
  }
  layout.path = Path::kPeriodicSpectrum;
  layout.fft_batch = 1;
  if (p.nz > 1) layout.fft_dims.push_back(static_cast<int>(p.nz));
  if (p.ny > 1) layout.fft_dims.push_back(static_cast<int>(p.ny));
  layout.fft_dims.push_back(static_cast<int>(p.nx));
  return layout;
}

std::vector<double> eigenvalues(long long n, double h, long long count) {
  std::vector<double> values(static_cast<std::size_t>(count));
  for (long long k = 0; k < count; ++k) {
    // k folded into [0, n / 2] first, as k and n - k have the same eigenvalue.
    const long long folded = std::min(k % n, n - k % n);
    // 2 cos(2 theta) - 2 = -4 sin^2(theta): no cancellation at small k.
    const double s = std::sin(kPi * static_cast<double>(folded) / static_cast<double>(n));
    values[static_cast<std::size_t>(k)] = -4.0 * s * s / (h * h);
  }
  return values;
}

Tables tables_of(const Problem& p, const Layout& layout) {
  Tables tables;
  const long long half = p.nx / 2 + 1;
  const std::vector<double> ex = eigenvalues(p.nx, p.hx, half);
  const std::vector<double> ey = p.ny > 1 ? eigenvalues(p.ny, p.hy, p.ny) : std::vector<double>{0.0};
  switch (layout.path) {
    case Path::kPeriodicColumns: {
      const bool outer_is_z = p.nz > 1;
      tables.column_eigenvalues.resize(static_cast<std::size_t>(layout.columns));
      for (long long c = 0; c < layout.columns; ++c) {
        tables.column_eigenvalues[static_cast<std::size_t>(c)] = outer_is_z ? ex[c % half] + ey[c / half] : ex[c];
      }
      tables.outer_eigenvalues = eigenvalues(layout.outer, outer_is_z ? p.hz : p.hy, layout.outer);
      break;
    }
    case Path::kPeriodicSpectrum:
      tables.axis_eigenvalues[0] = ex;
      tables.axis_eigenvalues[1] = ey;
      tables.axis_eigenvalues[2] = p.nz > 1 ? eigenvalues(p.nz, p.hz, p.nz) : std::vector<double>{0.0};
      break;
    case Path::kZSystems: {
      tables.off = 1.0 / (p.hz * p.hz);
      const bool neumann = p.z == Boundary::kNeumann;
      tables.first_upper = tables.last_lower = neumann ? 2.0 * tables.off : tables.off;
      tables.diagonal.resize(static_cast<std::size_t>(layout.columns));
      for (long long c = 0; c < layout.columns; ++c) {
        tables.diagonal[static_cast<std::size_t>(c)] = ex[c % half] + ey[c / half] - 2.0 * tables.off;
      }
      tables.pinned = neumann ? 0 : -1;
      break;
    }
  }
  return tables;
}

}  // namespace idgpu::poisson
