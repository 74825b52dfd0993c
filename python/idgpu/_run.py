"""The `idgpu-run` console script: runs the launcher packaged with this module, bin/idgpu-run.

The launcher finds the library beside itself (../lib), so it is run from the package directory
with the same arguments; it replaces this process.
"""

import os
import sys


def launcher_path() -> str:
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "idgpu-run")


def main() -> None:
    launcher = launcher_path()
    if not os.path.isfile(launcher):
        sys.stderr.write("idgpu-run: the launcher is missing from the package (%s)\n" % launcher)
        sys.exit(127)
    sys.stdout.flush()
    sys.stderr.flush()
    # Through sh, so a launcher unpacked without its executable bit still runs.
    os.execv("/bin/sh", ["/bin/sh", launcher] + sys.argv[1:])


if __name__ == "__main__":
    main()
