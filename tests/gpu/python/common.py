"""Shared pieces of the Python GPU clients (torch_client.py, cupy_client.py, jax_client.py).

Each client computes a fixed list of transforms (and solves) on the GPU from fixed-seed random
inputs, and saves every result as OUTDIR/<case>.npy, plus OUTDIR/manifest.txt (the case names) and
OUTDIR/expect.txt (regular expressions of the idgpu dispatch-report rows its calls must produce).

Exit status: 0 done, 1 failure, 77 skipped: numpy, the client's package or a CUDA device is missing.
With --require-gpu (the driver passes it to the preloaded runs, which must not silently fall back)
a missing package or device is a failure instead.
"""
import argparse
import os
import sys
import traceback
import zlib

SKIP = 77

# The transform cases every FFT client runs: (name, operation, dtype, shape, extra).
FFT_DTYPES = ("float32", "complex64", "float64", "complex128")
REAL_DTYPES = ("float32", "float64")
COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}

FFT_EXPECT = r"^cufft(Xt)?Exec"
GTSV_EXPECT = r"^cusparse[SDCZ]gtsv"


class Client:
    """Argument parsing, skipping, inputs and saving for one client."""

    def __init__(self, name):
        parser = argparse.ArgumentParser(description=f"idgpu GPU test client: {name}")
        parser.add_argument("--out", required=True, help="output directory")
        parser.add_argument("--require-gpu", action="store_true",
                            help="a missing package or device is a failure, not a skip")
        self.args = parser.parse_args()
        self.name = name
        self.saved = []
        self.expect = []
        self.np = self.need("numpy")
        os.makedirs(self.args.out, exist_ok=True)

    def step(self, message):
        print(f"[{self.name}] {message}", flush=True)

    def skip(self, reason):
        if self.args.require_gpu:
            print(f"[{self.name}] FAIL (required here): {reason}", flush=True)
            sys.exit(1)
        print(f"[{self.name}] skipped: {reason}", flush=True)
        sys.exit(SKIP)

    def need(self, module):
        """Imports a module, or skips (77) when it is not installed."""
        try:
            return __import__(module, fromlist=["_"])
        except Exception as error:  # ImportError, or a broken install raising anything else
            self.skip(f"cannot import {module}: {error!r}")

    # --- inputs -----------------------------------------------------------------------------
    def rng(self, case):
        return self.np.random.default_rng(zlib.crc32(f"{self.name}:{case}".encode()))

    def random(self, case, shape, dtype):
        """Uniform in (-1, 1) (real and imaginary parts), never exactly zero."""
        np = self.np
        rng = self.rng(case)

        def part():
            values = rng.uniform(-1.0, 1.0, size=shape)
            values[values == 0.0] = 0.5
            return values

        if np.dtype(dtype).kind == "c":
            return (part() + 1j * part()).astype(dtype)
        return part().astype(dtype)

    # --- results ----------------------------------------------------------------------------
    def save(self, case, array):
        np = self.np
        array = np.ascontiguousarray(array)
        np.save(os.path.join(self.args.out, f"{case}.npy"), array, allow_pickle=False)
        self.saved.append(case)
        finite = bool(np.isfinite(array).all()) if array.dtype.kind in "fc" else True
        self.step(f"saved {case}: {array.dtype} {tuple(array.shape)}{'' if finite else ' (NOT FINITE)'}")
        if not finite:
            raise RuntimeError(f"{case}: the result holds NaN or Inf")

    def expect_report(self, pattern):
        if pattern not in self.expect:
            self.expect.append(pattern)

    def finish(self):
        with open(os.path.join(self.args.out, "manifest.txt"), "w") as manifest:
            manifest.write("".join(f"{case}\n" for case in self.saved))
        with open(os.path.join(self.args.out, "expect.txt"), "w") as expect:
            expect.write("".join(f"{pattern}\n" for pattern in self.expect))
        self.step(f"done: {len(self.saved)} results")

    def run(self, body):
        try:
            body(self)
        except SystemExit:
            raise
        except Exception:
            traceback.print_exc()
            print(f"[{self.name}] FAIL: the client raised", flush=True)
            sys.exit(1)
        self.finish()
        sys.exit(0)


def fft_cases(client):
    """(name, op, input array on the host, keyword arguments): the transform list of every client.

    op is one of fft, ifft, fft2, fftn (all axes), fftn3 (last three axes of a batched array), fft0
    (along the first axis), fftn01 (the first two axes of a 3D array), rfft, rfft2, rfftn (all axes),
    rfftn3, irfft (n), irfft2 (s), irfftn (s, all axes), irfftn3 (s). fft0 and fftn01 are strided
    layouts in cuFFT's terms (the transforms are the lines of the array, stride S, distance 1), as
    is the complex-to-complex half of PyTorch's rfftn / irfftn of one 3D array. The inputs of the
    inverse real transforms are the spectra of real signals (computed on the host with numpy), so
    they are Hermitian.
    """
    np = client.np
    cases = []
    for dtype in FFT_DTYPES:
        cases += [
            (f"fft_{dtype}_4x100", "fft", client.random(f"fft_{dtype}", (4, 100), dtype), {}),
            (f"ifft_{dtype}_4x128", "ifft", client.random(f"ifft_{dtype}", (4, 128), dtype), {}),
            (f"fft_{dtype}_2x97", "fft", client.random(f"fft97_{dtype}", (2, 97), dtype), {}),
            # Short lengths, one transform a thread under IDGPU_POLICY=native (fft/stockham_index.h's
            # thread layout): a batch with a short last block, and 60, a compiled sequence's length.
            (f"fft_{dtype}_1000x24", "fft", client.random(f"fft24_{dtype}", (1000, 24), dtype), {}),
            (f"ifft_{dtype}_7x60", "ifft", client.random(f"ifft60_{dtype}", (7, 60), dtype), {}),
            (f"fft2_{dtype}_3x24x30", "fft2", client.random(f"fft2_{dtype}", (3, 24, 30), dtype), {}),
            (f"fftn_{dtype}_8x12x10", "fftn", client.random(f"fftn_{dtype}", (8, 12, 10), dtype), {}),
            (f"fftn3_{dtype}_2x8x12x10", "fftn3", client.random(f"fftn3_{dtype}", (2, 8, 12, 10), dtype), {}),
            (f"fft0_{dtype}_64x6", "fft0", client.random(f"fft0_{dtype}", (64, 6), dtype), {}),
            (f"fftn01_{dtype}_16x12x5", "fftn01", client.random(f"fftn01_{dtype}", (16, 12, 5), dtype), {}),
        ]
    for dtype in REAL_DTYPES:
        complex_dtype = COMPLEX_OF[dtype]
        cases += [
            (f"rfft_{dtype}_4x128", "rfft", client.random(f"rfft_{dtype}", (4, 128), dtype), {}),
            (f"rfft_{dtype}_3x45", "rfft", client.random(f"rfft45_{dtype}", (3, 45), dtype), {}),
            # A half with a prime factor above 13 (23): one Bluestein pass with the real step.
            (f"rfft_{dtype}_3x46", "rfft", client.random(f"rfft46_{dtype}", (3, 46), dtype), {}),
            (f"rfft2_{dtype}_3x16x20", "rfft2", client.random(f"rfft2_{dtype}", (3, 16, 20), dtype), {}),
            (f"rfftn3_{dtype}_2x8x12x10", "rfftn3", client.random(f"rfftn3_{dtype}", (2, 8, 12, 10), dtype), {}),
            (f"rfftn_{dtype}_16x12x10", "rfftn", client.random(f"rfftn_{dtype}", (16, 12, 10), dtype), {}),
        ]
        signal = client.random(f"irfft_{dtype}", (4, 128), "float64")
        cases.append((f"irfft_{complex_dtype}_4x65_n128", "irfft",
                      np.fft.rfft(signal).astype(complex_dtype), {"n": 128}))
        signal = client.random(f"irfft45_{dtype}", (3, 45), "float64")
        cases.append((f"irfft_{complex_dtype}_3x23_n45", "irfft",
                      np.fft.rfft(signal).astype(complex_dtype), {"n": 45}))
        signal = client.random(f"irfft23_{dtype}", (3, 23), "float64")  # odd prime: rows paired
        cases.append((f"irfft_{complex_dtype}_3x12_n23", "irfft",
                      np.fft.rfft(signal).astype(complex_dtype), {"n": 23}))
        signal = client.random(f"irfft2_{dtype}", (3, 16, 20), "float64")
        cases.append((f"irfft2_{complex_dtype}_3x16x11", "irfft2",
                      np.fft.rfft2(signal).astype(complex_dtype), {"s": (16, 20)}))
        signal = client.random(f"irfftn_{dtype}", (16, 12, 10), "float64")
        cases.append((f"irfftn_{complex_dtype}_16x12x6", "irfftn",
                      np.fft.rfftn(signal).astype(complex_dtype), {"s": (16, 12, 10)}))
        signal = client.random(f"irfftn3_{dtype}", (2, 8, 12, 10), "float64")
        cases.append((f"irfftn3_{complex_dtype}_2x8x12x6", "irfftn3",
                      np.fft.rfftn(signal, axes=(-3, -2, -1)).astype(complex_dtype), {"s": (8, 12, 10)}))
    return cases


def tridiagonal_system(client, case, batch_shape, m, dtype):
    """A diagonally dominant system: dl[..., 0] = 0 and du[..., -1] = 0 as the APIs require."""
    np = client.np
    dl = client.random(f"{case}.dl", batch_shape + (m,), dtype)
    du = client.random(f"{case}.du", batch_shape + (m,), dtype)
    d = (2.5 + np.abs(client.random(f"{case}.d", batch_shape + (m,), "float64"))).astype(dtype)
    dl[..., 0] = 0
    du[..., -1] = 0
    return dl, d, du
