"""idgpu's FFT Poisson solver (idgpuPoisson*, include/idgpu/idgpu.h) from Python through ctypes,
on CuPy or PyTorch arrays (whichever imports).

    python3 examples/python/poisson_ctypes.py build/lib/libidgpu.so.0

The library: the path given, else $IDGPU_LIBRARY, else libidgpu.so.0 (on the loader's path).
Solves Lap_h u = f in float64 on a 64 x 48 x 65 grid of [0, 1) x [0, 1.5) x [0, 2], periodic in x
and y, Neumann in z (du/dz = 0 at z = 0 and 2), for u = cos(2 pi x) sin(2 pi y / 1.5) cos(pi z / 2)
and f its Laplacian. That u is an eigenvector of the discrete Laplacian too (lambda_h its
eigenvalue, lambda the continuous one), so the discrete solution is u lambda / lambda_h: prints
the error against it (rounding) and against u (the discretisation's, second order). Exits 1 when
either is larger than expected, 77 without CuPy, PyTorch or a CUDA device.
"""
import ctypes
import math
import os
import sys


class Cupy:
    def __init__(self):
        import cupy

        self.xp = cupy
        if cupy.cuda.runtime.getDeviceCount() == 0:
            raise RuntimeError("no CUDA device")

    def arange(self, n):
        return self.xp.arange(n, dtype=self.xp.float64)

    def empty_like(self, a):
        return self.xp.empty_like(a)

    def contiguous(self, a):
        return self.xp.ascontiguousarray(a)

    def pointer(self, a):
        return a.data.ptr

    def synchronize(self):
        self.xp.cuda.Device().synchronize()


class Torch:
    def __init__(self):
        import torch

        self.xp = torch
        if not torch.cuda.is_available():
            raise RuntimeError("no CUDA device")

    def arange(self, n):
        return self.xp.arange(n, dtype=self.xp.float64, device="cuda")

    def empty_like(self, a):
        return self.xp.empty_like(a)

    def contiguous(self, a):
        return a.contiguous()

    def pointer(self, a):
        return a.data_ptr()

    def synchronize(self):
        self.xp.cuda.synchronize()


def backend():
    reasons = []
    for kind in (Cupy, Torch):
        try:
            return kind()
        except Exception as error:  # ImportError, or no device
            reasons.append(f"{kind.__name__.lower()}: {error}")
    print("skipped: " + "; ".join(reasons))
    sys.exit(77)


def load_library():
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("IDGPU_LIBRARY", "libidgpu.so.0")
    library = ctypes.CDLL(path)
    plan_p = ctypes.POINTER(ctypes.c_void_p)
    library.idgpuPoissonCreate.argtypes = [plan_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_double,
                                           ctypes.c_double, ctypes.c_double, ctypes.c_int, ctypes.c_int]
    library.idgpuPoissonExecD.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    library.idgpuPoissonDestroy.argtypes = [ctypes.c_void_p]
    for name in ("idgpuPoissonCreate", "idgpuPoissonExecD", "idgpuPoissonDestroy"):
        getattr(library, name).restype = ctypes.c_int
    return library


IDGPU_STATUS_SUCCESS = 0
IDGPU_POISSON_NEUMANN = 1
IDGPU_PRECISION_DOUBLE = 1

arrays = backend()
library = load_library()
xp = arrays.xp

nx, ny, nz = 64, 48, 65
lx, ly, lz = 1.0, 1.5, 2.0
hx, hy, hz = lx / nx, ly / ny, lz / (nz - 1)  # Neumann: nz points z_k = k hz on [0, lz]
kx, ky, kz = 2 * math.pi / lx, 2 * math.pi / ly, math.pi / lz

# Element (x, y, z) at (z * ny + y) * nx + x: a C-ordered array of shape (nz, ny, nx).
x = (arrays.arange(nx) * hx)[None, None, :]
y = (arrays.arange(ny) * hy)[None, :, None]
z = (arrays.arange(nz) * hz)[:, None, None]
u_exact = arrays.contiguous(xp.cos(kx * x) * xp.sin(ky * y) * xp.cos(kz * z))
f = arrays.contiguous(-(kx * kx + ky * ky + kz * kz) * u_exact)
u = arrays.empty_like(f)

plan = ctypes.c_void_p()
status = library.idgpuPoissonCreate(ctypes.byref(plan), nx, ny, nz, hx, hy, hz, IDGPU_POISSON_NEUMANN,
                                    IDGPU_PRECISION_DOUBLE)
if status != IDGPU_STATUS_SUCCESS:
    print(f"idgpuPoissonCreate: status {status}")
    sys.exit(1)
# The plan runs on the legacy default stream, which both CuPy and PyTorch use unless told otherwise.
arrays.synchronize()
status = library.idgpuPoissonExecD(plan, arrays.pointer(f), arrays.pointer(u))
arrays.synchronize()
library.idgpuPoissonDestroy(plan)
if status != IDGPU_STATUS_SUCCESS:
    print(f"idgpuPoissonExecD: status {status}")
    sys.exit(1)


def second_difference(k, h):
    return 4 * math.sin(k * h / 2) ** 2 / (h * h)


ratio = (kx * kx + ky * ky + kz * kz) / (second_difference(kx, hx) + second_difference(ky, hy) +
                                         second_difference(kz, hz))
discrete_error = float(abs(u - ratio * u_exact).max())
exact_error = float(abs(u - u_exact).max())
predicted = abs(ratio - 1) * float(abs(u_exact).max())
print(f"Poisson, {nx} x {ny} x {nz}, Neumann in z, float64, on {xp.__name__} arrays:")
print(f"  max error against the discrete solution {discrete_error:.3e} (rounding)")
print(f"  max error against the exact solution    {exact_error:.3e} (predicted {predicted:.3e}, the discretisation's)")
ok = discrete_error < 1e-10 and abs(exact_error - predicted) < 1e-10
sys.exit(0 if ok else 1)
