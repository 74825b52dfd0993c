"""torch.fft on CUDA (torch links libcufft.so.12 / libcusparse.so.12 through DT_NEEDED).

Saves every result as .npy (see common.py). Tridiagonal solves: torch has no public API that
reaches cuSPARSE's gtsv family (no torch.linalg tridiagonal / banded solver; ATen does not call
cusparse<t>gtsv*), so this client runs FFTs only.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def body(client):
    torch = client.need("torch")
    np = client.np
    if not torch.cuda.is_available():
        client.skip("torch.cuda.is_available() is False (no CUDA device, or a CPU-only torch)")
    device = torch.device("cuda")
    client.step(f"torch {torch.__version__} (CUDA {torch.version.cuda}) on {torch.cuda.get_device_name(0)}")
    fft = torch.fft
    operations = {
        "fft": lambda t, kw: fft.fft(t, dim=-1),
        "ifft": lambda t, kw: fft.ifft(t, dim=-1),
        "fft2": lambda t, kw: fft.fft2(t),
        "fftn": lambda t, kw: fft.fftn(t),
        "fftn3": lambda t, kw: fft.fftn(t, dim=(-3, -2, -1)),
        "rfft": lambda t, kw: fft.rfft(t, dim=-1),
        "rfft2": lambda t, kw: fft.rfft2(t),
        "rfftn3": lambda t, kw: fft.rfftn(t, dim=(-3, -2, -1)),
        "irfft": lambda t, kw: fft.irfft(t, n=kw["n"], dim=-1),
        "irfft2": lambda t, kw: fft.irfft2(t, s=kw["s"]),
        "irfftn3": lambda t, kw: fft.irfftn(t, s=kw["s"], dim=(-3, -2, -1)),
        "fft0": lambda t, kw: fft.fft(t, dim=0),
        "fftn01": lambda t, kw: fft.fftn(t, dim=(0, 1)),
        "rfftn": lambda t, kw: fft.rfftn(t),
        "irfftn": lambda t, kw: fft.irfftn(t, s=kw["s"]),
    }
    for name, op, host, kwargs in common.fft_cases(client):
        tensor = torch.from_numpy(np.ascontiguousarray(host)).to(device)
        result = operations[op](tensor, kwargs)
        torch.cuda.synchronize()
        client.save(name, result.cpu().numpy())
    client.expect_report(common.FFT_EXPECT)


if __name__ == "__main__":
    common.Client("torch").run(body)
