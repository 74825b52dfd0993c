// Native tridiagonal kernels, host-side launchers. Each enqueues on `stream` and returns the launch
// status; none synchronises. Element types are float, double, cuComplex and cuDoubleComplex.
#pragma once

#include <cuda_runtime_api.h>

namespace idgpu::tridiag::kernels {

// gtsvInterleavedBatch layout: element i of system j at i*batch + j.
//
// algo 0: Thomas, one thread per system (cuThomasBatch). The forward sweep keeps its running
// c', x' in registers and leaves c' in du and x' in x for the backward sweep, as the vendor's
// algo 0 does (it overwrites du and needs no buffer).
template <class T>
cudaError_t interleaved_thomas(int m, int batch, const T* dl, const T* d, T* du, T* x, cudaStream_t stream);

// Variable-size batch (cuThomasVBatch): the interleaved layout padded to max_m rows, system j of
// sizes[j] equations (a device array); padding rows are never read nor written, and a system
// whose size is outside [1, max_m] is left untouched.
template <class T>
cudaError_t interleaved_thomas_var(int max_m, int batch, const int* sizes, const T* dl, const T* d, T* du, T* x,
                                   cudaStream_t stream);

// gtsv2StridedBatch layout (system j at j*stride, stride >= m): Thomas with each block staging 32
// systems through shared memory (dl, d, du, x read once, x written once, du left untouched), for
// the m where the staging fits (strided_thomas_fits).
bool strided_thomas_fits(int m, int element_bytes);
template <class T>
cudaError_t strided_thomas(int m, int batch, int stride, const T* dl, const T* d, const T* du, T* x,
                           cudaStream_t stream);

// algo 1: Gaussian elimination with partial pivoting per system (LAPACK xGTSV's choice of pivot,
// CABS1 for complex). U's diagonal goes to d, its first superdiagonal to du, the fill-in second
// superdiagonal to `fill` (batch*m elements of scratch), the transformed right-hand side to x.
template <class T>
cudaError_t interleaved_lu(int m, int batch, const T* dl, T* d, T* du, T* x, T* fill, cudaStream_t stream);

// algo 2: QR by Givens rotations per system; R stored as for algo 1.
template <class T>
cudaError_t interleaved_qr(int m, int batch, const T* dl, T* d, T* du, T* x, T* fill, cudaStream_t stream);

}  // namespace idgpu::tridiag::kernels
