"""The FFTs CuPy workloads make, for an A/B run against the vendor libraries:

    perf/idgpu-ab --runs 5 --compare cupy_fft.npy -- python3 perf/workloads/cupy_fft.py cupy_fft.npy

Through cupy.fft, which makes its cuFFT plans with cufftMakePlanMany, hands them work areas from
its own memory pool and caches them: image FFTs (fft2 and ifft2 of 16 x 1024 x 1024 complex64),
an FFT convolution (rfft2 of 64 x 512 x 512 float32, a product, irfft2), a 3D real transform
(rfftn of 128^3 float64), transforms along a non-last axis (fft along axis 0 of 4096 x 2048
complex64, rfft along axis 1 of 256 x 1000 x 64 float32: the advanced layout's strides), 1D
batches of a decimal length (1000) and of a prime (4099), and a long real inverse (irfft of
4 x (2^20 + 1) complex128). Prints each call's GPU time (median of 20 after 3 warm-up calls, CUDA
events) and writes the first 2^14 values of every result, as complex128, to the .npy file given
(the outputs idgpu-ab compares between the sides). CuPy opens the vendor libraries by SONAME, so
its idgpu side needs the launcher (idgpu-run), which idgpu-ab uses. Exits 77 without CuPy or a
CUDA device.
"""
import sys

try:
    import numpy as np
    import cupy as cp
except ImportError as error:
    print(f"skipped: {error}")
    sys.exit(77)
try:
    cp.cuda.runtime.getDeviceCount()
    cp.zeros(1).sum()
except Exception as error:  # cupy raises its own runtime errors without a device
    print(f"skipped: no CUDA device ({error})")
    sys.exit(77)
if len(sys.argv) != 2:
    print("usage: cupy_fft.py OUTPUT.npy", file=sys.stderr)
    sys.exit(2)


def gpu_ms(function, *args):
    for _ in range(3):
        result = function(*args)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(20):
        start.record()
        result = function(*args)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop))
    return result, sorted(times)[len(times) // 2]


rng = cp.random.default_rng(17)


def real(shape, dtype=cp.float32):
    return rng.standard_normal(shape, dtype=dtype)


def complex_(shape, dtype=cp.float32):
    return (real(shape, dtype) + 1j * real(shape, dtype)).astype(cp.complex64 if dtype == cp.float32 else cp.complex128)


images = complex_((16, 1024, 1024))
signal = real((64, 512, 512))
kernel = cp.fft.rfft2(real((512, 512)))
volume = real((128, 128, 128), cp.float64)
columns = complex_((4096, 2048))
middle = real((256, 1000, 64))
decimal = complex_((8192, 1000))
prime = complex_((2048, 4099))
spectrum = complex_((4, (1 << 20) + 1), cp.float64)

cases = [
    ("cupy.fft.fft2, 16 x 1024 x 1024 complex64", cp.fft.fft2, images),
    ("cupy.fft.ifft2, 16 x 1024 x 1024 complex64", cp.fft.ifft2, images),
    ("rfft2 * kernel -> irfft2, 64 x 512 x 512 float32", lambda x: cp.fft.irfft2(cp.fft.rfft2(x) * kernel, s=(512, 512)), signal),
    ("cupy.fft.rfftn, 128^3 float64", cp.fft.rfftn, volume),
    ("cupy.fft.fft axis 0, 4096 x 2048 complex64", lambda x: cp.fft.fft(x, axis=0), columns),
    ("cupy.fft.rfft axis 1, 256 x 1000 x 64 float32", lambda x: cp.fft.rfft(x, axis=1), middle),
    ("cupy.fft.fft n=1000, batch 8192 complex64", cp.fft.fft, decimal),
    ("cupy.fft.fft n=4099 (prime), batch 2048 complex64", cp.fft.fft, prime),
    ("cupy.fft.irfft n=2^21, batch 4 complex128", lambda x: cp.fft.irfft(x, n=1 << 21), spectrum),
]
kept = []
for label, function, x in cases:
    result, ms = gpu_ms(function, x)
    print(f"{label:52s} {ms:8.3f} ms")
    kept.append(cp.asnumpy(result.reshape(-1)[: 1 << 14]).astype(np.complex128))
np.save(sys.argv[1], np.concatenate(kept))
