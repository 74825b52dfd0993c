"""CPU tests of the installed idgpu package: no GPU needed, and no vendor library either.

    python -m unittest discover -s python/tests -v

against the package installed from the wheel (pip install .), not the source tree's python/.
"""

import ctypes
import dataclasses
import json
import os
import pathlib
import shutil
import subprocess
import sys
import sysconfig
import unittest

# The library reads its environment once, at load: keep its error log of the refused calls below
# out of the test output.
os.environ["IDGPU_LOG"] = "off"
os.environ.pop("IDGPU_POLICY", None)
os.environ.pop("IDGPU_REPORT", None)

import idgpu  # noqa: E402

SOURCE_ROOT = pathlib.Path(__file__).resolve().parents[2]


def read_version_file():
    return (SOURCE_ROOT / "VERSION").read_text().strip()


def launcher_command():
    script = os.path.join(sysconfig.get_path("scripts"), "idgpu-run")
    return script if os.path.exists(script) else shutil.which("idgpu-run")


def refuse_destroy_of_plan_zero(times):
    """Calls cufftDestroy(0) through the loaded library: refused by idgpu itself, on the CPU."""
    destroy = idgpu._native.library().cufftDestroy
    destroy.restype = ctypes.c_int
    destroy.argtypes = [ctypes.c_int]
    for _ in range(times):
        destroy(0)


class VersionTest(unittest.TestCase):
    def test_version_is_the_version_file(self):
        self.assertEqual(idgpu.version(), read_version_file())

    def test_version_number_matches_the_string(self):
        major, minor, patch = (int(part) for part in read_version_file().split("."))
        self.assertEqual(idgpu.version_number(), major * 10000 + minor * 100 + patch)

    def test_package_version_is_the_library_version(self):
        self.assertEqual(idgpu.__version__, idgpu.version())


class LibraryTest(unittest.TestCase):
    def test_the_packaged_library_is_loaded(self):
        if os.environ.get("IDGPU_LIBRARY"):
            self.skipTest("IDGPU_LIBRARY names the library")
        path = idgpu.library_path()
        self.assertTrue(os.path.isfile(path), path)
        self.assertTrue(os.path.samefile(path, os.path.join(idgpu.package_dir(), "lib", "libidgpu.so.0")), path)

    def test_stand_ins_and_launcher_are_packaged(self):
        self.assertTrue(os.path.isfile(os.path.join(idgpu.package_dir(), "bin", "idgpu-run")))
        if sys.platform.startswith("linux") and os.uname().machine == "x86_64":
            stubs = os.path.join(idgpu.package_dir(), "lib", "idgpu-stubs")
            self.assertEqual(sorted(os.listdir(stubs)), ["libcufft.so.11", "libcufft.so.12", "libcusparse.so.12"])

    def test_vendor_library_path_is_a_file_or_none(self):
        for which in idgpu.VENDOR_LIBRARIES:
            path = idgpu.vendor_library_path(which)
            self.assertTrue(path is None or os.path.exists(path), path)
        with self.assertRaises(ValueError):
            idgpu.vendor_library_path("cublas")


class PolicyTest(unittest.TestCase):
    def tearDown(self):
        idgpu.set_policy("auto")

    def test_default_is_auto(self):
        self.assertEqual(idgpu.get_policy(), "auto")

    def test_set_and_get_round_trip(self):
        for name in ("vendor", "native", "auto"):
            idgpu.set_policy(name)
            self.assertEqual(idgpu.get_policy(), name)

    def test_context_manager_restores_the_previous_policy(self):
        idgpu.set_policy("native")
        with idgpu.policy("vendor") as chosen:
            self.assertEqual(chosen, "vendor")
            self.assertEqual(idgpu.get_policy(), "vendor")
            with idgpu.policy("auto"):
                self.assertEqual(idgpu.get_policy(), "auto")
            self.assertEqual(idgpu.get_policy(), "vendor")
        self.assertEqual(idgpu.get_policy(), "native")

    def test_context_manager_restores_on_an_exception(self):
        with self.assertRaises(KeyError):
            with idgpu.policy("vendor"):
                raise KeyError("inside")
        self.assertEqual(idgpu.get_policy(), "auto")

    def test_bad_values_are_refused_and_change_nothing(self):
        idgpu.set_policy("vendor")
        for bad in ("fast", "AUTO", "", 1, None):
            with self.assertRaises(ValueError):
                idgpu.set_policy(bad)
            with self.assertRaises(ValueError):
                with idgpu.policy(bad):
                    pass
            self.assertEqual(idgpu.get_policy(), "vendor")


class StatsTest(unittest.TestCase):
    def setUp(self):
        idgpu.reset_stats()

    def tearDown(self):
        idgpu.reset_stats()

    def test_a_function_not_called_has_zeros(self):
        self.assertEqual(idgpu.call_stats("cufftExecC2C"), idgpu.CallStats(name="cufftExecC2C"))
        entry = idgpu.call_stats("cusparseSgtsv2StridedBatch")
        self.assertEqual((entry.calls, entry.native_calls, entry.vendor_calls, entry.failed_calls), (0, 0, 0, 0))
        self.assertIsInstance(entry.gpu_milliseconds, float)

    def test_a_name_not_exported_is_a_key_error(self):
        with self.assertRaises(KeyError):
            idgpu.call_stats("cufftNotAFunction")

    def test_every_function_is_listed(self):
        everything = idgpu.stats(include_uncalled=True)
        self.assertIn("cufftPlan1d", everything)
        self.assertIn("cusparseDgtsv2_nopivot", everything)
        self.assertTrue(all(name == entry.name for name, entry in everything.items()))
        self.assertEqual(idgpu.stats(), {})

    def test_calls_are_counted_and_reset(self):
        refuse_destroy_of_plan_zero(2)
        entry = idgpu.call_stats("cufftDestroy")
        self.assertEqual((entry.calls, entry.failed_calls), (2, 2))
        self.assertEqual(list(idgpu.stats()), ["cufftDestroy"])
        idgpu.reset_stats()
        self.assertEqual(idgpu.call_stats("cufftDestroy").calls, 0)

    def test_report_as_data(self):
        refuse_destroy_of_plan_zero(3)
        report = idgpu.report()
        self.assertEqual(report.version, read_version_file())
        self.assertEqual(report.policy, "auto")
        self.assertEqual(list(report.functions), ["cufftDestroy"])
        self.assertEqual((report.calls, report.failed_calls, report.native_calls, report.vendor_calls), (3, 3, 0, 0))
        data = json.loads(json.dumps(dataclasses.asdict(report)))
        self.assertEqual(data["functions"]["cufftDestroy"]["calls"], 3)

    def test_report_text(self):
        self.assertIn("(no calls)", idgpu.report_text())
        refuse_destroy_of_plan_zero(1)
        text = idgpu.report_text()
        self.assertIn("idgpu dispatch report", text)
        self.assertIn("cufftDestroy", text)


@unittest.skipIf(launcher_command() is None, "the idgpu-run console script is not installed")
class LauncherTest(unittest.TestCase):
    def run_launcher(self, *arguments):
        environment = dict(os.environ)
        environment.pop("IDGPU_LIBRARY", None)
        return subprocess.run([launcher_command(), *arguments], env=environment, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=120)

    def test_runs_a_program(self):
        self.assertEqual(self.run_launcher("--", "true").returncode, 0)
        self.assertEqual(self.run_launcher("false").returncode, 1)

    def test_no_program_is_a_usage_error(self):
        result = self.run_launcher()
        self.assertEqual(result.returncode, 2)
        self.assertIn("usage", result.stderr)

    def skip_unless_launcher_has(self, option):
        with open(os.path.join(idgpu.package_dir(), "bin", "idgpu-run")) as script:
            if option not in script.read():
                self.skipTest("this launcher has no " + option)

    def test_help(self):
        self.skip_unless_launcher_has("--help")
        result = self.run_launcher("--help")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("idgpu-run", result.stdout)

    def test_version(self):
        self.skip_unless_launcher_has("--version")
        result = self.run_launcher("--version")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn(idgpu.version(), result.stdout)

    def test_the_policy_option_reaches_the_module(self):
        self.skip_unless_launcher_has("--policy")
        result = self.run_launcher("--policy", "vendor", "--", sys.executable, "-c",
                                   "import idgpu; print(idgpu.get_policy())")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout.strip(), "vendor")

    def test_the_program_talks_to_the_preloaded_library(self):
        probe = "import idgpu, os; print(idgpu.library_path()); print(os.environ['LD_PRELOAD'])"
        result = self.run_launcher("--", sys.executable, "-c", probe)
        self.assertEqual(result.returncode, 0, result.stderr)
        loaded, preload = result.stdout.splitlines()[:2]
        library = os.path.join(idgpu.package_dir(), "lib", "libidgpu.so.0")
        self.assertTrue(os.path.samefile(loaded, library), loaded)
        self.assertTrue(os.path.samefile(preload.split(":")[0], library), preload)


if __name__ == "__main__":
    unittest.main()
