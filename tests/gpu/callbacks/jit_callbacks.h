/* The load and store callbacks of the JIT (LTO) callback test, shared by the device code
 * (jit_callbacks.cu, compiled to LTO-IR for cufftXtSetJITCallback) and the host client, which
 * applies the same functions to the input and to a plain transform's output to get the result a
 * callback plan must give.
 *
 *   load:  x[offset] * load_scale * (1 + (offset mod 7) / 8)
 *   store: y * store_scale + shift * (offset mod 5) * (1, -1)
 *
 * The constants are small binary fractions and store_scale a power of two, so every product in
 * the factors and in y * store_scale is exact: host and device compute the same bits whether or
 * not the compiler fuses the store's multiply and add. Only the FFT in between rounds (and may
 * round differently once the callbacks are inlined into the vendor's kernels).
 *
 * Written in the common subset of C11, C++17 and CUDA.
 */
#ifndef IDGPU_TESTS_JIT_CALLBACKS_H
#define IDGPU_TESTS_JIT_CALLBACKS_H

#include <cufft.h>

#ifdef __CUDACC__
#define IDGPU_JIT_FN static __host__ __device__ __forceinline__
#else
#define IDGPU_JIT_FN static inline
#endif

/* What caller_info points to (device memory, one per plan and precision). */
typedef struct IdgpuJitCallbackInfo {
  float load_scale_f;
  float store_scale_f;
  float store_shift_f;
  float unused_f;
  double load_scale_d;
  double store_scale_d;
  double store_shift_d;
} IdgpuJitCallbackInfo;

/* The values the client stores there. */
#define IDGPU_JIT_LOAD_SCALE 0.75
#define IDGPU_JIT_STORE_SCALE 0.5
#define IDGPU_JIT_STORE_SHIFT 0.25

/* The symbols cufftXtSetJITCallback is given (one fatbin each, see CMakeLists.txt). */
#define IDGPU_JIT_LOAD_C_SYMBOL "idgpu_jit_load_c"
#define IDGPU_JIT_STORE_C_SYMBOL "idgpu_jit_store_c"
#define IDGPU_JIT_LOAD_Z_SYMBOL "idgpu_jit_load_z"
#define IDGPU_JIT_STORE_Z_SYMBOL "idgpu_jit_store_z"

IDGPU_JIT_FN cufftComplex idgpu_jit_load_value_c(cufftComplex x, unsigned long long offset,
                                                 const IdgpuJitCallbackInfo *info) {
  const float factor = info->load_scale_f * (1.0f + 0.125f * (float)(offset % 7ULL));
  cufftComplex y;
  y.x = x.x * factor;
  y.y = x.y * factor;
  return y;
}

IDGPU_JIT_FN cufftComplex idgpu_jit_store_value_c(cufftComplex y, unsigned long long offset,
                                                  const IdgpuJitCallbackInfo *info) {
  const float shift = info->store_shift_f * (float)(offset % 5ULL);
  cufftComplex z;
  z.x = y.x * info->store_scale_f + shift;
  z.y = y.y * info->store_scale_f - shift;
  return z;
}

IDGPU_JIT_FN cufftDoubleComplex idgpu_jit_load_value_z(cufftDoubleComplex x, unsigned long long offset,
                                                       const IdgpuJitCallbackInfo *info) {
  const double factor = info->load_scale_d * (1.0 + 0.125 * (double)(offset % 7ULL));
  cufftDoubleComplex y;
  y.x = x.x * factor;
  y.y = x.y * factor;
  return y;
}

IDGPU_JIT_FN cufftDoubleComplex idgpu_jit_store_value_z(cufftDoubleComplex y, unsigned long long offset,
                                                        const IdgpuJitCallbackInfo *info) {
  const double shift = info->store_shift_d * (double)(offset % 5ULL);
  cufftDoubleComplex z;
  z.x = y.x * info->store_scale_d + shift;
  z.y = y.y * info->store_scale_d - shift;
  return z;
}

#undef IDGPU_JIT_FN

#endif /* IDGPU_TESTS_JIT_CALLBACKS_H */
