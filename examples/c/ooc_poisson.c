/* idgpu's out-of-core Poisson solve (idgpuOocPoisson*, include/idgpu/idgpu.h) from C: the periodic
 * second-order finite-difference Poisson equation Lap_h u = f on a 256^3 float32 grid of the unit
 * cube, f and u in pinned host memory (64 MiB each), solved through a device budget of 32 MiB, so
 * that the data stream through the GPU in chunks (three round trips over the bus: slabs of xy
 * planes, pencils of z columns, slabs again). Linked against libidgpu; run it after the build:
 *
 *   build/examples/ooc_poisson
 *
 * A manufactured solution: u = sin(2 pi x) sin(4 pi y) cos(2 pi z) at x_i = i h (h = 1/256), an
 * eigenvector of the discrete Laplacian Lap_h with the eigenvalue
 *   lambda_h = -(4 sin^2(pi h) + 4 sin^2(2 pi h) + 4 sin^2(pi h)) / h^2,
 * and f = lambda_h u. So the discrete solution is u itself (its mean is zero, as the solver's
 * solution of a periodic problem is), and the error against u is the solve's rounding alone, with
 * no discretisation error in it (examples/c/poisson.c shows that one). The program prints the
 * schedule (round trips, chunks, the host copy of the half spectrum the plan holds), the time of a
 * solve after a warm-up and its rate (f in and u out over the time), and the largest error against
 * u. Exits 0 when the error is within the bound below, 1 when not, 77 without a CUDA device. */
#include <cuda_runtime.h>
#include <idgpu/idgpu.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const double kPi = 3.141592653589793238462643383279502884;

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void) {
  const long long n = 256;
  const size_t count = (size_t)(n * n * n);
  const size_t bytes = count * sizeof(float);
  const size_t budget = (size_t)32 << 20;
  const double h = 1.0 / (double)n;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("no CUDA device: skipped\n");
    return 77;
  }

  float *f = NULL, *u = NULL;
  if (cudaHostAlloc((void **)&f, bytes, cudaHostAllocDefault) != cudaSuccess ||
      cudaHostAlloc((void **)&u, bytes, cudaHostAllocDefault) != cudaSuccess) {
    fprintf(stderr, "cudaHostAlloc of 2 x %zu bytes failed\n", bytes);
    return 1;
  }
  double *sx = malloc((size_t)n * sizeof(double)), *sy = malloc((size_t)n * sizeof(double)),
         *cz = malloc((size_t)n * sizeof(double));
  if (sx == NULL || sy == NULL || cz == NULL) return 1;
  for (long long i = 0; i < n; ++i) {
    sx[i] = sin(2.0 * kPi * (double)i * h);
    sy[i] = sin(4.0 * kPi * (double)i * h);
    cz[i] = cos(2.0 * kPi * (double)i * h);
  }
  /* The mode's discrete eigenvalue, as -4 sin^2(pi k h) / h^2 per axis (k = 1, 2, 1): no
   * cancellation. Element (x, y, z) at (z n + y) n + x; u poisoned with NaN before the solve. */
  const double s1 = sin(kPi * h), s2 = sin(2.0 * kPi * h);
  const double lambda_h = -(4.0 * s1 * s1 + 4.0 * s2 * s2 + 4.0 * s1 * s1) / (h * h);
  for (long long z = 0; z < n; ++z) {
    for (long long y = 0; y < n; ++y) {
      for (long long x = 0; x < n; ++x) {
        const size_t at = (size_t)((z * n + y) * n + x);
        f[at] = (float)(lambda_h * sx[x] * sy[y] * cz[z]);
        u[at] = NAN;
      }
    }
  }

  idgpuOocPoissonPlan_t plan = NULL;
  if (idgpuOocPoissonCreate(&plan, n, n, n, h, h, h, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE, budget) !=
      IDGPU_STATUS_SUCCESS) {
    fprintf(stderr, "idgpuOocPoissonCreate failed (IDGPU_LOG=info says why)\n");
    return 1;
  }
  int round_trips = 0;
  long long chunks = 0;
  size_t host_bytes = 0;
  if (idgpuOocPoissonGetSchedule(plan, &round_trips, &chunks) != IDGPU_STATUS_SUCCESS ||
      idgpuOocPoissonGetHostBytes(plan, &host_bytes) != IDGPU_STATUS_SUCCESS) {
    fprintf(stderr, "idgpuOocPoissonGetSchedule / GetHostBytes failed\n");
    return 1;
  }
  printf("out-of-core Poisson, %lld^3 periodic, float32 (f and u %zu MiB each, pinned) with a %zu MiB device "
         "budget: %d round trips, %lld chunks; the plan holds %.1f MiB of host memory for the half spectrum\n",
         n, bytes >> 20, budget >> 20, round_trips, chunks, (double)host_bytes / 1048576.0);

  /* The first solve pays one-time costs (module loading, the FFT plans' first launches); the
   * second is timed. Both write all of u. */
  double seconds = 0.0;
  for (int solve = 0; solve < 2; ++solve) {
    const double start = now_seconds();
    if (idgpuOocPoissonExec(plan, f, u) != IDGPU_STATUS_SUCCESS) {
      fprintf(stderr, "idgpuOocPoissonExec failed\n");
      return 1;
    }
    seconds = now_seconds() - start;
  }

  double error = 0.0;
  int finite = 1;
  for (long long z = 0; z < n; ++z) {
    for (long long y = 0; y < n; ++y) {
      for (long long x = 0; x < n; ++x) {
        const double value = u[(size_t)((z * n + y) * n + x)];
        if (!isfinite(value)) finite = 0;
        error = fmax(error, fabs(value - sx[x] * sy[y] * cz[z]));
      }
    }
  }
  /* The bound, relative to max|u| = 1, for eps = 2^-24 (float32's unit roundoff) and N = n^3
   * points (log2 N = 24): eps (r + 8 log2 N), times 2.
   *  - The forward and inverse FFTs along three axes round as eps log2 N of the data's norm
   *    (8 log2 N: the constant tests/gpu/poisson_test.cpp derives for its bound and checks against
   *    a float32 model of the algorithm, which stays far below it).
   *  - The division by the eigenvalues puts that rounding, spread over every mode, onto u: the modes
   *    below ours are amplified relative to u's mode by at most r = |lambda_h| / lambda_min = 6
   *    (24 pi^2 against 4 pi^2, the mode (1, 0, 0)); the higher ones are damped. The eigenvalues
   *    are formed in double without cancellation, so they add a few eps only.
   *  - f's own rounding to float32 (eps relative) is one more eps.
   *  - The factor 2: the bound is of a norm-wise error, and this is the largest one at any point.
   * So 2 x 2^-24 x (6 + 192) = 2.4e-5. A float32 model of the solve on the host (radix-2 FFTs of
   * the whole grid with float32 twiddles, the eigenvalues summed in float32) gave 4.4e-7, 55x
   * below. A chunk missing or misplaced, or a wrong eigenvalue, gives errors of the order of 1 or
   * 1e-1 (a neighbouring mode's eigenvalue differs from ours by a sixth or more). */
  const double eps = 1.0 / 16777216.0;
  const double bound = 2.0 * eps * (6.0 + 8.0 * 24.0);
  printf("one solve: %.2f ms, %.1f GB/s (f in + u out over the time); largest error against the manufactured u "
         "%.3e (bound %.1e)\n",
         1e3 * seconds, 2.0 * (double)bytes / seconds * 1e-9, error, bound);

  idgpuOocPoissonDestroy(plan);
  cudaFreeHost(f);
  cudaFreeHost(u);
  free(sx);
  free(sy);
  free(cz);
  const int ok = finite && error <= bound;
  if (!ok) fprintf(stderr, "the error is above the rounding bound (or not finite): the solve is wrong\n");
  return ok ? 0 : 1;
}
