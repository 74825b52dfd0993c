"""The tridiagonal solves JAX workloads make, for an A/B run against the vendor libraries:

    perf/idgpu-ab --runs 5 --compare tridiagonal.npy -- python3 perf/workloads/jax_tridiagonal.py tridiagonal.npy

jax.lax.linalg.tridiagonal_solve of one system of 2^22 rows with one right-hand side (cuSPARSE's
gtsv2, with pivoting) and of a batch of 4096 systems of 4096 rows (right-hand sides of shape
(batch, m, 1): gtsv2StridedBatch), float32; the single system also non-dominant (a random
diagonal in [-1, 1], the pivoting solver's case; gtsv2StridedBatch does not pivot). Prints each call's time (median
of 20 after 3 warm-up calls, the wall time of the call and block_until_ready, so it includes
JAX's dispatch), for the single systems the forward error against a float64 banded LU (SciPy),
and writes the first 2^16 values of every solution, as float32, to the .npy file
given (the outputs idgpu-ab compares between the sides). JAX opens the vendor libraries by
SONAME, so its idgpu side needs the launcher (idgpu-run), which idgpu-ab uses. Exits 77 without
jax or a CUDA device.
"""
import sys
import time

try:
    import numpy as np
    import jax
    import jax.numpy as jnp
    from jax.lax import linalg
except ImportError as error:
    print(f"skipped: {error}")
    sys.exit(77)
try:
    device = jax.devices("gpu")[0]
except RuntimeError as error:
    print(f"skipped: no CUDA device ({error})")
    sys.exit(77)
if len(sys.argv) != 2:
    print("usage: jax_tridiagonal.py OUTPUT.npy", file=sys.stderr)
    sys.exit(2)


def wall_ms(function, *args):
    for _ in range(3):
        function(*args).block_until_ready()
    times = []
    for _ in range(20):
        start = time.perf_counter()
        result = function(*args)
        result.block_until_ready()
        times.append((time.perf_counter() - start) * 1e3)
    return result, sorted(times)[len(times) // 2]


def system(rng, shape, dominant):
    """dl, d, du of the given leading shape, dl[..., 0] = du[..., -1] = 0 as the API asks."""
    dl = rng.uniform(-1, 1, shape).astype(np.float32)
    du = rng.uniform(-1, 1, shape).astype(np.float32)
    if dominant:
        d = (2.5 + rng.uniform(0, 1, shape)).astype(np.float32)
    else:
        d = rng.uniform(-1, 1, shape).astype(np.float32)
    dl[..., 0] = 0
    du[..., -1] = 0
    return [jax.device_put(a, device) for a in (dl, d, du)]


rng = np.random.default_rng(13)
solve = jax.jit(linalg.tridiagonal_solve)
cases = []
for dominant in (True, False):
    kind = "dominant" if dominant else "non-dominant"
    m = 1 << 22
    dl, d, du = system(rng, (m,), dominant)
    b = jax.device_put(rng.uniform(-1, 1, (m, 1)).astype(np.float32), device)
    cases.append((f"tridiagonal_solve one system of 2^22 rows, {kind}", (dl, d, du, b)))
    if not dominant:
        continue  # gtsv2StridedBatch does not pivot: both sides would solve an unstable system
    batch, m = 4096, 4096
    dl, d, du = system(rng, (batch, m), dominant)
    b = jax.device_put(rng.uniform(-1, 1, (batch, m, 1)).astype(np.float32), device)
    cases.append((f"tridiagonal_solve 4096 x 4096 (batched), {kind}", (dl, d, du, b)))

try:
    from scipy.linalg import solve_banded
except ImportError:
    solve_banded = None


def forward_error(args, result):
    """max |x - x64| / max |x64| of a single system against LAPACK's banded LU with partial
    pivoting in float64 (None without SciPy, or for a batch)."""
    dl, d, du, b = (np.asarray(a, dtype=np.float64) for a in args)
    if solve_banded is None or d.ndim != 1:
        return None
    bands = np.zeros((3, d.shape[0]))
    bands[0, 1:] = du[:-1]
    bands[1] = d
    bands[2, :-1] = dl[1:]
    exact = solve_banded((1, 1), bands, b[:, 0])
    return float(np.max(np.abs(np.asarray(result, dtype=np.float64)[:, 0] - exact)) / np.max(np.abs(exact)))


kept = []
for label, args in cases:
    result, ms = wall_ms(solve, *args)
    error = forward_error(args, result)
    error_text = f"  forward error against float64 {error:.2e}" if error is not None else ""
    print(f"{label:56s} {ms:8.3f} ms{error_text}")
    kept.append(np.asarray(result).reshape(-1)[: 1 << 16].astype(np.float32))
np.save(sys.argv[1], np.concatenate(kept))
