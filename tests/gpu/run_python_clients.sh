#!/usr/bin/env bash
# gpu.python.<client>: runs one Python client (python/<client>_client.py: torch, cupy or jax)
#
#   (a) plain                          the vendor libraries serve every call
#   (b) LD_PRELOAD=<libidgpu.so.0>     torch and cupy link cuFFT/cuSPARSE (DT_NEEDED), so
#                                      libidgpu's exports serve them; JAX/XLA dlopens the vendor
#                                      libraries by SONAME and looks functions up on that handle,
#                                      so it is NOT expected to reach libidgpu this way (recorded,
#                                      not required)
#   (c) <idgpu-run> python ...         libidgpu + the SONAME stand-ins: every client must reach it
#   (d) IDGPU_POLICY=native <idgpu-run> as (c), with every call that has a native path run natively
#                                      (outputs within 1e-4 relative L2 of (a)), on the kernels
#                                      compiled at run time where a plan has such passes
#
# with IDGPU_REPORT=1 in (b) and (c), and checks: outputs (.npy) of (b) and (c) equal those of (a)
# byte for byte, and the dispatch report on stderr lists the calls the client expects
# (expect.txt, written by the client: e.g. cufftExec* / cufftXtExec*, a gtsv name for JAX's
# tridiagonal_solve) with nonzero counts.
#
# Usage: run_python_clients.sh --client NAME --python PY --scripts DIR --idgpu PATH --launcher PATH
#                              --work DIR [--timeout S]
# Exit: 0 pass, 1 fail, 77 skipped (no python, no numpy / client package, no CUDA device).
set -u

client="" python="python3" scripts="" idgpu="" launcher="" work="" limit=180
while [ $# -gt 0 ]; do
  case "$1" in
    --client) client=$2; shift 2 ;;
    --python) python=$2; shift 2 ;;
    --scripts) scripts=$2; shift 2 ;;
    --idgpu) idgpu=$2; shift 2 ;;
    --launcher) launcher=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
if [ -z "$client" ] || [ -z "$scripts" ] || [ -z "$idgpu" ] || [ -z "$launcher" ] || [ -z "$work" ]; then
  echo "usage: $0 --client NAME --python PY --scripts DIR --idgpu PATH --launcher PATH --work DIR [--timeout S]" >&2
  exit 2
fi

failures=0
# shellcheck source=script_lib.sh
. "$(dirname -- "$0")/script_lib.sh"

if ! command -v "$python" >/dev/null 2>&1; then
  echo "no Python interpreter '$python': skipped"
  exit 77
fi
script="$scripts/${client}_client.py"
checker="$scripts/check_outputs.py"
for file in "$script" "$checker" "$idgpu" "$launcher"; do
  if [ ! -e "$file" ]; then
    echo "FAIL: missing $file"
    exit 1
  fi
done
# The SONAME stand-ins idgpu-run preloads when they are there (IDGPU_STUB_DIR_NAME beside
# libidgpu): without them a client that dlopens cuFFT / cuSPARSE by name (JAX) never reaches
# libidgpu, and (c) would fail as a missing report rather than as the build it is.
for stub in libcufft.so.12 libcusparse.so.12; do
  if [ ! -e "$(dirname -- "$idgpu")/idgpu-stubs/$stub" ]; then
    echo "FAIL: missing $(dirname -- "$idgpu")/idgpu-stubs/$stub (build the idgpu_stub_* targets)"
    exit 1
  fi
done

# Common environment: no JAX preallocation of most of the GPU memory, deterministic hashing.
export XLA_PYTHON_CLIENT_PREALLOCATE=false
export PYTHONHASHSEED=0
export PYTHONDONTWRITEBYTECODE=1
export PYTHONUNBUFFERED=1

# run LABEL [env assignments...] -- [launcher]
run() {
  local label=$1
  shift
  local assignments=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do assignments+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  local extra=()
  [ "$label" != a ] && extra=(--require-gpu)
  run_logged "$label" "$work/$label.out" "$work/$label.err" "${assignments[@]}" -- \
    "$@" "$python" "$script" --out "$work/$label" "${extra[@]}"
}

rm -rf "$work"
mkdir -p "$work"
echo "client:   $client ($script)"
echo "python:   $(command -v "$python")"
echo "libidgpu: $idgpu"
echo "launcher: $launcher"
echo "work:     $work"

step "(a) plain: the vendor libraries"
run a IDGPU_REPORT=1 --
rc=$?
if [ $rc -eq 77 ]; then
  tail -n 5 "$work/a.out"
  echo "skipped: $client, numpy or a CUDA device is not available"
  exit 77
fi
if [ $rc -ne 0 ]; then
  show_tail "$work/a.out"; show_tail "$work/a.err"
  echo "FAIL: the plain run failed: the client itself is broken here, nothing compared"
  exit 1
fi
tail -n 3 "$work/a.out"
if grep -q 'idgpu dispatch report' "$work/a.err"; then
  fail "(a) printed an idgpu report: libidgpu was loaded into the plain run"
fi

step "(b) LD_PRELOAD=$idgpu"
run b LD_PRELOAD="$idgpu" IDGPU_REPORT=1 --
rc=$?
if [ $rc -ne 0 ]; then show_tail "$work/b.out"; show_tail "$work/b.err"; fail "(b) LD_PRELOAD run failed (exit $rc)"; fi

step "(c) $launcher"
run c IDGPU_REPORT=1 -- "$launcher"
rc=$?
if [ $rc -ne 0 ]; then show_tail "$work/c.out"; show_tail "$work/c.err"; fail "(c) idgpu-run run failed (exit $rc)"; fi

# (d) the launcher with IDGPU_POLICY=native: every call idgpu has a native path for runs it, so
# the native kernels meet the client's real call sequence (results within rounding of (a)); the
# kernels compiled at run time too (IDGPU_FFT_RUNTIME_KERNELS=wait: each plan waits for its own,
# where the default would serve the first plans on the general kernel while they compile).
step "(d) IDGPU_POLICY=native IDGPU_FFT_RUNTIME_KERNELS=wait $launcher"
run d IDGPU_REPORT=1 IDGPU_POLICY=native IDGPU_FFT_RUNTIME_KERNELS=wait -- "$launcher"
rc=$?
if [ $rc -ne 0 ]; then show_tail "$work/d.out"; show_tail "$work/d.err"; fail "(d) native run failed (exit $rc)"; fi

step "outputs, byte for byte"
if [ -d "$work/b" ]; then
  "$python" "$checker" compare "$work/a" "$work/b" --label "(a) plain vs (b) LD_PRELOAD" || fail "(b) outputs differ from (a)"
fi
if [ -d "$work/c" ]; then
  "$python" "$checker" compare "$work/a" "$work/c" --label "(a) plain vs (c) idgpu-run" || fail "(c) outputs differ from (a)"
fi

if [ -d "$work/d" ]; then
  "$python" "$checker" compare "$work/a" "$work/d" --rtol 1e-4 --label "(a) plain vs (d) native, within rounding" ||
    fail "(d) outputs differ from (a) beyond rounding"
fi
if [ -f "$work/d.err" ]; then
  echo "(d) dispatch report, IDGPU_POLICY=native:"
  sed -n '/idgpu dispatch report/,$p' "$work/d.err" | sed 's/^/    /'
fi

step "dispatch report (IDGPU_REPORT=1)"
if [ "$client" = jax ]; then
  # JAX dlopens libcufft.so.12 / libcusparse.so.12 itself: a plain preload is not expected to reach it.
  if "$python" "$checker" report "$work/b.err" "$work/a/expect.txt" --label "(b) LD_PRELOAD" --quiet; then
    echo "note: (b) JAX under plain LD_PRELOAD WAS intercepted (not expected; not an error)"
  else
    echo "expected outcome: (b) JAX under plain LD_PRELOAD is not intercepted (it dlopens the vendor libraries by SONAME)"
  fi
else
  "$python" "$checker" report "$work/b.err" "$work/a/expect.txt" --label "(b) LD_PRELOAD" || fail "(b) report"
fi
"$python" "$checker" report "$work/c.err" "$work/a/expect.txt" --label "(c) idgpu-run" || fail "(c) report"

step "result"
if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
exit 0
