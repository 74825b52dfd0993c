/* idgpu's FFT Poisson solver (idgpuPoisson*, include/idgpu/idgpu.h) from C: the second-order
 * finite-difference Poisson equation Lap_h u = f on a 128^3 periodic grid of the unit cube, in
 * float32, in device memory. Linked against libidgpu; run it after the build:
 *
 *   build/examples/poisson
 *
 * f is the Laplacian of u = sin(2 pi x) cos(4 pi y) sin(2 pi z). That u is an eigenvector of the
 * discrete Laplacian too, so the discrete solution is u times lambda / lambda_h (lambda = -24 pi^2
 * the continuous eigenvalue, lambda_h the discrete one) and its maximum error against u is
 * |lambda / lambda_h - 1|, about (pi h)^2 (the discretisation's, second order): the program
 * prints that prediction, the error found and the time of one solve (CUDA events, the mean of 20
 * after a warm-up). Exits 0 when the error is the predicted one within float32 rounding, 1 when
 * not, 77 without a CUDA device. */
#include <cuda_runtime.h>
#include <idgpu/idgpu.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call, ok)                                                  \
  do {                                                                   \
    if (!(call ok)) {                                                    \
      fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #call); \
      return 1;                                                          \
    }                                                                    \
  } while (0)

static const double kPi = 3.141592653589793238462643383279502884;

int main(void) {
  const int n = 128, timed_solves = 20;
  const size_t count = (size_t)n * n * n;
  const double h = 1.0 / n;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("no CUDA device: skipped\n");
    return 77;
  }

  /* u and f = Lap u on the grid x_i = i h (element (x, y, z) at (z * n + y) * n + x). */
  float *f = malloc(count * sizeof(float)), *u = malloc(count * sizeof(float));
  double *sx = malloc(n * sizeof(double)), *cy = malloc(n * sizeof(double)), *sz = malloc(n * sizeof(double));
  if (f == NULL || u == NULL || sx == NULL || cy == NULL || sz == NULL) return 1;
  const double lambda = -(4.0 + 16.0 + 4.0) * kPi * kPi;
  for (int i = 0; i < n; ++i) {
    sx[i] = sin(2.0 * kPi * i * h);
    cy[i] = cos(4.0 * kPi * i * h);
    sz[i] = sin(2.0 * kPi * i * h);
  }
  for (int z = 0; z < n; ++z) {
    for (int y = 0; y < n; ++y) {
      for (int x = 0; x < n; ++x) f[((size_t)z * n + y) * n + x] = (float)(lambda * sx[x] * cy[y] * sz[z]);
    }
  }

  float *f_device = NULL, *u_device = NULL;
  CHECK(cudaMalloc((void **)&f_device, count * sizeof(float)), == cudaSuccess);
  CHECK(cudaMalloc((void **)&u_device, count * sizeof(float)), == cudaSuccess);
  CHECK(cudaMemcpy(f_device, f, count * sizeof(float), cudaMemcpyHostToDevice), == cudaSuccess);

  idgpuPoissonPlan_t plan;
  CHECK(idgpuPoissonCreate(&plan, n, n, n, h, h, h, IDGPU_POISSON_PERIODIC, IDGPU_PRECISION_SINGLE),
        == IDGPU_STATUS_SUCCESS);
  size_t work_bytes = 0;
  CHECK(idgpuPoissonGetWorkSize(plan, &work_bytes), == IDGPU_STATUS_SUCCESS);

  /* The plan's stream is the legacy default stream (idgpuPoissonSetStream picks another). */
  CHECK(idgpuPoissonExecS(plan, f_device, u_device), == IDGPU_STATUS_SUCCESS);
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start), == cudaSuccess);
  CHECK(cudaEventCreate(&stop), == cudaSuccess);
  CHECK(cudaEventRecord(start, 0), == cudaSuccess);
  for (int i = 0; i < timed_solves; ++i) CHECK(idgpuPoissonExecS(plan, f_device, u_device), == IDGPU_STATUS_SUCCESS);
  CHECK(cudaEventRecord(stop, 0), == cudaSuccess);
  CHECK(cudaEventSynchronize(stop), == cudaSuccess);
  float milliseconds = 0;
  CHECK(cudaEventElapsedTime(&milliseconds, start, stop), == cudaSuccess);
  CHECK(cudaMemcpy(u, u_device, count * sizeof(float), cudaMemcpyDeviceToHost), == cudaSuccess);

  /* The discrete eigenvalue of the mode, and the error it predicts. */
  const double second = 4.0 * sin(kPi * h) * sin(kPi * h), fourth = 4.0 * sin(2.0 * kPi * h) * sin(2.0 * kPi * h);
  const double lambda_h = -(second + fourth + second) / (h * h);
  const double predicted = fabs(lambda / lambda_h - 1.0);
  double error = 0.0;
  int finite = 1;
  for (int z = 0; z < n; ++z) {
    for (int y = 0; y < n; ++y) {
      for (int x = 0; x < n; ++x) {
        const double value = u[((size_t)z * n + y) * n + x];
        if (!isfinite(value)) finite = 0;
        error = fmax(error, fabs(value - sx[x] * cy[y] * sz[z]));
      }
    }
  }
  printf("Poisson, %d^3 periodic, float32: max error against the exact solution %.3e (predicted %.3e, "
         "the discretisation's)\n",
         n, error, predicted);
  printf("one solve: %.3f ms (mean of %d); the plan holds %zu bytes of device memory\n", milliseconds / timed_solves,
         timed_solves, work_bytes);

  idgpuPoissonDestroy(plan);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaFree(f_device);
  cudaFree(u_device);
  free(f);
  free(u);
  free(sx);
  free(cy);
  free(sz);
  /* float32 rounding of a solution of magnitude 1: far below 1e-5. */
  const int ok = finite && fabs(error - predicted) <= 1e-5;
  if (!ok) fprintf(stderr, "the error is not the discretisation's: the solve is wrong\n");
  return ok ? 0 : 1;
}
