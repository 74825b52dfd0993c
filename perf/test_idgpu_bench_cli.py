#!/usr/bin/env python3
"""CPU test of idgpu-bench's command line: usage errors exit 2 with a message, --help exits 0,
--runs=5 and --runs 5 are both accepted, user-given cases (--fft, --gtsv, --poisson, --ooc) become
the expected case ids under --list, and --list --json writes a valid JSON document. Nothing here
needs a GPU.

    python3 perf/test_idgpu_bench_cli.py --bench PATH/TO/idgpu-bench [unittest options]
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest


def _bench_path():
    if "--bench" in sys.argv:
        index = sys.argv.index("--bench")
        path = sys.argv[index + 1]
        del sys.argv[index:index + 2]
        return path
    return os.environ.get("IDGPU_BENCH", "idgpu-bench")


BENCH = _bench_path()
USAGE_ERROR = 2


def bench(*args):
    return subprocess.run([BENCH, *args], capture_output=True, text=True, timeout=120)


def listed_ids(stdout):
    return [line.split()[0] for line in stdout.splitlines() if line.strip()]


class UsageTest(unittest.TestCase):
    def assert_usage_error(self, args, message):
        result = bench(*args)
        self.assertEqual(result.returncode, USAGE_ERROR, "%s: %s%s" % (args, result.stdout, result.stderr))
        self.assertIn("idgpu-bench:", result.stderr)
        self.assertIn(message, result.stderr)
        self.assertEqual(result.stdout, "", args)

    def test_help(self):
        for flag in ("--help", "-h"):
            result = bench(flag)
            self.assertEqual(result.returncode, 0, result.stderr)
            for option in ("--quick", "--full", "--fft", "--gtsv", "--poisson", "--ooc", "--json", "--csv", "--runs",
                           "--progress"):
                self.assertIn(option, result.stdout)

    def test_version(self):
        result = bench("--version")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertRegex(result.stdout, r"^idgpu-bench \d+\.\d+\.\d+")

    def test_unknown_option(self):
        self.assert_usage_error(["--no-such-option"], "--no-such-option")
        self.assert_usage_error(["--list", "stray"], "stray")

    def test_bad_values(self):
        self.assert_usage_error(["--runs", "abc", "--list"], "--runs")
        self.assert_usage_error(["--runs=0", "--list"], "out of range")
        self.assert_usage_error(["--runs"], "--runs")
        self.assert_usage_error(["--warmup", "1", "--list"], "--warmup")
        self.assert_usage_error(["--seed", "-1", "--list"], "--seed")
        self.assert_usage_error(["--check-rtol", "x", "--list"], "--check-rtol")
        self.assert_usage_error(["--interleaved-algos", "0,3", "--list"], "--interleaved-algos")
        self.assert_usage_error(["--quick", "--full", "--list"], "excludes")

    def test_runs_with_and_without_equals(self):
        for args in (["--runs=5"], ["--runs", "5"], ["--seed=0x10"], ["--slow-ms", "2.5"]):
            result = bench(*args, "--list", "--filter", "fft/c2c_f32_n4096")
            self.assertEqual(result.returncode, 0, "%s: %s" % (args, result.stderr))
            self.assertEqual(listed_ids(result.stdout), ["fft/c2c_f32_n4096"])

    def test_named_sweeps(self):
        # The full grid's sweeps, each selected by its prefix: every length 2..4096 with factors
        # <= 13 (489), every 8th prime of the natively served ranges (58 fp32, 32 fp64), and the
        # real lengths and shapes beyond the power-of-two 1D ones (48).
        sweep = listed_ids(bench("--list", "--filter", "sweep13_").stdout)
        self.assertEqual(len(sweep), 489)
        self.assertIn("fft/sweep13_c2c_f32_n4096", sweep)
        self.assertIn("fft/sweep13_c2c_f32_n3003", sweep)  # 3 x 7 x 11 x 13
        self.assertNotIn("fft/sweep13_c2c_f32_n17", sweep)
        primes = listed_ids(bench("--list", "--filter", "primes_").stdout)
        self.assertEqual(len([i for i in primes if "c2c_f32" in i]), 58)
        self.assertEqual(len([i for i in primes if "z2z_f64" in i]), 32)
        self.assertIn("fft/primes_c2c_f32_n4099", primes)
        self.assertIn("fft/primes_z2z_f64_n2053", primes)
        real = listed_ids(bench("--list", "--filter", "real_").stdout)
        self.assertEqual(len(real), 48)
        self.assertIn("fft/real_r2c_f32_n1001", real)
        self.assertIn("fft/real_z2d2d_f64_1000x1000", real)
        self.assertIn("fft/real_c2r3d_f32_256^3", real)

    def test_bad_fft_text(self):
        for text, message in [
            ("c2x,n=64", "unknown FFT kind"),
            ("c2c", "size is missing"),
            ("c2c,n=0", "n=0"),
            ("c2c,n=64x", "n must be"),
            ("c2c,n=2x2x2x2", "at most three"),
            ("c2c,n=64,batch=x", "batch"),
            ("c2c,n=64,batch=0", "out of range"),
            ("c2c,n=64,color=red", "unknown item 'color=red'"),
            ("c2c,n=64,inplace=yes", "takes no value"),
            ("c2c,n=64,n=32", "given twice"),
            ("c2c,n=64,", "empty item"),
            ("z2z,n=64,precision=f32", "contradicts"),
            ("c2c,n=64,precision=f16", "expected f32 or f64"),
            ("c2c,n=64x64,layout=rows", "expected lines or lines-to-contiguous"),
            ("r2c,n=64x64,layout=lines", "C2C and Z2Z only"),
            ("c2c,n=64x64,layout=lines-to-contiguous,inplace", "cannot run in place"),
        ]:
            with self.subTest(text=text):
                self.assert_usage_error(["--list", "--fft", text], message)

    def test_bad_gtsv_text(self):
        for text, message in [
            ("gtsv3,m=64", "unknown tridiagonal API"),
            ("gtsv2", "size is missing"),
            ("gtsv2,m=2", "out of range"),
            ("gtsv2StridedBatch,m=64,n=4", "batch=B"),
            ("gtsv2,m=64,batch=4", "n=N"),
            ("gtsv2,m=64,algo=1", "gtsvInterleavedBatch only"),
            ("gtsvInterleavedBatch,m=64,algo=3", "out of range"),
            ("gtsv2_nopivot,m=64,nondominant", "gtsv2 only"),
            ("gtsv2,m=64,precision=h", "expected s, d, c or z"),
        ]:
            with self.subTest(text=text):
                self.assert_usage_error(["--list", "--gtsv", text], message)

    def test_bad_poisson_text(self):
        for text, message in [
            ("toroidal,n=64", "unknown Poisson boundary"),
            ("periodic", "size is missing"),
            ("periodic,n=1x64x64", "nx must be at least 2"),
            ("periodic,n=64x0x64", "each dimension"),
            ("periodic,n=2x2x2x2", "at most three"),
            ("periodic,n=2048x2048x512", "below 2^31"),
            ("periodic,n=64^4", "n must be"),
            ("neumann,n=64x64x2", "nz >= 3"),
            ("dirichlet,n=64x64", "nz >= 3"),
            ("periodic,n=64,precision=c", "expected s or d"),
            ("periodic,n=64,batch=2", "unknown item 'batch=2'"),
        ]:
            with self.subTest(text=text):
                self.assert_usage_error(["--list", "--poisson", text], message)


    def test_bad_ooc_text(self):
        for text, message in [
            ("x2c,n=64", "unknown out-of-core kind"),
            ("c2c", "size is missing"),
            ("poisson", "size is missing (n=NXxNYxNZ"),
            ("c2c,n=0", "at least 1"),
            ("c2c,n=64x", "n must be"),
            ("c2c,n=2x2x2x2", "at most three"),
            ("c2c,n=2^41", "too large"),
            ("c2c,n=64x64,batch=2", "1D only"),
            ("c2c,n=64,batch=0", "out of range"),
            ("c2c,n=64^3,inplace", "always in place"),
            ("r2c,n=64^3,inverse", "c2c only"),
            ("r2c,n=1", "at least 2 points"),
            ("c2r,n=64x1", "at least 2 points"),
            ("z2z,n=64^3,precision=s", "contradicts"),
            ("c2c,n=64^3,precision=h", "expected s or d"),
            ("c2c,n=64^3,memory=managed", "expected pinned or pageable"),
            ("c2c,n=64^3,chunks=4,budget=2^26", "exclude each other"),
            ("c2c,n=64^3,chunks=0", "out of range"),
            ("c2c,n=64^3,budget=-1", "budget must be"),
            ("c2c,n=64^3,z=neumann", "unknown item 'z=neumann'"),
            ("poisson,n=64^3,batch=2", "unknown item 'batch=2'"),
            ("poisson,n=64x64x1", "nz >= 2"),
            ("poisson,n=64^2", "nz >= 2"),
            ("poisson,n=1x64x64", "nx must be at least 2"),
            ("poisson,n=64^3,z=robin", "expected periodic, neumann or dirichlet"),
            ("poisson,n=64^3,inverse", "c2c only"),
        ]:
            with self.subTest(text=text):
                self.assert_usage_error(["--list", "--ooc", text], message)


class UserCaseTest(unittest.TestCase):
    def list_ids(self, *args):
        result = bench("--list", *args)
        self.assertEqual(result.returncode, 0, result.stderr)
        return listed_ids(result.stdout)

    def test_fft_cases(self):
        self.assertEqual(
            self.list_ids("--fft", "r2c,n=4096,batch=1000", "--fft", "c2c,n=1024x1024,batch=4,inplace,precision=f64",
                          "--fft", "d2z,n=2^12", "--fft", "C2R,n=128x128x128,batch=2", "--fft", "c2c,n=1000"),
            ["fft/r2c_f32_n4096_b1000", "fft/z2z2d_f64_1024x1024_b4_inplace",
             # Without a batch: 2^25 points per call in f64, 2^26 in f32 (as the grids).
             "fft/d2z_f64_n4096_b8192", "fft/c2r3d_f32_128^3_b2", "fft/c2c_f32_n1000_b67109"])
        self.assertEqual(
            self.list_ids("--fft", "c2c,n=256x256,batch=129,layout=lines-to-contiguous",
                          "--fft", "z2z,n=64x64x64,batch=8,layout=lines,inplace"),
            ["fft/c2c2d_f32_256x256_b129_lines_to_contiguous", "fft/z2z3d_f64_64^3_b8_lines_inplace"])

    def test_gtsv_cases(self):
        self.assertEqual(
            self.list_ids("--gtsv", "gtsv2StridedBatch,m=256,batch=65536,precision=d",
                          "--gtsv", "gtsvInterleavedBatch,m=128,precision=z,algo=2",
                          "--gtsv", "gtsv2,m=2^20,n=16", "--gtsv", "gtsv2,m=1000,nondominant",
                          "--gtsv", "gtsv2_nopivot,m=1000,precision=c32"),
            ["gtsv/strided_f64_m256_b65536", "gtsv/interleaved_a2_c64_m128_b131072", "gtsv/gtsv2_f32_m1048576_n16",
             "gtsv/gtsv2_nd_f32_m1000", "gtsv/gtsv2_nopivot_c32_m1000"])

    def test_poisson_cases(self):
        # n is the solver's nx x ny x nz, x first (missing axes 1); N^3 a cube, N^2 a square; 2^K a
        # power of two as elsewhere (so 2^3 is 8, not a cube of 2).
        self.assertEqual(
            self.list_ids("--poisson", "periodic,n=256x256x256,precision=s", "--poisson", "periodic,n=256^3",
                          "--poisson", "Neumann,n=2^8^3,precision=d",
                          "--poisson", "dirichlet,n=512x256x128,precision=f64", "--poisson", "periodic,n=1024^2",
                          "--poisson", "periodic,n=4096x4096", "--poisson", "periodic,n=2^3"),
            ["poisson/periodic_f32_256^3", "poisson/periodic_f32_256^3", "poisson/neumann_f64_256^3",
             "poisson/dirichlet_f64_512x256x128", "poisson/periodic_f32_1024x1024x1",
             "poisson/periodic_f32_4096x4096x1", "poisson/periodic_f32_8x1x1"])
        result = bench("--list", "--poisson", "dirichlet,n=64x32x16")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("n=64x32x16 z=dirichlet", result.stdout)

    def test_poisson_grids(self):
        quick = [i for i in self.list_ids("--quick") if i.startswith("poisson/")]
        self.assertEqual(quick, ["poisson/periodic_f32_128^3", "poisson/dirichlet_f32_128^3"])
        full = self.list_ids("--filter", "poisson/")
        for case in ("poisson/periodic_f32_256^3", "poisson/periodic_f32_512^3", "poisson/periodic_f64_256^3",
                     "poisson/neumann_f32_256^3", "poisson/neumann_f32_512^3", "poisson/neumann_f64_256^3",
                     "poisson/dirichlet_f32_256^3"):
            self.assertIn(case, full)
        self.assertEqual(len(full), len(set(full)))

    def test_ooc_cases(self):
        # FFT shapes outermost first as --fft (N^3 a cube; N with batch=B 1D), Poisson x first as
        # --poisson; the suffixes name what differs from the defaults.
        self.assertEqual(
            self.list_ids("--ooc", "c2c,n=256^3", "--ooc", "r2c,n=256^3,precision=d", "--ooc", "c2c,n=4096,batch=8192",
                          "--ooc", "r2c,n=4096,batch=8192", "--ooc", "poisson,n=256^3", "--ooc",
                          "poisson,n=256^3,z=neumann", "--ooc", "z2d,n=512x256x128,inplace,chunks=4",
                          "--ooc", "c2c,n=1024x1024,inverse,budget=2^28,memory=pageable",
                          "--ooc", "poisson,n=512x256x64,z=dirichlet,precision=d,inplace,budget=0",
                          "--ooc", "C2R,n=2^12,batch=2^10,memory=pinned"),
            ["ooc/c2c3d_f32_256^3", "ooc/d2z3d_f64_256^3", "ooc/c2c_f32_n4096_b8192", "ooc/r2c_f32_n4096_b8192",
             "ooc/poisson_periodic_f32_256^3", "ooc/poisson_neumann_f32_256^3",
             "ooc/z2d3d_f64_512x256x128_inplace_chunks4", "ooc/c2c2d_f32_1024x1024_inverse_budget268435456_pageable",
             "ooc/poisson_dirichlet_f64_512x256x64_inplace_budget0", "ooc/c2r_f32_n4096_b1024"])

    def test_ooc_budgets(self):
        def params(text):
            result = bench("--list", "--ooc", text)
            self.assertEqual(result.returncode, 0, result.stderr)
            return result.stdout
        # By default a quarter of the array the library schedules: the complex array (128 MiB here),
        # a real transform's half spectrum, the Poisson solve's half spectrum [nz][ny][nx/2 + 1].
        self.assertIn("budget=33554432 (32.0 MiB, a quarter of the scheduled array)", params("c2c,n=256^3"))
        self.assertIn("budget=16908288 (16.1 MiB, a quarter of the scheduled array)", params("poisson,n=256^3"))
        self.assertIn("budget=33570816 ", params("r2c,n=4096,batch=8192"))
        # A 2D array is one plane, which a slot holds whole: the least budget instead.
        self.assertIn("the least budget, above a quarter", params("c2c,n=4096x4096"))
        # chunks=K: the library's schedule rule, fewer chunks from more budget.
        eight = params("c2c,n=256^3,chunks=8")
        self.assertIn("at most 8 chunks a phase", eight)
        two = params("c2c,n=256^3,chunks=2")
        budget = lambda text: int(text.split("budget=")[1].split()[0])
        self.assertGreater(budget(two), budget(eight))
        self.assertIn("budget=0 (the library's default)", params("c2c,n=256^3,budget=0"))
        self.assertIn("pageable", params("c2c,n=256^3,memory=pageable"))

    def test_ooc_cases_are_user_cases_only(self):
        self.assertEqual([i for i in self.list_ids("--full") if i.startswith("ooc/")], [])
        self.assertEqual(self.list_ids("--ooc", "c2c,n=64^3", "--fft", "c2c,n=64,batch=10", "--filter", "ooc/"),
                         ["ooc/c2c3d_f32_64^3"])

    def test_batch_default_follows_gtsv_unknowns(self):
        self.assertEqual(self.list_ids("--gtsv-unknowns", "4096", "--gtsv", "strided,m=64"),
                         ["gtsv/strided_f32_m64_b64"])

    def test_user_cases_replace_the_grid_unless_asked(self):
        quick = self.list_ids("--quick")
        self.assertEqual(self.list_ids("--fft", "c2c,n=64,batch=10"), ["fft/c2c_f32_n64_b10"])
        self.assertEqual(self.list_ids("--quick", "--fft", "c2c,n=64,batch=10"), quick + ["fft/c2c_f32_n64_b10"])
        self.assertEqual(self.list_ids("--fft", "c2c,n=64,batch=10", "--gtsv", "gtsv2,m=100", "--filter", "gtsv"),
                         ["gtsv/gtsv2_f32_m100"])


class JsonTest(unittest.TestCase):
    def check_document(self, document, ids):
        self.assertEqual(document["tool"], "idgpu-bench")
        self.assertTrue(document["complete"])
        self.assertEqual([case["id"] for case in document["cases"]], ids)
        self.assertEqual(document["rows"], [])
        header = document["header"]
        for key in ("device", "driver_version", "runtime_version", "vendor_cufft", "vendor_cusparse", "idgpu",
                    "copy_bandwidth_gbs"):
            self.assertIn(key, header)
        self.assertRegex(header["runtime_version"], r"^\d+\.\d+$")
        self.assertEqual(document["options"]["runs"], 5)

    def test_list_json_file(self):
        ids = listed_ids(bench("--list", "--quick").stdout)
        with tempfile.TemporaryDirectory() as directory:
            path = os.path.join(directory, "bench.json")
            result = bench("--list", "--quick", "--runs=5", "--json", path)
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(listed_ids(result.stdout), ids)
            # The tool the README names for checking it, then the content.
            tool = subprocess.run([sys.executable, "-m", "json.tool", path], capture_output=True, text=True)
            self.assertEqual(tool.returncode, 0, tool.stderr)
            with open(path) as handle:
                self.check_document(json.load(handle), ids)

    def test_list_json_stdout(self):
        result = bench("--list", "--runs", "5", "--json", "-", "--fft", "r2c,n=4096,batch=1000", "--gtsv",
                       "gtsv2,m=1000")
        self.assertEqual(result.returncode, 0, result.stderr)
        tool = subprocess.run([sys.executable, "-m", "json.tool"], input=result.stdout, capture_output=True, text=True)
        self.assertEqual(tool.returncode, 0, tool.stderr)
        document = json.loads(result.stdout)
        self.check_document(document, ["fft/r2c_f32_n4096_b1000", "gtsv/gtsv2_f32_m1000"])
        self.assertEqual(document["command"][0], "idgpu-bench")

    def test_list_json_ooc(self):
        result = bench("--list", "--runs", "5", "--json", "-", "--ooc", "poisson,n=256^3,chunks=8")
        self.assertEqual(result.returncode, 0, result.stderr)
        document = json.loads(result.stdout)
        self.check_document(document, ["ooc/poisson_periodic_f32_256^3_chunks8"])
        self.assertIn("at most 8 chunks a phase", document["cases"][0]["params"])
        self.assertIsNone(document["header"]["bus"])  # measured only when the cases run


if __name__ == "__main__":
    unittest.main()
