#!/bin/sh
# The launcher's command line (shim/idgpu-run.in): help, version, usage errors and their exit
# statuses, the environment each option gives the program, and an exit report written through
# the options (to a file named by the pid, as JSON that python3's json module reads).
#
#   run_launcher_test.sh <launcher> <version> <report child>
#
#   launcher      bin/idgpu-run;  version  the project's version (VERSION)
#   report child  tests/cpu/api/report_child.cpp's program (makes a few calls, to the fake vendor
#                 named by IDGPU_VENDOR_CUFFT / IDGPU_VENDOR_CUSPARSE)
set -u
if [ $# -ne 3 ]; then
  echo "usage: run_launcher_test.sh <launcher> <version> <report child>" >&2
  exit 2
fi
launcher=$1 version=$2 child=$3

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/stdout err=$work/stderr
failures=0

fail() {
  echo "FAILED: $*"
  failures=$((failures + 1))
}

# run <expected status> <args...>: the launcher's stdout and stderr into $out and $err.
run() {
  expected=$1
  shift
  "$launcher" "$@" >"$out" 2>"$err"
  status=$?
  if [ "$status" -ne "$expected" ]; then
    fail "idgpu-run $* exited $status, expected $expected (stderr: $(head -c 400 "$err"))"
  fi
}
expect_line() {  # <file> <exact line>
  grep -qxF -- "$2" "$1" || fail "no line in $(basename "$1"): $2"
}
expect_text() {  # <file> <fixed text>
  grep -qF -- "$2" "$1" || fail "no '$2' in $(basename "$1")"
}
expect_empty() {  # <file>
  [ ! -s "$1" ] || fail "$(basename "$1") is not empty: $(head -c 400 "$1")"
}

# --- help and version: stdout, status 0 -----------------------------------------------------------
for option in --help -h; do
  run 0 "$option"
  expect_text "$out" "usage: idgpu-run [options] [--] program [args...]"
  expect_text "$out" "--policy auto|vendor|native"
  expect_text "$out" "--report-file PATH"
  expect_empty "$err"
done
run 0 --version
expect_line "$out" "idgpu $version"
expect_empty "$err"
# Options are read up to the program: --help after a program name is the program's.
run 0 --log off -- sh -c 'echo "$1"' sh --help
expect_line "$out" "--help"

# --- usage errors: a message and the usage on stderr, status 2, nothing run -------------------------
run 2
expect_text "$err" "idgpu-run: no program to run"
expect_text "$err" "usage: idgpu-run"
expect_empty "$out"
run 2 --
expect_text "$err" "no program to run"
run 2 --policy native
expect_text "$err" "no program to run"
run 2 --bogus env
expect_text "$err" "idgpu-run: unknown option '--bogus'"
expect_text "$err" "usage: idgpu-run"
expect_empty "$out"
run 2 -x env
expect_text "$err" "unknown option '-x'"
run 2 --policy fastest env
expect_text "$err" "--policy must be auto, vendor or native, not 'fastest'"
expect_empty "$out"
run 2 --policy
expect_text "$err" "--policy needs a value"
run 2 --report=verbose env
expect_text "$err" "--report takes counts, timing, json or timing,json, not 'verbose'"
run 2 --report-file
expect_text "$err" "--report-file needs a value"
run 2 --report-file= env
expect_text "$err" "--report-file needs a path"
run 2 --log loud env
expect_text "$err" "--log must be off, error, warn, info, debug or trace, not 'loud'"

# --- the environment the program gets -------------------------------------------------------------
run 0 --policy native -- env
expect_line "$out" "IDGPU_POLICY=native"
grep -q '^LD_PRELOAD=.*libidgpu\.so' "$out" || fail "LD_PRELOAD does not name libidgpu: $(grep '^LD_PRELOAD=' "$out")"
run 0 --policy=vendor --report=timing,json --report-file "$work/r-%p.json" --log=debug env
expect_line "$out" "IDGPU_POLICY=vendor"
expect_line "$out" "IDGPU_REPORT=timing,json"
expect_line "$out" "IDGPU_REPORT_FILE=$work/r-%p.json"
expect_line "$out" "IDGPU_LOG=debug"
run 0 --report --report-file="$work/x" --log info env
expect_line "$out" "IDGPU_REPORT=counts"
expect_line "$out" "IDGPU_REPORT_FILE=$work/x"
expect_line "$out" "IDGPU_LOG=info"
# A program without --, its arguments as given, its exit status.
run 0 sh -c 'printf "%s|%s\n" "$1" "$2"' sh "a b" --policy
expect_line "$out" "a b|--policy"
run 7 sh -c 'exit 7'
# An existing LD_PRELOAD is kept, after idgpu's.
LD_PRELOAD=libm.so.6 "$launcher" env >"$out" 2>"$err" || fail "idgpu-run with LD_PRELOAD set failed"
grep -q '^LD_PRELOAD=.*libidgpu\.so[^:]*:.*libm\.so\.6$' "$out" ||
  fail "LD_PRELOAD does not keep libm.so.6 after libidgpu: $(grep '^LD_PRELOAD=' "$out")"

# --- an exit report through the options -----------------------------------------------------------
run 0 --log off --report=json --report-file "$work/report-%p.json" -- "$child" calls
expect_line "$out" "child done"
expect_empty "$err"
set -- "$work"/report-*.json
if [ $# -ne 1 ] || [ ! -f "$1" ]; then
  fail "no single report-<pid>.json in $work: $*"
else
  report=$1
  pid=${report##*/report-}
  pid=${pid%.json}
  case "$pid" in
    ''|*[!0-9]*) fail "report file name without a pid: $report" ;;
  esac
  if command -v python3 >/dev/null 2>&1; then
    python3 - "$report" "$pid" "$version" <<'EOF' || fail "the JSON report does not hold what it should"
import json, sys
path, pid, version = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with open(path) as handle:
    report = json.load(handle)
problems = []
if report.get("pid") != pid:
    problems.append("pid %r, file name says %d" % (report.get("pid"), pid))
if report.get("version") != version:
    problems.append("version %r" % report.get("version"))
if "device" not in report or report.get("timing") is not False:
    problems.append("device or timing missing")
functions = {row["function"]: row for row in report["functions"]}
expected = {"cufftCreate": (1, 0, 1, 0), "cufftDestroy": (1, 0, 1, 0), "cufftPlan1d": (1, 0, 0, 1),
            "cusparseSgtsv2_bufferSizeExt": (1, 0, 1, 0)}
for name, counts in expected.items():
    row = functions.get(name)
    if row is None or (row["calls"], row["native"], row["vendor"], row["failed"]) != counts:
        problems.append("function %s: %r" % (name, row))
rows = report["rows"]
for row in rows:
    if set(row) != {"function", "path", "shape", "reason", "calls", "failed"} or row["path"] not in ("native", "vendor", "none"):
        problems.append("row %r" % row)
for name, row in functions.items():
    itemised = sum(r["calls"] for r in rows if r["function"] == name)
    if itemised != row["calls"]:
        problems.append("%s: %d calls in rows, %d in all" % (name, itemised, row["calls"]))
refused = [r for r in rows if r["function"] == "cufftPlan1d"]
if refused != [{"function": "cufftPlan1d", "path": "none", "shape": "", "reason": "", "calls": 1, "failed": 1}]:
    problems.append("cufftPlan1d rows %r" % refused)
sizes = [r for r in rows if r["function"] == "cusparseSgtsv2_bufferSizeExt"]
if len(sizes) != 1 or sizes[0]["shape"] != "f32 m=8 n=1" or sizes[0]["path"] != "vendor":
    problems.append("gtsv rows %r" % sizes)
if not isinstance(report.get("unserved_vendor_libraries"), list):
    problems.append("unserved_vendor_libraries")
for problem in problems:
    print("FAILED: JSON report: " + problem)
sys.exit(1 if problems else 0)
EOF
  else
    echo "python3 not found: the JSON report is checked for its opening only"
    head -c 9 "$report" | grep -qF '{"pid": ' || fail "the JSON report does not open as expected"
  fi
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "idgpu-run: all checks passed"
