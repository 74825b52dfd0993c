"""idgpu: the controls of libidgpu, the drop-in cuFFT and cuSPARSE tridiagonal library, from Python.

A thin ctypes layer over idgpu's own C API (include/idgpu/idgpu.h): version, dispatch policy,
dispatch statistics and the report. Importing this module does not make idgpu serve a process's
calls: run the process under `idgpu-run` (or LD_PRELOAD libidgpu) for that. Inside such a
process the module talks to the preloaded library, the one serving the calls; elsewhere it loads
the library packaged with it (or the file named by IDGPU_LIBRARY), whose statistics stay zero
unless something calls it.

    import idgpu
    idgpu.version()                  # '0.1.0'
    with idgpu.policy("vendor"):     # every call in the block goes to the vendor library
        ...
    idgpu.stats()                    # {'cufftExecC2C': CallStats(calls=3, native_calls=3, ...), ...}
    idgpu.report()                   # the same as one object (dataclasses.asdict gives plain data)
"""

import contextlib
import ctypes
import dataclasses
import os
import tempfile
from typing import Dict, Iterator, Optional

from . import _native

try:
    from ._version import __version__
except ImportError:  # running from the source tree, not an installed wheel
    __version__ = "0+unknown"

__all__ = [
    "CallStats", "IdgpuError", "Report", "call_stats", "get_policy", "library_path", "package_dir", "policy",
    "report", "report_text", "reset_stats", "set_policy", "stats", "vendor_library_path", "version",
    "version_number",
]

POLICIES = tuple(_native.POLICIES)
VENDOR_LIBRARIES = tuple(_native.VENDOR_LIBRARIES)


class IdgpuError(RuntimeError):
    """A call of the C API returned a status other than IDGPU_STATUS_SUCCESS."""

    def __init__(self, function: str, status: int):
        self.function = function
        self.status = status
        super().__init__("%s returned %s" % (function, _native.STATUS_NAMES.get(status, str(status))))


def _check(function: str, status: int) -> None:
    if status != _native.STATUS_SUCCESS:
        raise IdgpuError(function, status)


def package_dir() -> str:
    """This package's directory, which holds lib/ (the library, the stand-ins) and bin/idgpu-run."""
    return os.path.dirname(os.path.abspath(__file__))


def library_path() -> Optional[str]:
    """The file of the libidgpu this module talks to (loading it if needed)."""
    return _native.library_file()


def version() -> str:
    """The loaded library's version, "major.minor.patch" (idgpuGetVersionString)."""
    return _native.library().idgpuGetVersionString().decode()


def version_number() -> int:
    """The loaded library's version as major * 10000 + minor * 100 + patch (idgpuGetVersion)."""
    return int(_native.library().idgpuGetVersion())


# --- Policy ----------------------------------------------------------------------------------

def get_policy() -> str:
    """Which side serves calls now: 'auto', 'vendor' or 'native' (idgpuGetPolicy)."""
    value = ctypes.c_int(-1)
    _check("idgpuGetPolicy", _native.library().idgpuGetPolicy(ctypes.byref(value)))
    for name, number in _native.POLICIES.items():
        if number == value.value:
            return name
    raise IdgpuError("idgpuGetPolicy", value.value)


def set_policy(name: str) -> None:
    """Sets the policy for the whole process, every thread (idgpuSetPolicy); as IDGPU_POLICY does at load.

    'auto': idgpu's kernels where they measured faster, the vendor elsewhere; 'vendor': always the
    vendor; 'native': idgpu's kernels wherever a native path exists.
    """
    if name not in _native.POLICIES:
        raise ValueError("idgpu: policy %r is not one of %s" % (name, ", ".join(POLICIES)))
    _check("idgpuSetPolicy", _native.library().idgpuSetPolicy(_native.POLICIES[name]))


@contextlib.contextmanager
def policy(name: str) -> Iterator[str]:
    """Sets the policy for the block and restores the one before it on the way out.

    The policy is the process's, not the thread's: other threads' calls in the block follow it too.
    """
    previous = get_policy()
    set_policy(name)
    try:
        yield name
    finally:
        set_policy(previous)


# --- Statistics and the report ---------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class CallStats:
    """The dispatch statistics of one exported vendor function (idgpuCallStats_t).

    gpu_milliseconds and timed_calls are filled only when IDGPU_REPORT=timing.
    """

    name: str
    calls: int = 0
    native_calls: int = 0
    vendor_calls: int = 0
    failed_calls: int = 0
    timed_calls: int = 0
    gpu_milliseconds: float = 0.0

    @classmethod
    def _from_c(cls, raw: _native.CallStatsStruct) -> "CallStats":
        return cls(name=raw.name.decode() if raw.name else "", calls=int(raw.calls),
                   native_calls=int(raw.nativeCalls), vendor_calls=int(raw.vendorCalls),
                   failed_calls=int(raw.failedCalls), timed_calls=int(raw.timedCalls),
                   gpu_milliseconds=float(raw.gpuMilliseconds))


def call_stats(name: str) -> CallStats:
    """The statistics of one exported function, e.g. "cufftExecC2C" (idgpuGetCallStatsByName).

    KeyError for a name libidgpu does not export.
    """
    raw = _native.CallStatsStruct()
    status = _native.library().idgpuGetCallStatsByName(name.encode(), ctypes.byref(raw))
    if status == _native.STATUS_NOT_FOUND:
        raise KeyError(name)
    _check("idgpuGetCallStatsByName", status)
    return CallStats._from_c(raw)


def stats(include_uncalled: bool = False) -> Dict[str, CallStats]:
    """Every function's statistics by name, in the library's order (idgpuGetCallStats).

    Only the functions called at least once, unless include_uncalled.
    """
    library = _native.library()
    result = {}
    for index in range(library.idgpuGetCallStatsCount()):
        raw = _native.CallStatsStruct()
        _check("idgpuGetCallStats", library.idgpuGetCallStats(index, ctypes.byref(raw)))
        entry = CallStats._from_c(raw)
        if include_uncalled or entry.calls > 0:
            result[entry.name] = entry
    return result


def reset_stats() -> None:
    """Sets every function's statistics back to zero (idgpuResetCallStats)."""
    _check("idgpuResetCallStats", _native.library().idgpuResetCallStats())


@dataclasses.dataclass(frozen=True)
class Report:
    """The dispatch report as data: what IDGPU_REPORT prints at exit, read through the stats API.

    dataclasses.asdict(report) gives plain dicts and numbers (for json.dumps).
    """

    version: str
    policy: str
    library: Optional[str]
    functions: Dict[str, CallStats]
    calls: int
    native_calls: int
    vendor_calls: int
    failed_calls: int
    gpu_milliseconds: float


def report() -> Report:
    """The dispatch report now: every function called so far, and the totals."""
    functions = stats()
    return Report(
        version=version(), policy=get_policy(), library=library_path(), functions=functions,
        calls=sum(entry.calls for entry in functions.values()),
        native_calls=sum(entry.native_calls for entry in functions.values()),
        vendor_calls=sum(entry.vendor_calls for entry in functions.values()),
        failed_calls=sum(entry.failed_calls for entry in functions.values()),
        gpu_milliseconds=sum(entry.gpu_milliseconds for entry in functions.values()))


def report_text() -> str:
    """The report as the library writes it at exit with IDGPU_REPORT set (idgpuWriteReport)."""
    libc = ctypes.CDLL(None)
    libc.fopen.restype = ctypes.c_void_p
    libc.fopen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    with tempfile.TemporaryDirectory(prefix="idgpu-report-") as directory:
        path = os.path.join(directory, "report.txt")
        stream = libc.fopen(os.fsencode(path), b"w")
        if not stream:
            raise OSError("idgpu: cannot open %s for the report" % path)
        try:
            _check("idgpuWriteReport", _native.library().idgpuWriteReport(stream))
        finally:
            libc.fclose(stream)
        with open(path, encoding="utf-8", errors="replace") as written:
            return written.read()


# --- The vendor libraries --------------------------------------------------------------------

def vendor_library_path(which: str) -> Optional[str]:
    """The vendor library calls go to, 'cufft' or 'cusparse' (idgpuGetVendorLibraryPath).

    Loads it if the process has none yet; None when it cannot be found (IDGPU_LOG=info says where
    idgpu looked).
    """
    if which not in _native.VENDOR_LIBRARIES:
        raise ValueError("idgpu: vendor library %r is not one of %s" % (which, ", ".join(VENDOR_LIBRARIES)))
    path = _native.library().idgpuGetVendorLibraryPath(_native.VENDOR_LIBRARIES[which])
    return os.fsdecode(path) if path else None
