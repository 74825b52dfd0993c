// The host reference of the FFT Poisson solvers (J. Wu, "Optimization Techniques for Mapping
// Algorithms and Applications onto CUDA GPU Platforms and CPU-GPU Heterogeneous Platforms", PhD
// thesis, University of Maryland, 2014, chapter 3): the second-order finite-difference Poisson equation
// Lap_h u = f on an nx x ny x nz grid (nz = 1: 2D), in double, by the algorithms the GPU solver is
// to run, so that its kernels can be checked against it:
//
//  - periodic in every direction: the forward DFT of f, division by the eigenvalues of the
//    discrete Laplacian, lambda(k) = sum over axes of (2 cos(2 pi k_d / n_d) - 2) / h_d^2, and the
//    inverse DFT;
//  - periodic in x and y, Neumann or Dirichlet in z: the 2D DFT of every xy slice, then for every
//    (kx, ky) one tridiagonal system along z, (U_{k-1} - 2 U_k + U_{k+1}) / hz^2 + lambda_xy U_k =
//    F_k, with the boundary rows below, then the inverse 2D DFTs.
//
// Layout: u and f hold element (x, y, z) at (z ny + y) nx + x, so the xy slices are contiguous
// planes (a batch of 2D transforms) and the z systems are interleaved (element k of system s at
// k nx ny + s).
//
// Boundaries in z (vertex-centred, h = hz):
//  - kPeriodic: nz points, z_k = k h;
//  - kNeumann: nz points z_k = k h on [0, (nz - 1) h], du/dz = 0 at both ends by mirrored ghost
//    points (u_{-1} = u_1, u_{nz} = u_{nz-2}): row 0 is (2 u_1 - 2 u_0) / h^2, row nz - 1 is
//    (2 u_{nz-2} - 2 u_{nz-1}) / h^2;
//  - kDirichlet: nz interior points z_k = (k + 1) h of [0, (nz + 1) h], u = 0 at both ends.
//
// The zero mode: periodic everywhere, or periodic with Neumann in z, the operator is singular (its
// null space the constants). The solver then solves for f minus its weighted mean, whose
// weights are the left null vector of the operator (1 everywhere; with Neumann, 1/2 on the first
// and last z planes), and returns the u whose weighted mean with the same weights is zero. With
// Dirichlet in z nothing is removed.
#pragma once

#include <vector>

namespace idgpu::poisson::reference {

enum class ZBoundary { kPeriodic, kNeumann, kDirichlet };

struct Grid {
  long long nx = 1, ny = 1, nz = 1;
  double hx = 1, hy = 1, hz = 1;
  ZBoundary z = ZBoundary::kPeriodic;

  long long points() const { return nx * ny * nz; }
};

// The weights of the weighted mean that the singular problems remove from f and set to zero in
// u (see the top of this file); all ones where the problem is not singular.
std::vector<double> mean_weights(const Grid& grid);

// Lap_h u for the grid's stencil and boundaries (the operator the solvers invert).
std::vector<double> apply_laplacian(const Grid& grid, const std::vector<double>& u);

// Solves Lap_h u = f by the FFT algorithm of the grid's boundaries (see the top of this file).
// f has grid.points() values; the result too.
std::vector<double> solve(const Grid& grid, const std::vector<double>& f);

}  // namespace idgpu::poisson::reference
