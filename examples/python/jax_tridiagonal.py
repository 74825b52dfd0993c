"""jax.lax.linalg.tridiagonal_solve on one long system and on a batch, checked by the residual.

    idgpu-run --report -- python3 examples/python/jax_tridiagonal.py

JAX calls cuSPARSE's gtsv2 for one system and gtsv2StridedBatch for a batched right-hand side;
it opens cuSPARSE itself (dlopen), so idgpu reaches it through idgpu-run, not LD_PRELOAD. Prints
each solve's time (median of 10) and relative residual; exits 1 when a residual is too large, 77
without jax or a GPU.
"""
import sys
import time

try:
    import jax
    import jax.numpy as jnp
    import numpy as np
except ImportError as error:
    print(f"skipped: {error}")
    sys.exit(77)
if not any(device.platform == "gpu" for device in jax.devices()):
    print("skipped: no GPU device for jax")
    sys.exit(77)


def system(key, shape, m):
    k1, k2, k3, k4 = jax.random.split(key, 4)
    dl = jax.random.uniform(k1, shape + (m,), minval=-0.5, maxval=0.5).at[..., 0].set(0.0)
    du = jax.random.uniform(k2, shape + (m,), minval=-0.5, maxval=0.5).at[..., -1].set(0.0)
    d = 2.0 + jax.random.uniform(k3, shape + (m,), minval=-0.5, maxval=0.5)
    b = jax.random.uniform(k4, shape + (m, 1), minval=-0.5, maxval=0.5)
    return dl, d, du, b


def residual(dl, d, du, x, b):
    x = x[..., 0]
    r = d * x - b[..., 0]
    r = r.at[..., 1:].add(dl[..., 1:] * x[..., :-1])
    r = r.at[..., :-1].add(du[..., :-1] * x[..., 1:])
    return float(jnp.linalg.norm(r) / jnp.linalg.norm(b))


solve = jax.jit(jax.lax.linalg.tridiagonal_solve)
failed = False
for label, shape, m in (("one system of 2^22 rows (gtsv2)", (), 1 << 22),
                        ("4096 systems of 4096 rows (gtsv2StridedBatch)", (4096,), 4096)):
    dl, d, du, b = system(jax.random.PRNGKey(3), shape, m)
    x = solve(dl, d, du, b).block_until_ready()
    times = []
    for _ in range(10):
        start = time.perf_counter()
        solve(dl, d, du, b).block_until_ready()
        times.append((time.perf_counter() - start) * 1e3)
    error = residual(dl, d, du, x, b)
    ok = error < 1e-5
    failed |= not ok
    print(f"{label:48s} {sorted(times)[5]:8.3f} ms   residual {error:.2e} {'ok' if ok else 'TOO LARGE'}")
sys.exit(1 if failed else 0)
