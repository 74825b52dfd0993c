"""The spectral transforms PyTorch workloads make, for an A/B run against the vendor libraries:

    perf/idgpu-ab --runs 5 --compare spectral.npy -- python3 perf/workloads/torch_spectral.py spectral.npy

torch.stft of 64 signals of 30 s at 16 kHz with n_fft 400 (hop 160) and 2048 (hop 512): R2C of
400 and 2048 real points, batches of about 192000 and 60000 frames; torch.fft.rfft2 of a
32 x 64 x 256 x 256 float32 tensor (2D R2C 256 x 256, batch 2048); torch.fft.rfftn of 256^3
float32 (3D R2C). Prints each call's GPU time (median of 20 after 3 warm-up calls, CUDA events)
and writes the first rows of every result, as complex64, to the .npy file given (the outputs
idgpu-ab compares between the sides). Exits 77 without torch or a CUDA device.
"""
import sys

from torch_common import gpu_ms, torch_or_skip

np, torch = torch_or_skip("torch_spectral.py")

generator = torch.Generator(device="cuda").manual_seed(11)
signals = torch.randn(64, 16000 * 30, device="cuda", generator=generator)
images = torch.randn(32, 64, 256, 256, device="cuda", generator=generator)
volume = torch.randn(256, 256, 256, device="cuda", generator=generator)


def stft(n_fft, hop):
    window = torch.hann_window(n_fft, device="cuda")
    return lambda x: torch.stft(x, n_fft=n_fft, hop_length=hop, window=window, return_complex=True)


cases = [
    ("torch.stft n_fft=400 hop=160, 64 x 480000", stft(400, 160), signals),
    ("torch.stft n_fft=2048 hop=512, 64 x 480000", stft(2048, 512), signals),
    ("torch.fft.rfft2, 32 x 64 x 256 x 256", torch.fft.rfft2, images),
    ("torch.fft.rfftn, 256^3", torch.fft.rfftn, volume),
]
kept = []
for label, function, x in cases:
    result, ms = gpu_ms(torch, function, x)
    print(f"{label:44s} {ms:8.3f} ms")
    kept.append(result.reshape(-1)[: 1 << 16].cpu().numpy().astype(np.complex64))
np.save(sys.argv[1], np.concatenate(kept))
