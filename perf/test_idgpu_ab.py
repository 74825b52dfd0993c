#!/usr/bin/env python3
"""CPU self-test of idgpu-ab: .npy parsing, the comparisons, report extraction, and one whole
A/B run with a stand-in launcher and application (no GPU, no idgpu needed).

    python3 perf/test_idgpu_ab.py [--script PATH/TO/idgpu-ab] [unittest options]
"""

import contextlib
import importlib.machinery
import importlib.util
import io
import math
import os
import shutil
import struct
import sys
import tempfile
import textwrap
import unittest


def _load_module():
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "idgpu-ab")
    if "--script" in sys.argv:
        index = sys.argv.index("--script")
        script = sys.argv[index + 1]
        del sys.argv[index:index + 2]
    loader = importlib.machinery.SourceFileLoader("idgpu_ab", script)
    spec = importlib.util.spec_from_loader("idgpu_ab", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module, os.path.abspath(script)


ab, SCRIPT = _load_module()


def npy_bytes(descr, shape, payload, version=1, fortran=False):
    """A .npy file written by hand, as numpy lays it out (header padded to 64 bytes)."""
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, repr(tuple(shape)))
    prefix = 10 if version == 1 else 12
    padding = 64 - (prefix + len(header) + 1) % 64
    header = (header + " " * (padding % 64) + "\n").encode("latin1")
    length = struct.pack("<H", len(header)) if version == 1 else struct.pack("<I", len(header))
    return b"\x93NUMPY" + bytes([version, 0]) + length + header + payload


def floats(values, code="<f"):
    return struct.pack("%s%d%s" % (code[0], len(values), code[1]), *values)


class NpyHeaderTest(unittest.TestCase):
    def test_version_1(self):
        data = npy_bytes("<f4", (2, 3), floats([1, 2, 3, 4, 5, 6]))
        header = ab.parse_npy_header(data)
        self.assertEqual(header.descr, "<f4")
        self.assertEqual(header.shape, (2, 3))
        self.assertFalse(header.fortran_order)
        self.assertEqual(header.count, 6)
        self.assertEqual(header.data_offset % 64, 0)
        self.assertEqual(data[header.data_offset:], floats([1, 2, 3, 4, 5, 6]))

    def test_version_2_and_fortran(self):
        data = npy_bytes("<c16", (4,), b"\0" * 64, version=2, fortran=True)
        header = ab.parse_npy_header(data)
        self.assertEqual(header.version, (2, 0))
        self.assertTrue(header.fortran_order)
        self.assertEqual(header.shape, (4,))
        self.assertEqual(header.data_offset, len(data) - 64)

    def test_scalar_shape(self):
        header = ab.parse_npy_header(npy_bytes("<f8", (), floats([2.5], "<d")))
        self.assertEqual(header.shape, ())
        self.assertEqual(header.count, 1)

    def test_bad_files(self):
        with self.assertRaises(ab.NpyError):
            ab.parse_npy_header(b"not a numpy file at all")
        with self.assertRaises(ab.NpyError):
            ab.parse_npy_header(npy_bytes("<f4", (2,), b"")[:20])  # truncated header
        with self.assertRaises(ab.NpyError):
            ab.parse_npy_header(b"\x93NUMPY\x09\x00\x10\x00" + b" " * 16)  # unknown version
        bad = b"\x93NUMPY\x01\x00" + struct.pack("<H", 6) + b"{'a':1"
        with self.assertRaises(ab.NpyError):
            ab.parse_npy_header(bad)

    def test_dtypes(self):
        self.assertEqual(ab.npy_dtype("<f4"), ("float32", "<"))
        self.assertEqual(ab.npy_dtype(">f8"), ("float64", ">"))
        self.assertEqual(ab.npy_dtype("<c8"), ("complex64", "<"))
        self.assertEqual(ab.npy_dtype(">c16"), ("complex128", ">"))
        self.assertIsNone(ab.npy_dtype("<i4"))
        self.assertIsNone(ab.npy_dtype([("a", "<f4")]))
        self.assertEqual(ab.normalize_dtype("f8"), "float64")
        self.assertEqual(ab.normalize_dtype("Complex64"), "complex64")
        with self.assertRaises(ValueError):
            ab.normalize_dtype("int32")

    def test_decode_byte_orders(self):
        little = ab.decode_values(floats([1.5, -2.0], "<d"), "float64", "<")
        big = ab.decode_values(floats([1.5, -2.0], ">d"), "float64", ">")
        self.assertEqual(list(little), [1.5, -2.0])
        self.assertEqual(list(big), [1.5, -2.0])
        with self.assertRaises(ValueError):
            ab.decode_values(b"\0" * 6, "float32")


class CompareValuesTest(unittest.TestCase):
    def test_identical(self):
        self.assertEqual(ab.compare_values([1.0, -3.0], [1.0, -3.0]), (0.0, 3.0))

    def test_difference(self):
        difference, reference = ab.compare_values([1.0, -4.0, 2.0], [1.0, -4.0, 2.5])
        self.assertEqual((difference, reference), (0.5, 4.0))
        self.assertEqual(ab.relative_difference(difference, reference), 0.125)

    def test_nan_and_inf(self):
        nan, inf = float("nan"), float("inf")
        self.assertEqual(ab.compare_values([nan, 1.0], [nan, 1.0]), (0.0, 1.0))
        self.assertEqual(ab.compare_values([nan, 1.0], [0.0, 1.0])[0], math.inf)
        self.assertEqual(ab.compare_values([1.0, 2.0], [1.0, nan])[0], math.inf)
        self.assertEqual(ab.compare_values([inf, 1.0], [inf, 1.0])[0], 0.0)
        self.assertEqual(ab.compare_values([inf], [-inf])[0], math.inf)

    def test_complex_uses_modulus(self):
        # a = 3+4i (|a| = 5), b = 3+4i + (0.3+0.4i): |a-b| = 0.5
        difference, reference = ab.compare_values([3.0, 4.0], [3.3, 4.4], complex_values=True)
        self.assertAlmostEqual(difference, 0.5)
        self.assertEqual(reference, 5.0)
        with self.assertRaises(ValueError):
            ab.compare_values([1.0], [1.0], complex_values=True)

    def test_lengths_must_match(self):
        with self.assertRaises(ValueError):
            ab.compare_values([1.0], [1.0, 2.0])

    def test_relative_edges(self):
        self.assertEqual(ab.relative_difference(0.0, 0.0), 0.0)
        self.assertEqual(ab.relative_difference(1.0, 0.0), math.inf)
        self.assertEqual(ab.relative_difference(1.0, 4.0), 0.25)


class CompareBytesTest(unittest.TestCase):
    def test_npy_identical_within_different(self):
        base = npy_bytes("<f4", (4,), floats([1, 2, 3, 4]))
        close = npy_bytes("<f4", (4,), floats([1, 2, 3, 4.00001]))
        far = npy_bytes("<f4", (4,), floats([1, 2, 3, 5]))
        self.assertEqual(ab.compare_bytes(base, base, npy=True).verdict, ab.Comparison.IDENTICAL)
        within = ab.compare_bytes(base, close, rtol=1e-5, npy=True)
        self.assertEqual(within.verdict, ab.Comparison.WITHIN)
        self.assertTrue(within.matches)
        self.assertLess(within.rel, 1e-5)
        different = ab.compare_bytes(base, far, rtol=1e-5, npy=True)
        self.assertEqual(different.verdict, ab.Comparison.DIFFERENT)
        self.assertAlmostEqual(different.rel, 0.25)
        self.assertFalse(different.matches)

    def test_npy_byte_order_is_not_a_difference(self):
        little = npy_bytes("<f8", (2,), floats([1.0, 2.0], "<d"))
        big = npy_bytes(">f8", (2,), floats([1.0, 2.0], ">d"))
        result = ab.compare_bytes(little, big, npy=True)
        self.assertEqual(result.verdict, ab.Comparison.IDENTICAL)

    def test_npy_complex64(self):
        a = npy_bytes("<c8", (2,), floats([3, 4, 0, 1]))
        b = npy_bytes("<c8", (2,), floats([3, 4, 0, 1.5]))
        result = ab.compare_bytes(a, b, rtol=0.2, npy=True)
        self.assertEqual(result.verdict, ab.Comparison.WITHIN)
        self.assertAlmostEqual(result.rel, 0.1)

    def test_npy_mismatches(self):
        a = npy_bytes("<f4", (4,), floats([1, 2, 3, 4]))
        self.assertEqual(ab.compare_bytes(a, npy_bytes("<f4", (2, 2), floats([1, 2, 3, 4])), npy=True).verdict,
                         ab.Comparison.DIFFERENT)
        self.assertEqual(ab.compare_bytes(a, npy_bytes("<f8", (4,), floats([1, 2, 3, 4], "<d")), npy=True).verdict,
                         ab.Comparison.DIFFERENT)
        self.assertEqual(ab.compare_bytes(a, a[:-4], npy=True).verdict, ab.Comparison.DIFFERENT)
        ints = npy_bytes("<i4", (1,), b"\1\0\0\0")
        other = npy_bytes("<i4", (1,), b"\2\0\0\0")
        self.assertEqual(ab.compare_bytes(ints, ints, npy=True).verdict, ab.Comparison.IDENTICAL)
        self.assertEqual(ab.compare_bytes(ints, other, npy=True).verdict, ab.Comparison.DIFFERENT)

    def test_raw_float_files(self):
        a = floats([1.0, 2.0, 4.0], "<d")
        b = floats([1.0, 2.0, 4.0000001], "<d")
        self.assertEqual(ab.compare_bytes(a, b, rtol=1e-6, raw_dtype="float64").verdict, ab.Comparison.WITHIN)
        self.assertEqual(ab.compare_bytes(a, b, rtol=1e-9, raw_dtype="f8").verdict, ab.Comparison.DIFFERENT)
        self.assertEqual(ab.compare_bytes(a, a[:8], raw_dtype="float64").verdict, ab.Comparison.DIFFERENT)

    def test_bitwise(self):
        self.assertEqual(ab.compare_bytes(b"abc", b"abc").verdict, ab.Comparison.IDENTICAL)
        self.assertEqual(ab.compare_bytes(b"abc", b"abd").verdict, ab.Comparison.DIFFERENT)

    def test_files(self):
        directory = tempfile.mkdtemp()
        try:
            first = os.path.join(directory, "a.npy")
            second = os.path.join(directory, "b.npy")
            with open(first, "wb") as handle:
                handle.write(npy_bytes("<f4", (1,), floats([1])))
            with open(second, "wb") as handle:
                handle.write(npy_bytes("<f4", (1,), floats([1])))
            self.assertEqual(ab.compare_files(first, second, name="out.npy").verdict, ab.Comparison.IDENTICAL)
            self.assertEqual(ab.compare_files(first, None).verdict, ab.Comparison.DIFFERENT)
            self.assertEqual(ab.compare_files(None, None).verdict, ab.Comparison.DIFFERENT)
        finally:
            shutil.rmtree(directory)


REPORT_OLD = """idgpu dispatch report (pid 11)
function                                          calls     native     vendor   failed
cufftExecC2C                                          1          0          1        0
"""

REPORT_NEW = """idgpu dispatch report (pid 12)
function                                          calls     native     vendor   failed       gpu_ms      timed
cufftPlanMany                                         2          0          2        0        0.000          0
cufftExecC2C                                         10          4          6        0       12.500         10
"""


class HelpersTest(unittest.TestCase):
    def test_extract_last_report(self):
        text = "noise\n" + REPORT_OLD + "more noise\n" + REPORT_NEW + "trailing line from the app\n"
        self.assertEqual(ab.extract_report(text), REPORT_NEW.rstrip("\n"))
        self.assertIsNone(ab.extract_report("no report here\n"))
        empty = "idgpu dispatch report (pid 3)\nfunction  calls native vendor failed\n(no calls)\n"
        self.assertEqual(ab.extract_report(empty), empty.rstrip("\n"))

    def test_summarize_and_order(self):
        self.assertEqual(ab.summarize([3.0, 1.0, 2.0]), (2.0, 1.0, 3.0))
        self.assertIsNone(ab.summarize([]))
        order = ab.run_order(3)
        self.assertEqual(order, [("vendor", 0), ("idgpu", 0), ("idgpu", 1), ("vendor", 1), ("vendor", 2),
                                 ("idgpu", 2)])

    def test_preload_and_command_line(self):
        self.assertEqual(ab.strip_idgpu_preload("/x/lib/libidgpu.so.0:/x/lib/idgpu-stubs/libcufft.so.12:/y/libz.so"),
                         "/y/libz.so")
        self.assertEqual(ab.strip_idgpu_preload(""), "")
        self.assertEqual(ab.split_command_line(["--runs", "2", "--", "app", "--", "x"]),
                         (["--runs", "2"], ["app", "--", "x"]))
        self.assertEqual(ab.split_command_line(["--runs", "2"]), (["--runs", "2"], None))


# A stand-in application: writes out.npy (perturbed on the idgpu side when AB_TEST_DIFFER is set),
# refuses to run when an earlier run's output is still there, and prints a dispatch report on
# the idgpu side, as libidgpu does with IDGPU_REPORT=1.
FAKE_APP = textwrap.dedent("""
    import os, struct, sys
    if os.path.exists("out.npy"):
        sys.exit(3)
    idgpu = os.environ.get("FAKE_IDGPU") == "1"
    values = [1.0, 2.0, 3.0, 4.0]
    if idgpu and os.environ.get("AB_TEST_DIFFER"):
        values[3] = 4.5
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (4,), }"
    header += " " * (64 - (10 + len(header) + 1) % 64) + "\\n"
    with open("out.npy", "wb") as handle:
        handle.write(b"\\x93NUMPY\\x01\\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        handle.write(struct.pack("<4d", *values))
    if idgpu and os.environ.get("IDGPU_REPORT"):
        sys.stderr.write("idgpu dispatch report (pid %d)\\n" % os.getpid())
        sys.stderr.write("function   calls native vendor failed\\n")
        sys.stderr.write("cufftExecZ2Z   1   0   1   0\\n")
    sys.exit(int(os.environ.get("AB_TEST_EXIT", "0")))
""")

FAKE_LAUNCHER = """#!/bin/sh
if [ "$1" = "--" ]; then shift; fi
FAKE_IDGPU=1
export FAKE_IDGPU
exec "$@"
"""


class WholeRunTest(unittest.TestCase):
    def setUp(self):
        self.previous = os.getcwd()
        self.directory = tempfile.mkdtemp()
        os.chdir(self.directory)
        with open("app.py", "w") as handle:
            handle.write(FAKE_APP)
        with open("launcher", "w") as handle:
            handle.write(FAKE_LAUNCHER)
        os.chmod("launcher", 0o755)
        self.saved_env = {name: os.environ.get(name) for name in ("AB_TEST_DIFFER", "AB_TEST_EXIT", "IDGPU_REPORT")}
        for name in self.saved_env:
            os.environ.pop(name, None)

    def tearDown(self):
        os.chdir(self.previous)
        shutil.rmtree(self.directory)
        for name, value in self.saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

    def ab(self, *extra):
        output = io.StringIO()
        with contextlib.redirect_stdout(output):
            status = ab.main(["--runs", "2", "--launcher", "./launcher", "--compare", "out.npy"] + list(extra) +
                             ["--", sys.executable, "app.py"])
        return status, output.getvalue()

    def test_matching_runs(self):
        with open("out.npy", "wb") as handle:
            handle.write(b"precious")  # there before: set aside, restored at the end
        status, output = self.ab()
        self.assertEqual(status, 0, output)
        self.assertIn("ratio vendor/idgpu", output)
        self.assertIn("cufftExecZ2Z", output)
        self.assertIn("out.npy: match in 2/2 idgpu runs", output)
        with open("out.npy", "rb") as handle:
            self.assertEqual(handle.read(), b"precious")
        self.assertEqual([name for name in os.listdir(".") if name.startswith("idgpu-ab-")], [])

    def test_differing_outputs(self):
        os.environ["AB_TEST_DIFFER"] = "1"
        status, output = self.ab()
        self.assertEqual(status, 1, output)
        self.assertIn("DIFFERENT", output)
        status, output = self.ab("--rtol", "0.2")
        self.assertEqual(status, 0, output)

    def test_failing_run(self):
        os.environ["AB_TEST_EXIT"] = "5"
        status, output = self.ab()
        self.assertEqual(status, 1, output)
        self.assertIn("rc 5", output)

    def test_missing_launcher(self):
        error = io.StringIO()
        with contextlib.redirect_stderr(error):
            status = ab.main(["--launcher", "./no-such-launcher", "--", sys.executable, "app.py"])
        self.assertEqual(status, 2)


if __name__ == "__main__":
    unittest.main()
