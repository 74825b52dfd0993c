"""Large complex FFTs as PyTorch makes them, for an A/B run against the vendor libraries:

    perf/idgpu-ab --runs 3 --compare large.npy -- python3 perf/workloads/torch_large_fft.py large.npy

torch.fft.fft of 4 x 2^24 complex64 and 2 x 2^23 complex128 (1D C2C / Z2Z, two passes over
lines), torch.fft.fft2 of 4 x 4096 x 4096 complex64, 8192 x 8192 complex64 and 2 x 4096 x 4096
complex128 (2D C2C / Z2Z), torch.fft.rfft of 4 x 2^24 float32 and 2 x 2^24 float64 and
torch.fft.irfft of the first's spectrum (1D R2C / D2Z / C2R, two passes with the real step). Prints each call's GPU time (median of 20 after 3 warm-up calls, CUDA
events) and writes the first 2^16 values of every result, as complex128, to the .npy file given
(the outputs idgpu-ab compares between the sides). Exits 77 without torch or a CUDA device.
"""
import sys

from torch_common import gpu_ms, torch_or_skip

np, torch = torch_or_skip("torch_large_fft.py")

generator = torch.Generator(device="cuda").manual_seed(7)


def random_input(shape, dtype):
    if not dtype.is_complex:
        return torch.randn(*shape, device="cuda", dtype=dtype, generator=generator)
    real = torch.float32 if dtype == torch.complex64 else torch.float64
    parts = torch.randn(*shape, 2, device="cuda", dtype=real, generator=generator)
    return torch.view_as_complex(parts)


def half_spectrum(shape, dtype):
    # The spectrum of random reals: what torch.fft.irfft is given in practice.
    return torch.fft.rfft(random_input(shape, dtype))


cases = [
    ("torch.fft.fft, 4 x 2^24 complex64", torch.fft.fft, (4, 1 << 24), torch.complex64),
    ("torch.fft.fft, 2 x 2^23 complex128", torch.fft.fft, (2, 1 << 23), torch.complex128),
    ("torch.fft.fft2, 4 x 4096 x 4096 complex64", torch.fft.fft2, (4, 4096, 4096), torch.complex64),
    ("torch.fft.fft2, 8192 x 8192 complex64", torch.fft.fft2, (8192, 8192), torch.complex64),
    ("torch.fft.fft2, 2 x 4096 x 4096 complex128", torch.fft.fft2, (2, 4096, 4096), torch.complex128),
    ("torch.fft.rfft, 4 x 2^24 float32", torch.fft.rfft, (4, 1 << 24), torch.float32),
    ("torch.fft.rfft, 2 x 2^24 float64", torch.fft.rfft, (2, 1 << 24), torch.float64),
    ("torch.fft.irfft, 4 x (2^23 + 1) complex64", torch.fft.irfft, (4, 1 << 24), "spectrum"),
]
kept = []
for label, function, shape, dtype in cases:
    x = half_spectrum(shape, torch.float32) if dtype == "spectrum" else random_input(shape, dtype)
    result, ms = gpu_ms(torch, function, x)
    print(f"{label:44s} {ms:8.3f} ms")
    kept.append(result.reshape(-1)[: 1 << 16].cpu().numpy().astype(np.complex128))
    del x, result
np.save(sys.argv[1], np.concatenate(kept))
