// Arithmetic the tridiagonal kernels need, for float, double, cuComplex and cuDoubleComplex, so
// that one kernel template serves the four precisions of the cuSPARSE API.
#pragma once

#include <cuComplex.h>

namespace idgpu::tridiag::kernels {

template <class T>
struct ScalarTraits;
template <>
struct ScalarTraits<float> {
  using Real = float;
};
template <>
struct ScalarTraits<double> {
  using Real = double;
};
template <>
struct ScalarTraits<cuComplex> {
  using Real = float;
};
template <>
struct ScalarTraits<cuDoubleComplex> {
  using Real = double;
};

__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ double add(double a, double b) { return a + b; }
__device__ __forceinline__ cuComplex add(cuComplex a, cuComplex b) { return cuCaddf(a, b); }
__device__ __forceinline__ cuDoubleComplex add(cuDoubleComplex a, cuDoubleComplex b) { return cuCadd(a, b); }

__device__ __forceinline__ float sub(float a, float b) { return a - b; }
__device__ __forceinline__ double sub(double a, double b) { return a - b; }
__device__ __forceinline__ cuComplex sub(cuComplex a, cuComplex b) { return cuCsubf(a, b); }
__device__ __forceinline__ cuDoubleComplex sub(cuDoubleComplex a, cuDoubleComplex b) { return cuCsub(a, b); }

__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
__device__ __forceinline__ cuComplex mul(cuComplex a, cuComplex b) { return cuCmulf(a, b); }
__device__ __forceinline__ cuDoubleComplex mul(cuDoubleComplex a, cuDoubleComplex b) { return cuCmul(a, b); }

// a - b*c
__device__ __forceinline__ float mul_sub(float a, float b, float c) { return a - b * c; }
__device__ __forceinline__ double mul_sub(double a, double b, double c) { return a - b * c; }
__device__ __forceinline__ cuComplex mul_sub(cuComplex a, cuComplex b, cuComplex c) { return cuCsubf(a, cuCmulf(b, c)); }
__device__ __forceinline__ cuDoubleComplex mul_sub(cuDoubleComplex a, cuDoubleComplex b, cuDoubleComplex c) {
  return cuCsub(a, cuCmul(b, c));
}

// 1/a. IEEE-rounded for real types (not the fast approximate reciprocal); for complex, the
// scaled form conj(a)/|a|^2 computed with a scaling that avoids overflow (as cuCdiv does).
__device__ __forceinline__ float reciprocal(float a) { return 1.0f / a; }
__device__ __forceinline__ double reciprocal(double a) { return 1.0 / a; }
__device__ __forceinline__ cuComplex reciprocal(cuComplex a) { return cuCdivf(make_cuComplex(1.0f, 0.0f), a); }
__device__ __forceinline__ cuDoubleComplex reciprocal(cuDoubleComplex a) {
  return cuCdiv(make_cuDoubleComplex(1.0, 0.0), a);
}

__device__ __forceinline__ float divide(float a, float b) { return a / b; }
__device__ __forceinline__ double divide(double a, double b) { return a / b; }
__device__ __forceinline__ cuComplex divide(cuComplex a, cuComplex b) { return cuCdivf(a, b); }
__device__ __forceinline__ cuDoubleComplex divide(cuDoubleComplex a, cuDoubleComplex b) { return cuCdiv(a, b); }

__device__ __forceinline__ float negate(float a) { return -a; }
__device__ __forceinline__ double negate(double a) { return -a; }
__device__ __forceinline__ cuComplex negate(cuComplex a) { return make_cuComplex(-a.x, -a.y); }
__device__ __forceinline__ cuDoubleComplex negate(cuDoubleComplex a) { return make_cuDoubleComplex(-a.x, -a.y); }

__device__ __forceinline__ float conjugate(float a) { return a; }
__device__ __forceinline__ double conjugate(double a) { return a; }
__device__ __forceinline__ cuComplex conjugate(cuComplex a) { return cuConjf(a); }
__device__ __forceinline__ cuDoubleComplex conjugate(cuDoubleComplex a) { return cuConj(a); }

// LAPACK's CABS1 (|re| + |im|) for pivot choices; |a| for reals.
__device__ __forceinline__ float abs1(float a) { return fabsf(a); }
__device__ __forceinline__ double abs1(double a) { return fabs(a); }
__device__ __forceinline__ float abs1(cuComplex a) { return fabsf(a.x) + fabsf(a.y); }
__device__ __forceinline__ double abs1(cuDoubleComplex a) { return fabs(a.x) + fabs(a.y); }

// Euclidean modulus, without overflow for large parts.
__device__ __forceinline__ float modulus(float a) { return fabsf(a); }
__device__ __forceinline__ double modulus(double a) { return fabs(a); }
__device__ __forceinline__ float modulus(cuComplex a) { return hypotf(a.x, a.y); }
__device__ __forceinline__ double modulus(cuDoubleComplex a) { return hypot(a.x, a.y); }

__device__ __forceinline__ float scale(float a, float s) { return a * s; }
__device__ __forceinline__ double scale(double a, double s) { return a * s; }
__device__ __forceinline__ cuComplex scale(cuComplex a, float s) { return make_cuComplex(a.x * s, a.y * s); }
__device__ __forceinline__ cuDoubleComplex scale(cuDoubleComplex a, double s) {
  return make_cuDoubleComplex(a.x * s, a.y * s);
}

template <class T>
__device__ __forceinline__ T zero() {
  return T{};
}
template <class T>
__device__ __forceinline__ T from_real(typename ScalarTraits<T>::Real value);
template <>
__device__ __forceinline__ float from_real<float>(float value) {
  return value;
}
template <>
__device__ __forceinline__ double from_real<double>(double value) {
  return value;
}
template <>
__device__ __forceinline__ cuComplex from_real<cuComplex>(float value) {
  return make_cuComplex(value, 0.0f);
}
template <>
__device__ __forceinline__ cuDoubleComplex from_real<cuDoubleComplex>(double value) {
  return make_cuDoubleComplex(value, 0.0);
}

}  // namespace idgpu::tridiag::kernels
