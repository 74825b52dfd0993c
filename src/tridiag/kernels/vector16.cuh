// 16-byte vector moves of a thread's consecutive elements, shared by the tridiagonal kernels whose
// threads own contiguous rows (the strided layout, the columns of gtsv2 / gtsv2_nopivot).
#pragma once

#include <cuComplex.h>

namespace idgpu::tridiag::kernels {

// 16-byte vector moves of a chunk's consecutive elements (the strided layout, where one thread's
// rows are contiguous): L / (16 / sizeof(T)) loads per array instead of L.
template <class T>
struct Vector16;
template <>
struct Vector16<float> {
  static constexpr int kCount = 4;
  __device__ __forceinline__ static void load(const float* p, float* out) {
    const float4 v = *reinterpret_cast<const float4*>(p);
    out[0] = v.x;
    out[1] = v.y;
    out[2] = v.z;
    out[3] = v.w;
  }
  __device__ __forceinline__ static void store(float* p, const float* in) {
    *reinterpret_cast<float4*>(p) = make_float4(in[0], in[1], in[2], in[3]);
  }
};
template <>
struct Vector16<double> {
  static constexpr int kCount = 2;
  __device__ __forceinline__ static void load(const double* p, double* out) {
    const double2 v = *reinterpret_cast<const double2*>(p);
    out[0] = v.x;
    out[1] = v.y;
  }
  __device__ __forceinline__ static void store(double* p, const double* in) {
    *reinterpret_cast<double2*>(p) = make_double2(in[0], in[1]);
  }
};
template <>
struct Vector16<cuComplex> {
  static constexpr int kCount = 2;
  __device__ __forceinline__ static void load(const cuComplex* p, cuComplex* out) {
    const float4 v = *reinterpret_cast<const float4*>(p);
    out[0] = make_cuComplex(v.x, v.y);
    out[1] = make_cuComplex(v.z, v.w);
  }
  __device__ __forceinline__ static void store(cuComplex* p, const cuComplex* in) {
    *reinterpret_cast<float4*>(p) = make_float4(in[0].x, in[0].y, in[1].x, in[1].y);
  }
};
template <>
struct Vector16<cuDoubleComplex> {
  static constexpr int kCount = 1;
  __device__ __forceinline__ static void load(const cuDoubleComplex* p, cuDoubleComplex* out) { out[0] = *p; }
  __device__ __forceinline__ static void store(cuDoubleComplex* p, const cuDoubleComplex* in) { *p = in[0]; }
};

template <class T, int L>
__device__ __forceinline__ void load_vectors(const T* p, T (&out)[L]) {
#pragma unroll
  for (int j = 0; j < L; j += Vector16<T>::kCount) Vector16<T>::load(p + j, out + j);
}

template <class T, int L>
__device__ __forceinline__ void store_vectors(T* p, const T (&in)[L]) {
#pragma unroll
  for (int j = 0; j < L; j += Vector16<T>::kCount) Vector16<T>::store(p + j, in + j);
}

}  // namespace idgpu::tridiag::kernels
