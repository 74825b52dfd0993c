"""torch.fft on sizes idgpu serves natively on an H100 or an H200, checked against numpy in float64.

    idgpu-run --report -- python3 examples/python/torch_fft.py

Prints each transform's time (median of 20 calls, CUDA events) and its error against numpy; exits
1 when an error is beyond float rounding, 77 without torch or a CUDA device. Run it plainly and
under idgpu-run to compare the times; the report at exit says which calls idgpu served natively.
"""
import sys

try:
    import numpy as np
    import torch
except ImportError as error:
    print(f"skipped: {error}")
    sys.exit(77)
if not torch.cuda.is_available():
    print("skipped: no CUDA device")
    sys.exit(77)


def timed(function, *args):
    for _ in range(3):
        function(*args)
    times = []
    for _ in range(20):
        start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        result = function(*args)
        stop.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(stop))
    return result, sorted(times)[len(times) // 2]


def relative_error(got, want):
    return float(np.linalg.norm(got - want) / np.linalg.norm(want))


generator = torch.Generator(device="cuda").manual_seed(7)
failed = False
cases = [
    # (label, input, transform, numpy reference of the first rows, tolerance)
    ("fft, complex64, 1024 x 2^16",
     torch.randn(1024, 1 << 16, dtype=torch.complex64, device="cuda", generator=generator),
     torch.fft.fft, lambda a: np.fft.fft(a, axis=-1), 1e-5),
    ("rfft, float64, 4096 x 8192",
     torch.randn(4096, 8192, dtype=torch.float64, device="cuda", generator=generator),
     torch.fft.rfft, lambda a: np.fft.rfft(a, axis=-1), 1e-12),
    ("fft2, complex128, 2 x 4096 x 4096",
     torch.randn(2, 4096, 4096, dtype=torch.complex128, device="cuda", generator=generator),
     torch.fft.fft2, lambda a: np.fft.fft2(a), 1e-12),
    # Lengths with a large prime factor (H200): the half of 8198 is the prime 4099; 4093 is prime.
    ("rfft, float32, 8192 x 8198",
     torch.randn(8192, 8198, dtype=torch.float32, device="cuda", generator=generator),
     torch.fft.rfft, lambda a: np.fft.rfft(a, axis=-1), 1e-5),
    ("irfft, complex128, 8192 x 2047 -> 4093",
     torch.randn(8192, 2047, dtype=torch.complex128, device="cuda", generator=generator),
     lambda a: torch.fft.irfft(a, n=4093), lambda a: np.fft.irfft(a, n=4093, axis=-1), 1e-12),
]
for label, x, transform, reference, tolerance in cases:
    result, ms = timed(transform, x)
    # The first two rows of the batch against numpy (the whole batch would take long on the host).
    head = x[:2].cpu().numpy().astype(np.complex128 if x.is_complex() else np.float64)
    error = relative_error(result[:2].cpu().numpy(), reference(head))
    ok = error < tolerance
    failed |= not ok
    print(f"{label:36s} {ms:8.3f} ms   error {error:.2e} {'ok' if ok else 'TOO LARGE'}")
sys.exit(1 if failed else 0)
