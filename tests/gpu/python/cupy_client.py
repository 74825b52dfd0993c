"""cupy.fft on CUDA (cupy's cufft module links libcufft.so.12 through DT_NEEDED).

Saves every result as .npy (see common.py). CuPy has no public tridiagonal solver; where its
low-level cuSPARSE bindings (cupy_backends.cuda.libs.cusparse) expose the gtsv2 family, this client
also calls cusparse<t>gtsv2 and cusparse<t>gtsv2StridedBatch through them, and then expects a gtsv
row in the dispatch report. Without those bindings it runs FFTs only (and says so).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402


def gtsv_cases(client, cupy):
    np = client.np
    try:
        from cupy_backends.cuda.libs import cusparse as low
        from cupy.cuda import device as cuda_device
    except Exception as error:  # not every CuPy exposes them
        client.step(f"no low-level cuSPARSE bindings ({error!r}): gtsv not exercised")
        return
    names = ("sgtsv2_bufferSizeExt", "sgtsv2", "dgtsv2_bufferSizeExt", "dgtsv2",
             "sgtsv2StridedBatch_bufferSizeExt", "sgtsv2StridedBatch",
             "dgtsv2StridedBatch_bufferSizeExt", "dgtsv2StridedBatch")
    missing = [name for name in names if not hasattr(low, name)]
    if missing:
        client.step(f"cupy_backends cusparse lacks {missing}: gtsv not exercised")
        return
    handle = cuda_device.get_cusparse_handle()
    m, n, ldb, batch = 100, 3, 104, 4
    for dtype, prefix in (("float32", "s"), ("float64", "d")):
        # gtsv2: B is ldb x n, column-major (an (n, ldb) C-ordered array).
        dl, d, du = common.tridiagonal_system(client, f"gtsv2_{dtype}", (), m, dtype)
        B = cupy.asarray(client.random(f"gtsv2_{dtype}.B", (n, ldb), dtype))
        arrays = [cupy.asarray(a) for a in (dl, d, du)]
        size = getattr(low, f"{prefix}gtsv2_bufferSizeExt")(
            handle, m, n, arrays[0].data.ptr, arrays[1].data.ptr, arrays[2].data.ptr, B.data.ptr, ldb)
        work = cupy.empty(max(int(size), 256), dtype=cupy.uint8)
        getattr(low, f"{prefix}gtsv2")(
            handle, m, n, arrays[0].data.ptr, arrays[1].data.ptr, arrays[2].data.ptr, B.data.ptr, ldb, work.data.ptr)
        cupy.cuda.get_current_stream().synchronize()
        client.save(f"gtsv2_{dtype}_m{m}_n{n}_ldb{ldb}", cupy.asnumpy(B))
        # gtsv2StridedBatch: batch systems of m, stride m.
        dl, d, du = common.tridiagonal_system(client, f"sb_{dtype}", (batch,), m, dtype)
        x = cupy.asarray(client.random(f"sb_{dtype}.x", (batch, m), dtype))
        arrays = [cupy.asarray(a) for a in (dl, d, du)]
        size = getattr(low, f"{prefix}gtsv2StridedBatch_bufferSizeExt")(
            handle, m, arrays[0].data.ptr, arrays[1].data.ptr, arrays[2].data.ptr, x.data.ptr, batch, m)
        work = cupy.empty(max(int(size), 256), dtype=cupy.uint8)
        getattr(low, f"{prefix}gtsv2StridedBatch")(
            handle, m, arrays[0].data.ptr, arrays[1].data.ptr, arrays[2].data.ptr, x.data.ptr, batch, m,
            work.data.ptr)
        cupy.cuda.get_current_stream().synchronize()
        client.save(f"gtsv2StridedBatch_{dtype}_m{m}_b{batch}", cupy.asnumpy(x))
    client.expect_report(common.GTSV_EXPECT)


def callback_cases(client, cupy):
    """JIT (LTO) load and store callbacks, as CuPy's own Test1dCallbacks sets them: cufftCreate,
    cufftXtSetJITCallback, then cufftMakePlanMany. The transform must be the one asked for (with
    the callbacks) whoever serves the plan; sizes include those idgpu's dispatch sends native
    (C2C fp32 2^15..2^20 on an H100)."""
    config = getattr(cupy.fft, "config", None)
    if config is None or not hasattr(config, "set_cufft_callbacks"):
        client.step("cupy.fft.config.set_cufft_callbacks missing: callbacks not exercised")
        return
    load = r"""
__device__ cufftComplex idgpu_load(void* in, size_t offset, void* info, void* shared) {
  cufftComplex x = ((cufftComplex*)in)[offset];
  float scale = 1.0f + 0.125f * (float)(offset % 7);
  x.x *= scale; x.y *= scale;
  return x;
}
"""
    store = r"""
__device__ void idgpu_store(void* out, size_t offset, cufftComplex x, void* info, void* shared) {
  x.x = 0.5f * x.x + 1.0f;
  x.y = 0.5f * x.y;
  ((cufftComplex*)out)[offset] = x;
}
"""
    for n, batch in ((64, 1000), (1 << 15, 64), (1 << 17, 16)):
        host = client.random(f"cb_fft_n{n}", (batch, n), "complex64")
        try:
            with config.set_cufft_callbacks(cb_load=load, cb_store=store, cb_load_name="idgpu_load",
                                            cb_store_name="idgpu_store", cb_ver="jit"):
                result = cupy.fft.fft(cupy.asarray(host), axis=-1)
        except Exception as error:  # a CuPy before JIT callbacks (13 and older), or no NVRTC LTO
            client.step(f"JIT callbacks unavailable in this CuPy ({error!r}): not exercised")
            return
        cupy.cuda.get_current_stream().synchronize()
        client.save(f"cb_fft_jit_n{n}_b{batch}", cupy.asnumpy(result))


def body(client):
    cupy = client.need("cupy")
    try:
        devices = cupy.cuda.runtime.getDeviceCount()
    except Exception as error:
        client.skip(f"cupy.cuda.runtime.getDeviceCount failed: {error!r}")
    if devices == 0:
        client.skip("no CUDA device")
    client.step(f"cupy {cupy.__version__}, CUDA runtime {cupy.cuda.runtime.runtimeGetVersion()}")
    fft = cupy.fft
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
        result = operations[op](cupy.asarray(host), kwargs)
        cupy.cuda.get_current_stream().synchronize()
        client.save(name, cupy.asnumpy(result))
    client.expect_report(common.FFT_EXPECT)
    callback_cases(client, cupy)
    gtsv_cases(client, cupy)


if __name__ == "__main__":
    common.Client("cupy").run(body)
