#!/usr/bin/env bash
# gpu-check.sh: the one script run on a GPU machine. Builds idgpu for Hopper with warnings as
# errors, runs the GPU tests, the CPU tests and idgpu-bench, and leaves every log (and the
# benchmark's CSV and JSON) under $OUT, nvidia-smi's output first.
#
#   perf/gpu-check.sh [--full] [more idgpu-bench options...]
#
# Arguments go to idgpu-bench (quick grid by default). Environment:
#   OUT             where logs go (default: ./gpu-check-out)
#   BUILD_DIR       build tree (default: build-gpu)
#   JOBS            parallel build jobs (default: all cores)
#   BENCH_TIMEOUT   seconds idgpu-bench may take (default 300; none with --full)
#   GPU_TESTS       a ctest regular expression: only the GPU tests it matches run (default: all)
#   BENCH           0 skips idgpu-bench
#   SANITIZE        0 skips compute-sanitizer (memcheck and racecheck over the native tridiagonal
#                   kernels, on a grid capped at 70000 unknowns per call, over the native FFT
#                   test capped at 40000 points per call, every 50th length of its sweeps, over
#                   the layouts test (2D/3D, real, strided) and the Poisson solver's test (but its
#                   [stream] case) capped at 40000 points per call, the out-of-core FFT's
#                   transforms (complex and real) and argument checks capped at 300000 points,
#                   and the out-of-core Poisson solve's test capped at 100000)
#
# Every step runs even when an earlier one failed (steps that need a build that is not there
# fail at once); the exit status is 1 when any step failed.
set -u -o pipefail

OUT=${OUT:-gpu-check-out}
mkdir -p "$OUT" || exit 1
OUT=$(CDPATH='' cd -- "$OUT" && pwd)
root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
cd "$root" || exit 1
build=${BUILD_DIR:-build-gpu}
jobs=${JOBS:-$(nproc)}
bench_timeout=${BENCH_TIMEOUT:-300}
for argument in "$@"; do
  if [ "$argument" = "--full" ] && [ -z "${BENCH_TIMEOUT:-}" ]; then bench_timeout=0; fi
done

results=()
any_failed=0
step_number=0

# step NAME COMMAND...: runs COMMAND with its output on the terminal and in $OUT/NN-NAME.log.
step() {
  local name=$1
  shift
  local log
  log=$(printf '%s/%02d-%s.log' "$OUT" "$step_number" "$name")
  step_number=$((step_number + 1))
  local start=$SECONDS
  echo "=== $name: $*" | tee "$log"
  "$@" 2>&1 | tee -a "$log"
  local status=$?
  local elapsed=$((SECONDS - start))
  if [ "$status" -eq 0 ]; then
    results+=("PASS  $name (${elapsed}s)")
  else
    results+=("FAIL  $name (exit $status, ${elapsed}s; $log)")
    any_failed=1
  fi
  echo "=== $name: exit $status after ${elapsed}s" | tee -a "$log"
  return 0
}

# A step that cannot run: recorded as failed.
cannot() {
  local name=$1 why=$2
  results+=("FAIL  $name ($why)")
  any_failed=1
  echo "=== $name: not run: $why"
}

# Whether CMake finds package NAME installed system-wide.
system_package() {
  local name=$1
  find /usr/lib /usr/lib64 /usr/share /usr/local/lib /usr/local/lib64 /usr/local/share -maxdepth 4 \
    \( -name "${name}Config.cmake" -o -name "${name}-config.cmake" \) -print -quit 2>/dev/null | grep -q .
}

# shellcheck disable=SC2317  # called through step
environment() {
  echo "date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "host: $(uname -a)"
  echo "cores: $(nproc)"
  echo "commit: $(git rev-parse HEAD 2>/dev/null || echo unknown)"
  git status --short 2>/dev/null | sed 's/^/  /'
  cmake --version | head -n 1
  if command -v nvcc >/dev/null; then nvcc --version | tail -n 2; else echo "nvcc: not on PATH"; fi
}

step nvidia-smi nvidia-smi
step environment environment

configure_args=(-S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DIDGPU_WERROR=ON)
# A prefix of Debian's spdlog, fmt, Catch2 v2 and CLI11 packages, unpacked into .deps/root, is preferred
# where present (a GPU machine may carry other versions, e.g. Catch2 v3, or none).
if [ -d .deps/root/usr ]; then
  echo "using the dependencies unpacked in .deps/root/usr"
  configure_args+=("-DCMAKE_PREFIX_PATH=$root/.deps/root/usr")
else
  for package in spdlog fmt Catch2 CLI11; do
    system_package "$package" || echo "warning: $package does not look installed"
  done
fi
step configure cmake "${configure_args[@]}"
# -k 0: build every target that can be built, so one broken test does not cost the benchmark.
step build cmake --build "$build" -j "$jobs" -- -k 0

if [ -f "$build/CTestTestfile.cmake" ]; then
  gpu_filter=()
  if [ -n "${GPU_TESTS:-}" ]; then gpu_filter=(-R "$GPU_TESTS"); fi
  step ctest-gpu ctest --test-dir "$build" -L gpu "${gpu_filter[@]}" --output-on-failure -j "$jobs" --no-tests=error \
    --timeout 300 --output-junit "$OUT/ctest-gpu.xml"
  step ctest-cpu ctest --test-dir "$build" -LE gpu --output-on-failure -j "$jobs" --timeout 300 \
    --output-junit "$OUT/ctest-cpu.xml"
else
  cannot ctest-gpu "no build tree with tests"
  cannot ctest-cpu "no build tree with tests"
fi

native_test="$build/tests/gpu/idgpu_gpu_tridiag_native"
fft_test="$build/tests/gpu/idgpu_gpu_fft_native"
layouts_test="$build/tests/gpu/idgpu_gpu_fft_layouts"
poisson_test="$build/tests/gpu/idgpu_gpu_poisson"
ooc_test="$build/tests/gpu/idgpu_gpu_ooc"
ooc_poisson_test="$build/tests/gpu/idgpu_gpu_ooc_poisson"
if [ "${SANITIZE:-1}" != 0 ] && [ -x "$native_test" ] && command -v compute-sanitizer >/dev/null; then
  for tool in memcheck racecheck; do
    step "sanitizer-$tool" env IDGPU_TEST_NATIVE_ONLY=1 IDGPU_TEST_MAX_UNKNOWNS=70000 \
      compute-sanitizer --tool "$tool" --error-exitcode 1 --print-limit 20 "$native_test"
    if [ -x "$fft_test" ]; then
      step "sanitizer-fft-$tool" env IDGPU_TEST_MAX_POINTS=40000 IDGPU_TEST_SAMPLE_EVERY=50 \
        compute-sanitizer --tool "$tool" --error-exitcode 1 --print-limit 20 "$fft_test"
    fi
    if [ -x "$layouts_test" ]; then
      step "sanitizer-layouts-$tool" env IDGPU_TEST_MAX_POINTS=40000 \
        compute-sanitizer --tool "$tool" --error-exitcode 1 --print-limit 20 "$layouts_test"
    fi
    # Not [stream]: the sanitizer serialises the streams, so a solve on a non-blocking stream
    # waits for the legacy stream that test holds on purpose.
    if [ -x "$poisson_test" ]; then
      step "sanitizer-poisson-$tool" env IDGPU_TEST_MAX_POINTS=40000 \
        compute-sanitizer --tool "$tool" --error-exitcode 1 --print-limit 20 "$poisson_test" "~[stream]"
    fi
    if [ -x "$ooc_test" ]; then
      step "sanitizer-ooc-$tool" env IDGPU_TEST_MAX_POINTS=300000 \
        compute-sanitizer --tool "$tool" --error-exitcode 1 --print-limit 20 "$ooc_test" \
        "[3d],[1d],[minimum],[bad-input],[real]"
    fi
    if [ -x "$ooc_poisson_test" ]; then
      step "sanitizer-ooc-poisson-$tool" env IDGPU_TEST_MAX_POINTS=100000 \
        compute-sanitizer --tool "$tool" --error-exitcode 1 --print-limit 20 "$ooc_poisson_test"
    fi
  done
fi

# The GPU tests' own logs (the Python clients' runs and reports, the callback client's), for the
# record: one archive.
if [ -d "$build/tests/gpu" ]; then
  (cd "$build/tests/gpu" && find . -maxdepth 3 \( -name '*.err' -o -name '*.out' -o -name 'steps.txt' \) -size -2M -print0 |
    tar czf "$OUT/gpu-test-logs.tgz" --null -T - 2>/dev/null)
fi

if [ "${BENCH:-1}" = 0 ]; then
  echo "=== bench: skipped (BENCH=0)"
elif [ -x "$build/bin/idgpu-bench" ]; then
  step bench timeout --signal=INT --kill-after=30 "$bench_timeout" \
    "$build/bin/idgpu-bench" --csv "$OUT/bench.csv" --json "$OUT/bench.json" "$@"
else
  cannot bench "$build/bin/idgpu-bench was not built"
fi

{
  echo
  echo "gpu-check summary (logs in $OUT):"
  for result in "${results[@]}"; do echo "  $result"; done
} | tee "$OUT/summary.txt"
exit "$any_failed"
