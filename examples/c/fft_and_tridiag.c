/* A C program that uses cuFFT and cuSPARSE as any application does, and knows nothing of idgpu.
 * Run it as it is (the vendor libraries serve it) or under idgpu:
 *
 *   idgpu-run --report -- build/examples/fft_and_tridiag
 *
 * It makes a batched 1D FFT of 2^16 points (a size idgpu serves natively on an H100) and a
 * batched tridiagonal solve (gtsv2StridedBatch), checks each result (the FFT's forward-inverse
 * round trip, the solve's residual) and exits 0 when both are right, 1 when not, 77 without a
 * CUDA device. */
#include <cuda_runtime.h>
#include <cufft.h>
#include <cusparse.h>

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

static float uniform(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)((*state >> 8) & 0xffffff) / (float)0x1000000 - 0.5f;
}

static int fft_round_trip(void) {
  const int n = 1 << 16, batch = 1024;
  const size_t count = (size_t)n * batch;
  cufftComplex *host = malloc(count * sizeof(cufftComplex)), *back = malloc(count * sizeof(cufftComplex));
  cufftComplex *data = NULL, *spectrum = NULL;
  unsigned state = 12345u;
  if (host == NULL || back == NULL) return 1;
  for (size_t i = 0; i < count; ++i) {
    host[i].x = uniform(&state);
    host[i].y = uniform(&state);
  }
  CHECK(cudaMalloc((void **)&data, count * sizeof(cufftComplex)), == cudaSuccess);
  CHECK(cudaMalloc((void **)&spectrum, count * sizeof(cufftComplex)), == cudaSuccess);
  CHECK(cudaMemcpy(data, host, count * sizeof(cufftComplex), cudaMemcpyHostToDevice), == cudaSuccess);
  cufftHandle plan;
  CHECK(cufftPlan1d(&plan, n, CUFFT_C2C, batch), == CUFFT_SUCCESS);
  CHECK(cufftExecC2C(plan, data, spectrum, CUFFT_FORWARD), == CUFFT_SUCCESS);
  CHECK(cufftExecC2C(plan, spectrum, data, CUFFT_INVERSE), == CUFFT_SUCCESS);
  CHECK(cudaMemcpy(back, data, count * sizeof(cufftComplex), cudaMemcpyDeviceToHost), == cudaSuccess);
  double error = 0.0, norm = 0.0;
  for (size_t i = 0; i < count; ++i) {
    const double dx = back[i].x / n - host[i].x, dy = back[i].y / n - host[i].y;
    error += dx * dx + dy * dy;
    norm += (double)host[i].x * host[i].x + (double)host[i].y * host[i].y;
  }
  error = sqrt(error / norm);
  printf("FFT: %d transforms of %d points, forward then inverse: relative L2 error %.2e\n", batch, n, error);
  cufftDestroy(plan);
  cudaFree(data);
  cudaFree(spectrum);
  free(host);
  free(back);
  return error < 1e-5 ? 0 : 1;
}

static int tridiagonal_solve(void) {
  const int m = 1024, batch = 4096;
  const size_t count = (size_t)m * batch;
  float *dl = malloc(count * sizeof(float)), *d = malloc(count * sizeof(float)), *du = malloc(count * sizeof(float));
  float *b = malloc(count * sizeof(float)), *x = malloc(count * sizeof(float));
  unsigned state = 777u;
  if (dl == NULL || d == NULL || du == NULL || b == NULL || x == NULL) return 1;
  for (size_t i = 0; i < count; ++i) {
    const size_t row = i % (size_t)m;
    dl[i] = row == 0 ? 0.0f : uniform(&state);
    du[i] = row == (size_t)m - 1 ? 0.0f : uniform(&state);
    d[i] = 2.0f + uniform(&state); /* diagonally dominant */
    b[i] = uniform(&state);
  }
  float *gpu[4] = {NULL, NULL, NULL, NULL};
  const float *from[4] = {dl, d, du, b};
  for (int k = 0; k < 4; ++k) {
    CHECK(cudaMalloc((void **)&gpu[k], count * sizeof(float)), == cudaSuccess);
    CHECK(cudaMemcpy(gpu[k], from[k], count * sizeof(float), cudaMemcpyHostToDevice), == cudaSuccess);
  }
  cusparseHandle_t handle;
  CHECK(cusparseCreate(&handle), == CUSPARSE_STATUS_SUCCESS);
  size_t bytes = 0;
  CHECK(cusparseSgtsv2StridedBatch_bufferSizeExt(handle, m, gpu[0], gpu[1], gpu[2], gpu[3], batch, m, &bytes),
        == CUSPARSE_STATUS_SUCCESS);
  void *buffer = NULL;
  CHECK(cudaMalloc(&buffer, bytes > 0 ? bytes : 1), == cudaSuccess);
  CHECK(cusparseSgtsv2StridedBatch(handle, m, gpu[0], gpu[1], gpu[2], gpu[3], batch, m, buffer),
        == CUSPARSE_STATUS_SUCCESS);
  CHECK(cudaMemcpy(x, gpu[3], count * sizeof(float), cudaMemcpyDeviceToHost), == cudaSuccess);
  double residual = 0.0, norm = 0.0;
  for (size_t i = 0; i < count; ++i) {
    const size_t row = i % (size_t)m;
    double r = (double)d[i] * x[i] - b[i];
    if (row > 0) r += (double)dl[i] * x[i - 1];
    if (row + 1 < (size_t)m) r += (double)du[i] * x[i + 1];
    residual += r * r;
    norm += (double)b[i] * b[i];
  }
  residual = sqrt(residual / norm);
  printf("gtsv2StridedBatch: %d systems of %d rows: relative residual %.2e\n", batch, m, residual);
  cusparseDestroy(handle);
  cudaFree(buffer);
  for (int k = 0; k < 4; ++k) cudaFree(gpu[k]);
  free(dl);
  free(d);
  free(du);
  free(b);
  free(x);
  return residual < 1e-5 ? 0 : 1;
}

int main(void) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("no CUDA device: nothing to run\n");
    return 77;
  }
  const int failed = fft_round_trip() | tridiagonal_solve();
  printf(failed ? "FAILED\n" : "ok\n");
  return failed;
}
