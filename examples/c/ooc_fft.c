/* idgpu's out-of-core FFT (idgpuOoc*, include/idgpu/idgpu.h) from C: a 256^3 complex float array
 * (128 MiB) in pinned host memory transformed in place with a device budget of 24 MiB, so that it
 * streams through the GPU in chunks. Linked against libidgpu; run it after the build:
 *
 *   build/examples/ooc_fft
 *
 * The input is one plane wave, exp(2 pi i (k0 a / n + k1 b / n + k2 c / n)) at element (a, b, c),
 * whose forward transform is n^3 at mode (k0, k1, k2) and zero elsewhere: the program checks that
 * (within float32 rounding), then the inverse, which gives back n^3 times the input, and prints
 * the schedule (round trips over the bus, chunks) and each transform's time and rate (2 x bytes /
 * time: one round trip of the data). Exits 0 when both transforms are right, 1 when not, 77
 * without a CUDA device. */
#include <cuComplex.h>
#include <cuda_runtime.h>
#include <idgpu/idgpu.h>

#include <math.h>
#include <stdio.h>
#include <time.h>

static const double kPi = 3.141592653589793238462643383279502884;

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(void) {
  const long long n = 256;
  const long long k0 = 3, k1 = 200, k2 = 17;
  const size_t count = (size_t)(n * n * n);
  const size_t bytes = count * sizeof(cuComplex);
  const size_t budget = (size_t)24 << 20;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    printf("no CUDA device: skipped\n");
    return 77;
  }
  cuComplex* data = NULL;
  if (cudaHostAlloc((void**)&data, bytes, cudaHostAllocDefault) != cudaSuccess) {
    fprintf(stderr, "cudaHostAlloc of %zu bytes failed\n", bytes);
    return 1;
  }
  for (long long a = 0; a < n; ++a) {
    for (long long b = 0; b < n; ++b) {
      for (long long c = 0; c < n; ++c) {
        const double phase = 2.0 * kPi * (double)((k0 * a + k1 * b + k2 * c) % n) / (double)n;
        data[(a * n + b) * n + c] = make_cuComplex((float)cos(phase), (float)sin(phase));
      }
    }
  }

  idgpuOocPlan_t plan = NULL;
  if (idgpuOocPlan3d(&plan, n, n, n, IDGPU_PRECISION_SINGLE, budget) != IDGPU_STATUS_SUCCESS) {
    fprintf(stderr, "idgpuOocPlan3d failed (IDGPU_LOG=info says why)\n");
    return 1;
  }
  int round_trips = 0;
  long long chunks = 0;
  idgpuOocGetSchedule(plan, &round_trips, &chunks);
  printf("out-of-core FFT of %lld^3 complex float (%zu MiB) with a %zu MiB device budget: %d round trips, %lld chunks\n",
         n, bytes >> 20, budget >> 20, round_trips, chunks);

  const double total = (double)count;
  int failed = 0;
  for (int pass = 0; pass < 2; ++pass) {
    const int direction = pass == 0 ? IDGPU_OOC_FORWARD : IDGPU_OOC_INVERSE;
    const double start = now_seconds();
    if (idgpuOocExec(plan, data, direction) != IDGPU_STATUS_SUCCESS) {
      fprintf(stderr, "idgpuOocExec failed\n");
      return 1;
    }
    const double seconds = now_seconds() - start;
    /* Forward: n^3 at the mode, zero elsewhere. Inverse: n^3 times the plane wave. The float32
     * error of an FFT of N points grows as eps log N relative to the data's norm: 1e-4 of the
     * peak leaves a wide margin and still catches any misplaced or missing chunk. */
    double worst = 0.0;
    for (long long a = 0; a < n; ++a) {
      for (long long b = 0; b < n; ++b) {
        for (long long c = 0; c < n; ++c) {
          const cuComplex v = data[(a * n + b) * n + c];
          double re = 0.0, im = 0.0;
          if (pass == 0) {
            re = a == k0 && b == k1 && c == k2 ? total : 0.0;
          } else {
            const double phase = 2.0 * kPi * (double)((k0 * a + k1 * b + k2 * c) % n) / (double)n;
            re = total * cos(phase);
            im = total * sin(phase);
          }
          const double error = hypot(cuCrealf(v) - re, cuCimagf(v) - im) / total;
          if (error > worst) worst = error;
        }
      }
    }
    printf("%s: %.2f ms, %.1f GB/s (2 x bytes / time); largest error %.2e of n^3\n",
           pass == 0 ? "forward" : "inverse", 1e3 * seconds, 2.0 * (double)bytes / seconds * 1e-9, worst);
    if (!(worst < 1e-4)) failed = 1;
  }
  idgpuOocDestroy(plan);
  cudaFreeHost(data);
  if (failed) fprintf(stderr, "an error above 1e-4 of n^3: wrong\n");
  return failed;
}
