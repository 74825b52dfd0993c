"""Checks for run_python_clients.sh.

  check_outputs.py compare DIR_A DIR_B [--label TEXT]
      every case of DIR_A/manifest.txt is in DIR_B with the same dtype, shape and raw bytes
      (numpy.array_equal on the bytes: bitwise, NaN and signed zeros included)
  check_outputs.py report STDERR_FILE EXPECT_FILE [--label TEXT] [--quiet]
      the idgpu dispatch report(s) in STDERR_FILE have, for each regular expression of
      EXPECT_FILE, at least one row whose function matches it with a nonzero call count

Exit: 0 pass, 1 fail, 77 numpy missing.
"""
import argparse
import os
import re
import sys


def load_numpy():
    try:
        import numpy
    except ImportError as error:
        print(f"numpy is missing: {error!r}")
        sys.exit(77)
    return numpy


def read_lines(path):
    with open(path) as file:
        return [line.strip() for line in file if line.strip()]


def compare(args):
    np = load_numpy()
    label = args.label or f"{args.a} vs {args.b}"
    cases = read_lines(os.path.join(args.a, "manifest.txt"))
    other_manifest = os.path.join(args.b, "manifest.txt")
    problems = []
    if not cases:
        problems.append("the reference run saved nothing")
    if os.path.exists(other_manifest):
        other = read_lines(other_manifest)
        if other != cases:
            problems.append(f"different case lists: only in reference {sorted(set(cases) - set(other))}, "
                            f"only in candidate {sorted(set(other) - set(cases))}")
    else:
        problems.append(f"{other_manifest} is missing (the run did not finish)")
    same = 0
    for case in cases:
        path_a = os.path.join(args.a, f"{case}.npy")
        path_b = os.path.join(args.b, f"{case}.npy")
        if not os.path.exists(path_b):
            problems.append(f"{case}: missing")
            continue
        a = np.load(path_a, allow_pickle=False)
        b = np.load(path_b, allow_pickle=False)
        if a.dtype != b.dtype or a.shape != b.shape:
            problems.append(f"{case}: {a.dtype}{a.shape} vs {b.dtype}{b.shape}")
            continue
        if args.rtol is not None and a.dtype.kind in "fc":
            # Within rounding (the native kernels against the vendor's): relative L2 error.
            wa = a.astype(np.complex128).ravel()
            wb = b.astype(np.complex128).ravel()
            if not np.all(np.isfinite(wb)):
                problems.append(f"{case}: {int(np.sum(~np.isfinite(wb)))} elements not finite")
                continue
            norm = np.linalg.norm(wa) or 1.0
            error = np.linalg.norm(wa - wb) / norm
            if error > args.rtol:
                problems.append(f"{case}: relative L2 error {error:.3g} > {args.rtol:.3g}")
                continue
            same += 1
            continue
        bytes_a = np.frombuffer(np.ascontiguousarray(a).tobytes(), dtype=np.uint8)
        bytes_b = np.frombuffer(np.ascontiguousarray(b).tobytes(), dtype=np.uint8)
        if not np.array_equal(bytes_a, bytes_b):
            where = np.flatnonzero(bytes_a != bytes_b)
            elements = np.flatnonzero((a != b).ravel()) if a.dtype.kind in "fc" else []
            detail = ""
            if len(elements):
                diff = np.abs(a.astype(np.complex128).ravel() - b.astype(np.complex128).ravel())
                scale = np.abs(a.astype(np.complex128)).max() or 1.0
                detail = f", {len(elements)} elements differ, max |a-b|/max|a| = {diff.max() / scale:.3g}"
            problems.append(f"{case}: {len(where)} bytes differ{detail}")
            continue
        same += 1
    for problem in problems:
        print(f"    DIFFERENT {problem}")
    if problems:
        print(f"FAIL {label}: {same} of {len(cases)} results {'within rounding' if args.rtol else 'identical'}")
        return 1
    print(f"ok {label}: all {same} results byte-identical")
    return 0


ROW = re.compile(r"^(\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)")


def parse_reports(path):
    """Sums the rows of every report in the file: {function: calls}."""
    calls = {}
    reports = 0
    inside = False
    with open(path, errors="replace") as file:
        for line in file:
            if "idgpu dispatch report" in line:
                inside = True
                reports += 1
                continue
            if not inside:
                continue
            if line.split()[:1] == ["function"]:
                continue
            match = ROW.match(line)
            if match:
                calls[match.group(1)] = calls.get(match.group(1), 0) + int(match.group(2))
            else:
                inside = False
    return reports, calls


def report(args):
    label = args.label or args.stderr
    reports, calls = parse_reports(args.stderr)
    patterns = read_lines(args.expect)
    if reports == 0:
        print(f"    {label}: no idgpu dispatch report in {args.stderr}")
        if not args.quiet:
            print(f"FAIL {label}: no report")
        return 1
    called = {name: count for name, count in calls.items() if count > 0}
    print(f"    {label}: {reports} report(s); functions called: "
          + ", ".join(f"{name}={count}" for name, count in sorted(called.items())))
    missing = []
    for pattern in patterns:
        matched = {name: count for name, count in called.items() if re.search(pattern, name)}
        if matched:
            print(f"    {label}: /{pattern}/ -> " + ", ".join(f"{n}={c}" for n, c in sorted(matched.items())))
        else:
            missing.append(pattern)
    if missing:
        if not args.quiet:
            print(f"FAIL {label}: no reported call matches {missing}")
        return 1
    print(f"ok {label}: the report lists the expected calls ({', '.join(patterns)})")
    return 0


def main():
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command", required=True)
    c = commands.add_parser("compare")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--label")
    c.add_argument("--rtol", type=float, default=None,
                   help="floating-point results within this relative L2 error instead of byte for byte")
    r = commands.add_parser("report")
    r.add_argument("stderr")
    r.add_argument("expect")
    r.add_argument("--label")
    r.add_argument("--quiet", action="store_true")
    args = parser.parse_args()
    return compare(args) if args.command == "compare" else report(args)


if __name__ == "__main__":
    sys.exit(main())
