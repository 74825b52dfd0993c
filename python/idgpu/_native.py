"""Loading libidgpu and declaring its C API (include/idgpu/idgpu.h) for ctypes."""

import ctypes
import os
import threading

# The library's major version, in its file name and SONAME (libidgpu.so.0).
SONAME_MAJOR = 0
SONAME = "libidgpu.so.%d" % SONAME_MAJOR

# Which library the module talks to, in this order. The environment variable names a file; a
# copy already in the process (preloaded by idgpu-run or LD_PRELOAD) is the one serving the
# process's calls, so its statistics are the ones that count; then the copy packaged with this
# module; then the system's search (LD_LIBRARY_PATH, ld.so.cache).
LIBRARY_VARIABLE = "IDGPU_LIBRARY"
PACKAGE_LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", SONAME)

# idgpuStatus_t
STATUS_SUCCESS = 0
STATUS_NAMES = {0: "IDGPU_STATUS_SUCCESS", 1: "IDGPU_STATUS_INVALID_VALUE", 2: "IDGPU_STATUS_NOT_FOUND",
                3: "IDGPU_STATUS_EXECUTION_FAILED"}
STATUS_NOT_FOUND = 2

# idgpuPolicy_t and idgpuVendorLibrary_t, by the names the environment variables use.
POLICIES = {"auto": 0, "vendor": 1, "native": 2}
VENDOR_LIBRARIES = {"cufft": 0, "cusparse": 1}


class CallStatsStruct(ctypes.Structure):
    """idgpuCallStats_t."""

    _fields_ = [
        ("name", ctypes.c_char_p),
        ("calls", ctypes.c_ulonglong),
        ("nativeCalls", ctypes.c_ulonglong),
        ("vendorCalls", ctypes.c_ulonglong),
        ("failedCalls", ctypes.c_ulonglong),
        ("timedCalls", ctypes.c_ulonglong),
        ("gpuMilliseconds", ctypes.c_double),
    ]


# (name, result type, argument types) of every function the module calls.
_PROTOTYPES = [
    ("idgpuGetVersion", ctypes.c_int, []),
    ("idgpuGetVersionString", ctypes.c_char_p, []),
    ("idgpuSetPolicy", ctypes.c_int, [ctypes.c_int]),
    ("idgpuGetPolicy", ctypes.c_int, [ctypes.POINTER(ctypes.c_int)]),
    ("idgpuGetCallStatsCount", ctypes.c_int, []),
    ("idgpuGetCallStats", ctypes.c_int, [ctypes.c_int, ctypes.POINTER(CallStatsStruct)]),
    ("idgpuGetCallStatsByName", ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(CallStatsStruct)]),
    ("idgpuResetCallStats", ctypes.c_int, []),
    ("idgpuWriteReport", ctypes.c_int, [ctypes.c_void_p]),
    ("idgpuGetVendorLibraryPath", ctypes.c_char_p, [ctypes.c_int]),
]


def _candidates():
    """(how, what to dlopen, dlopen mode) in the order the module tries them."""
    explicit = os.environ.get("IDGPU_LIBRARY", "")  # documented in README.md (a CPU test checks)
    if explicit:
        return [("%s=%s" % (LIBRARY_VARIABLE, explicit), explicit, os.RTLD_LOCAL)]
    return [
        ("already loaded", SONAME, os.RTLD_LOCAL | os.RTLD_NOLOAD),
        ("packaged", PACKAGE_LIBRARY, os.RTLD_LOCAL),
        ("system", SONAME, os.RTLD_LOCAL),
    ]


def _open():
    failures = []
    for how, name, mode in _candidates():
        try:
            library = ctypes.CDLL(name, mode=mode)
        except OSError as error:
            failures.append("%s (%s): %s" % (how, name, error))
            continue
        for function, result, arguments in _PROTOTYPES:
            entry = getattr(library, function)
            entry.restype = result
            entry.argtypes = arguments
        return library
    raise OSError("idgpu: libidgpu could not be loaded; tried " + "; ".join(failures))


_library = None
_lock = threading.Lock()


def library():
    """The loaded libidgpu (a ctypes.CDLL), loaded on first use."""
    global _library
    if _library is None:
        with _lock:
            if _library is None:
                _library = _open()
    return _library


class _DlInfo(ctypes.Structure):
    _fields_ = [("dli_fname", ctypes.c_char_p), ("dli_fbase", ctypes.c_void_p),
                ("dli_sname", ctypes.c_char_p), ("dli_saddr", ctypes.c_void_p)]


def library_file():
    """The file the loaded libidgpu was mapped from, as the dynamic loader names it."""
    address = ctypes.cast(library().idgpuGetVersion, ctypes.c_void_p)
    try:
        dladdr = ctypes.CDLL(None).dladdr
    except AttributeError:  # a C library older than glibc 2.34 keeps it in libdl
        dladdr = ctypes.CDLL("libdl.so.2").dladdr
    dladdr.restype = ctypes.c_int
    dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
    info = _DlInfo()
    if dladdr(address, ctypes.byref(info)) == 0 or not info.dli_fname:
        return None
    return os.path.abspath(os.fsdecode(info.dli_fname))
