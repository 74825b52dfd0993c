"""jax.numpy.fft and jax.lax.linalg.tridiagonal_solve on the CUDA backend.

JAX/XLA dlopens libcufft.so.12 and libcusparse.so.12 by SONAME and looks each function up on that
handle (no DT_NEEDED), so a plain LD_PRELOAD of libidgpu is not expected to intercept it; through
idgpu-run the SONAME stand-ins are what it opens. tridiagonal_solve with a batched right-hand side
of shape (batch, m, 1) calls gtsv2StridedBatch, otherwise gtsv2 (measured with jax 0.11).
Saves every result as .npy (see common.py). float64 needs jax_enable_x64.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")


def body(client):
    jax = client.need("jax")
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    from jax.lax import linalg

    np = client.np
    try:
        gpus = jax.devices("gpu")
    except Exception as error:
        client.skip(f"no JAX GPU backend: {error!r}")
    if not gpus:
        client.skip("no JAX GPU device")
    device = gpus[0]
    client.step(f"jax {jax.__version__} on {device} (default backend {jax.default_backend()})")

    def put(array):
        return jax.device_put(array, device)

    fft = jnp.fft
    operations = {
        "fft": lambda a, kw: fft.fft(a, axis=-1),
        "ifft": lambda a, kw: fft.ifft(a, axis=-1),
        "fft2": lambda a, kw: fft.fft2(a),
        "fftn": lambda a, kw: fft.fftn(a),
        "fftn3": lambda a, kw: fft.fftn(a, axes=(-3, -2, -1)),
        "rfft": lambda a, kw: fft.rfft(a, axis=-1),
        "rfft2": lambda a, kw: fft.rfft2(a),
        "rfftn3": lambda a, kw: fft.rfftn(a, axes=(-3, -2, -1)),
        "irfft": lambda a, kw: fft.irfft(a, n=kw["n"], axis=-1),
        "irfft2": lambda a, kw: fft.irfft2(a, s=kw["s"]),
        "irfftn3": lambda a, kw: fft.irfftn(a, s=kw["s"], axes=(-3, -2, -1)),
        "fft0": lambda a, kw: fft.fft(a, axis=0),
        "fftn01": lambda a, kw: fft.fftn(a, axes=(0, 1)),
        "rfftn": lambda a, kw: fft.rfftn(a),
        "irfftn": lambda a, kw: fft.irfftn(a, s=kw["s"]),
    }
    for name, op, host, kwargs in common.fft_cases(client):
        result = operations[op](put(host), kwargs)
        result.block_until_ready()
        client.save(name, np.asarray(result))
    client.expect_report(common.FFT_EXPECT)

    m = 100
    for dtype in ("float32", "float64"):
        # Batched right-hand side (batch, m, 1): gtsv2StridedBatch.
        batch = 4
        dl, d, du = common.tridiagonal_system(client, f"tri_batched_{dtype}", (batch,), m, dtype)
        b = client.random(f"tri_batched_{dtype}.b", (batch, m, 1), dtype)
        x = linalg.tridiagonal_solve(put(dl), put(d), put(du), put(b))
        x.block_until_ready()
        client.save(f"tridiagonal_solve_{dtype}_batched_{batch}x{m}x1", np.asarray(x))
        # Unbatched, several right-hand sides (m, 3): gtsv2.
        dl, d, du = common.tridiagonal_system(client, f"tri_single_{dtype}", (), m, dtype)
        b = client.random(f"tri_single_{dtype}.b", (m, 3), dtype)
        x = linalg.tridiagonal_solve(put(dl), put(d), put(du), put(b))
        x.block_until_ready()
        client.save(f"tridiagonal_solve_{dtype}_{m}x3", np.asarray(x))
    client.expect_report(common.GTSV_EXPECT)


if __name__ == "__main__":
    common.Client("jax").run(body)
