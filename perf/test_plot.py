#!/usr/bin/env python3
"""CPU test of plot.py on a synthetic idgpu-bench CSV: which rows land in which figure, and
one whole run that writes the PNGs. Exits 77 (skipped) where matplotlib is not installed.

    python3 perf/test_plot.py [unittest options]
"""

import importlib.util
import os
import sys
import tempfile
import unittest

try:
    import matplotlib  # noqa: F401  (only whether it is there)
except ImportError:
    print("skipped: matplotlib is not installed")
    sys.exit(77)

_spec = importlib.util.spec_from_file_location("plot", os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                                    "plot.py"))
plot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(plot)

HEADER = ("family,case,params,vendor_ms,idgpu_ms,speedup,bytes,frac_copy_bw_vendor,frac_copy_bw_idgpu,device,"
          "vendor_min_ms,idgpu_min_ms,runs,sets,max_rel_diff,identical,status,"
          "copy_bw_gbs,driver,runtime,cufft,cusparse,idgpu,policy")
DEVICE = "Test GPU"
VERSIONS = "3000.0,13.0,13.0,12.0.0,12.6.3,0.1.0,auto"


def row(family, name, params, speedup, status="ok", frac=(0.5, 0.6)):
    return "%s,%s,%s,1.0,%g,%g,1000,%g,%g,%s,1,1,20,4,0,1,%s,%s" % (
        family, name, params, 1.0 / speedup, speedup, frac[0], frac[1], DEVICE, status, VERSIONS)


ROWS = [
    row("fft", "c2c_f32_n64_b1000", "n=64 batch=1000 out-of-place forward", 1.0),
    "overhead,fft/c2c_f32_n64_b1000/host,host time per call; x,0.01,0.01,1,,,,,,,,21,,,,ok," + VERSIONS,
    row("fft", "c2c_f32_n256", "n=256 batch=262144 out-of-place forward", 1.1),
    row("fft", "c2c_f32_n4096", "n=4096 batch=16384 out-of-place forward", 1.3),
    row("fft", "c2c_f32_n1000", "n=1000 batch=67109 out-of-place forward", 0.9),
    row("fft", "z2z_f64_n1024", "n=1024 batch=32768 out-of-place forward", 1.2),
    row("fft", "sweep13_c2c_f32_n1000", "n=1000 batch=134218 out-of-place forward", 1.0),
    row("fft", "primes_z2z_f64_n2053", "n=2053 batch=16344 out-of-place forward", 1.6),
    row("fft", "r2c_f32_n4096", "n=4096 batch=16384 out-of-place", 0.8),
    row("fft", "c2r_f32_n4096_b1000_inplace", "n=4096 batch=1000 in-place", 0.95),
    row("fft", "c2c2d_f32_1024x1024", "n=1024x1024 batch=64 out-of-place forward", 1.05),
    row("fft", "c2c3d_f32_128^3", "n=128x128x128 batch=32 out-of-place forward", 1.1),
    # A failed case and a mismatch: left out.
    "fft,c2c_f32_n8192,n=8192 batch=8192 out-of-place forward,,,,,,,%s,,,,,,,error: boom,%s" % (DEVICE, VERSIONS),
    row("fft", "c2c_f32_n16384", "n=16384 batch=4096 out-of-place forward", 1.4, status="mismatch: x"),
    row("gtsv", "strided_f32_m256", "gtsv2StridedBatch m=256 batch=65536 stride=256", 4.0),
    row("gtsv", "strided_c64_m1024", "gtsv2StridedBatch m=1024 batch=16384 stride=1024", 3.0),
    row("gtsv", "interleaved_a2_f32_m128", "gtsvInterleavedBatch algo=2 m=128 batch=131072", 1.5),
    row("gtsv", "gtsv2_f64_m1048576", "gtsv2 m=1048576 n=1", 1.2),
    row("gtsv", "gtsv2_nd_f64_m1000", "gtsv2 m=1000 n=1 non-dominant", 2.0),
    row("gtsv", "gtsv2_f32_m1000_n16", "gtsv2 m=1000 n=16", 1.1),
    row("gtsv", "gtsv2_nopivot_f32_m1000", "gtsv2_nopivot m=1000 n=1", 5.0),
]


class PlotTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.csv = os.path.join(self.directory.name, "bench.csv")
        with open(self.csv, "w") as handle:
            handle.write("\n".join([HEADER] + ROWS) + "\n")

    def tearDown(self):
        self.directory.cleanup()

    def test_classification(self):
        run = plot.Run(self.csv)
        groups = {}
        for point in run.points:
            groups.setdefault(point.group.key, []).append((point.series, point.variant, point.size))
        self.assertEqual(sorted(groups["fft_c2c_1d"]), [
            ("c2c f32", "", 256), ("c2c f32", "", 4096), ("c2c f32", "other sizes", 1000),
            ("c2c f32", "sweep13, other sizes", 1000), ("z2z f64", "", 1024), ("z2z f64", "primes, other sizes", 2053)])
        self.assertEqual(sorted(groups["fft_real_1d"]), [("c2r f32", "in-place", 4096), ("r2c f32", "", 4096)])
        self.assertEqual(sorted(groups["fft_multi_d"]), [("c2c f32 2D", "", 1 << 20), ("c2c f32 3D", "", 1 << 21)])
        self.assertEqual(sorted(groups["gtsv_strided_batch"]), [("c64", "", 1024), ("f32", "", 256)])
        self.assertEqual(groups["gtsv_interleaved_batch_a2"], [("f32", "", 128)])
        self.assertEqual(sorted(groups["gtsv_gtsv2"]), [
            ("f32", "16 right-hand sides", 1000), ("f64", "", 1 << 20), ("f64", "non-dominant", 1000)])
        self.assertEqual(groups["gtsv_gtsv2_nopivot"], [("f32", "", 1000)])
        # The overhead case, the failure and the mismatch.
        self.assertEqual(run.skipped, 2)
        self.assertIn("cuFFT 12.0.0", run.caption(plot.FFT_C2C))
        self.assertIn("cuSPARSE 12.6.3", run.caption(plot.GTSV2))

    def test_whole_run(self):
        output = os.path.join(self.directory.name, "figures")
        self.assertEqual(plot.main([self.csv, self.csv, "--label", "a", "--label", "b", "-o", output, "--title", "t",
                                    "--bandwidth", "--overview"]), 0)
        expected = ["fft_c2c_1d", "fft_real_1d", "fft_multi_d", "gtsv_strided_batch", "gtsv_interleaved_batch_a2",
                    "gtsv_gtsv2", "gtsv_gtsv2_nopivot", "overview"]
        self.assertEqual(sorted(os.listdir(output)), sorted(name + ".png" for name in expected))
        for name in expected:
            with open(os.path.join(output, name + ".png"), "rb") as handle:
                self.assertEqual(handle.read(8), b"\x89PNG\r\n\x1a\n", name)

    def test_not_a_bench_csv(self):
        other = os.path.join(self.directory.name, "other.csv")
        with open(other, "w") as handle:
            handle.write("a,b\n1,2\n")
        with self.assertRaises(SystemExit) as raised:
            plot.main([other, "-o", self.directory.name])
        self.assertEqual(raised.exception.code, 1)


if __name__ == "__main__":
    unittest.main()
