#!/usr/bin/env bash
# gpu.preload_compare: runs preload_client (linked against the vendor cuFFT / cuSPARSE) three ways
#
#   (a) plain                               the vendor libraries serve every call
#   (b) LD_PRELOAD=<libidgpu.so.0>          libidgpu's exported cufft* / gtsv symbols win the binding
#   (c) <idgpu-run> client ...              libidgpu + the stand-ins carrying the vendor SONAMEs
#
# and checks:
#   - every output file of `run` and `graph` is byte-identical (cmp) between (a) and (b), (a) and (c),
#     and the three runs wrote the same set of files;
#   - the bad-input statuses (`status` mode) are equal line by line (a crash of the vendor in (a)
#     accepts any status in (b)/(c));
#   - with LD_DEBUG=bindings (and LD_BIND_NOW=1, so every import is resolved and logged) the
#     client's cufft* and cusparse?gtsv* symbols are bound to libidgpu in (b) and (c), and none to
#     the vendor's file; in (c) the client's other cusparse* symbols go to the stand-in;
#   - with IDGPU_REPORT=1 the report printed at exit in (b) and (c) lists every function the client
#     called (its own list, called.txt) with a nonzero count; (a) prints no report.
#
# Usage: run_preload_compare.sh --client PATH --idgpu PATH --launcher PATH --work DIR [--timeout S]
# Exit: 0 pass, 1 fail, 77 no CUDA device (skipped).
set -u

client="" idgpu="" launcher="" work="" limit=180
while [ $# -gt 0 ]; do
  case "$1" in
    --client) client=$2; shift 2 ;;
    --idgpu) idgpu=$2; shift 2 ;;
    --launcher) launcher=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
if [ -z "$client" ] || [ -z "$idgpu" ] || [ -z "$launcher" ] || [ -z "$work" ]; then
  echo "usage: $0 --client PATH --idgpu PATH --launcher PATH --work DIR [--timeout S]" >&2
  exit 2
fi

failures=0
# shellcheck source=script_lib.sh
. "$(dirname -- "$0")/script_lib.sh"

for file in "$client" "$idgpu" "$launcher"; do
  if [ ! -e "$file" ]; then
    echo "FAIL: missing $file (build the project first)"
    exit 1
  fi
done

# Each client run is time-limited (the `timeout` of coreutils, when present).
# run_client LABEL MODE TARGET [env assignments...] -- [launcher]
#   runs: env ASSIGNMENTS [launcher] client MODE TARGET, stdout/stderr to $work/LABEL.MODE.{out,err}
run_client() {
  local label=$1 mode=$2 target=$3
  shift 3
  local assignments=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do assignments+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  run_logged "$label $mode" "$work/$label.$mode.out" "$work/$label.$mode.err" "${assignments[@]}" -- \
    "$@" "$client" "$mode" "$target"
}

rm -rf "$work"
mkdir -p "$work"
echo "client:   $client"
echo "libidgpu: $idgpu"
echo "launcher: $launcher"
echo "work:     $work"
echo "client's vendor libraries (ldd):"
ldd "$client" 2>/dev/null | grep -E 'libcufft|libcusparse|libcudart' | sed 's/^/    /'

# --- (a) plain --------------------------------------------------------------------------------
step "(a) plain: the vendor libraries"
run_client a run "$work/a/run" IDGPU_REPORT=1 --
rc=$?
if [ $rc -eq 77 ]; then
  cat "$work/a.run.out"
  echo "no CUDA device: skipped"
  exit 77
fi
if [ $rc -ne 0 ]; then
  show_tail "$work/a.run.out"; show_tail "$work/a.run.err"
  echo "FAIL: the plain run (vendor only) failed: the test itself is broken, nothing compared"
  exit 1
fi
grep -m1 '^run:' "$work/a.run.out"
if grep -q 'idgpu dispatch report' "$work/a.run.err"; then
  fail "(a) printed an idgpu report: libidgpu was loaded into the plain run"
fi
run_client a graph "$work/a/graph" --
if [ $? -ne 0 ]; then show_tail "$work/a.graph.err"; fail "(a) graph mode failed"; fi
run_client a status "$work/a/status.txt" --
if [ $? -ne 0 ]; then show_tail "$work/a.status.err"; fail "(a) status mode failed"; fi

# --- (b) LD_PRELOAD=libidgpu -------------------------------------------------------------------
step "(b) LD_PRELOAD=$idgpu"
mkdir -p "$work/b-lddebug"
run_client b run "$work/b/run" LD_PRELOAD="$idgpu" IDGPU_REPORT=1 LD_DEBUG=bindings LD_BIND_NOW=1 \
  LD_DEBUG_OUTPUT="$work/b-lddebug/bindings" --
if [ $? -ne 0 ]; then show_tail "$work/b.run.out"; show_tail "$work/b.run.err"; fail "(b) run mode failed"; fi
run_client b graph "$work/b/graph" LD_PRELOAD="$idgpu" IDGPU_REPORT=1 --
if [ $? -ne 0 ]; then show_tail "$work/b.graph.err"; fail "(b) graph mode failed"; fi
run_client b status "$work/b/status.txt" LD_PRELOAD="$idgpu" --
if [ $? -ne 0 ]; then show_tail "$work/b.status.err"; fail "(b) status mode failed"; fi

# --- (c) idgpu-run ------------------------------------------------------------------------------
step "(c) $launcher"
mkdir -p "$work/c-lddebug"
run_client c run "$work/c/run" IDGPU_REPORT=1 LD_DEBUG=bindings LD_BIND_NOW=1 \
  LD_DEBUG_OUTPUT="$work/c-lddebug/bindings" -- "$launcher"
if [ $? -ne 0 ]; then show_tail "$work/c.run.out"; show_tail "$work/c.run.err"; fail "(c) run mode failed"; fi
run_client c graph "$work/c/graph" IDGPU_REPORT=1 -- "$launcher"
if [ $? -ne 0 ]; then show_tail "$work/c.graph.err"; fail "(c) graph mode failed"; fi
run_client c status "$work/c/status.txt" -- "$launcher"
if [ $? -ne 0 ]; then show_tail "$work/c.status.err"; fail "(c) status mode failed"; fi

# --- Outputs, byte for byte -----------------------------------------------------------------------
compare_dirs() {
  local reference=$1 candidate=$2 what=$3
  local listed_a listed_b
  listed_a=$(cd "$reference" 2>/dev/null && ls -1 -- *.bin 2>/dev/null | sort)
  listed_b=$(cd "$candidate" 2>/dev/null && ls -1 -- *.bin 2>/dev/null | sort)
  if [ -z "$listed_a" ]; then
    fail "$what: the reference run wrote no output files"
    return
  fi
  if [ "$listed_a" != "$listed_b" ]; then
    fail "$what: different sets of output files"
    diff <(echo "$listed_a") <(echo "$listed_b") | sed 's/^/    /'
  fi
  local same=0 different=0 name
  while IFS= read -r name; do
    [ -e "$candidate/$name" ] || continue
    if cmp -s "$reference/$name" "$candidate/$name"; then
      same=$((same + 1))
    else
      different=$((different + 1))
      printf '    DIFFERENT %s: %s\n' "$name" "$(cmp "$reference/$name" "$candidate/$name" 2>&1 | head -n 1)"
    fi
  done <<<"$listed_a"
  if [ $different -ne 0 ]; then
    fail "$what: $different of $((same + different)) output files differ"
  else
    ok "$what: $same output files byte-identical"
  fi
}

step "outputs, byte for byte (cmp)"
for mode in run graph; do
  compare_dirs "$work/a/$mode" "$work/b/$mode" "$mode: (a) plain vs (b) LD_PRELOAD"
  compare_dirs "$work/a/$mode" "$work/c/$mode" "$mode: (a) plain vs (c) idgpu-run"
done

# --- Bad-input statuses --------------------------------------------------------------------------
compare_status() {
  local reference=$1 candidate=$2 what=$3
  if [ ! -s "$reference" ] || [ ! -s "$candidate" ]; then
    fail "$what: a status file is missing"
    return
  fi
  local report
  report=$(awk '
    FNR == 1 { file++ }
    /^#/ || NF < 2 { next }
    file == 1 { order[++count] = $1; vendor[$1] = $2; next }
    { ours[$1] = $2 }
    END {
      differ = 0
      for (i = 1; i <= count; i++) {
        name = order[i]
        mine = (name in ours) ? ours[name] : "(missing)"
        if (vendor[name] == mine) { same++; continue }
        # The vendor crashed, or accepted the call and faulted on the device (status >= 1000).
        if (vendor[name] ~ /^signal:/ || vendor[name] + 0 >= 1000) { printf "    vendor crashed or faulted, accepted: %s vendor=%s idgpu=%s\n", name, vendor[name], mine; accepted++; continue }
        printf "    DIFFERENT %s vendor=%s idgpu=%s\n", name, vendor[name], mine
        differ++
      }
      printf "SUMMARY %d %d %d\n", count, differ, accepted
    }' "$reference" "$candidate")
  echo "$report" | grep -v '^SUMMARY'
  local total differ accepted
  total=$(echo "$report" | awk '/^SUMMARY/ {print $2}')
  differ=$(echo "$report" | awk '/^SUMMARY/ {print $3}')
  accepted=$(echo "$report" | awk '/^SUMMARY/ {print $4 + 0}')
  if [ "${differ:-1}" != "0" ]; then
    fail "$what: ${differ:-?} of ${total:-?} bad-input statuses differ"
  else
    ok "$what: all $total bad-input statuses equal (or accepted: $accepted where the vendor crashed)"
  fi
}

step "bad-input statuses"
compare_status "$work/a/status.txt" "$work/b/status.txt" "(a) plain vs (b) LD_PRELOAD"
compare_status "$work/a/status.txt" "$work/c/status.txt" "(a) plain vs (c) idgpu-run"

# --- Symbol bindings ------------------------------------------------------------------------------
# Binding lines: "binding file <client> [0] to <path>/libidgpu.so.0 [0]: normal symbol `cufftExecC2C' [libcufft.so.12]"
client_base=$(basename -- "$client")
idgpu_base=$(basename -- "$idgpu")
check_bindings() {
  local label=$1 what=$2
  local logs=("$work/$label-lddebug"/bindings.*)
  if [ ! -e "${logs[0]}" ]; then
    fail "$what: LD_DEBUG wrote no bindings file"
    return
  fi
  local table="$work/$label.client-bindings.txt"
  # client symbol -> target file, for the client's own (main program) lookups
  sed -n "s/^.*binding file \([^ ]*\) \[[0-9]*\] to \([^ ]*\) \[[0-9]*\]: normal symbol \`\([^']*\)'.*$/\1 \2 \3/p" \
    "${logs[@]}" | awk -v client="$client_base" '{ n = split($1, parts, "/"); if (parts[n] == client) print $3, $2 }' |
    sort -u >"$table"
  local served bad vendor_bound
  served=$(awk '$1 ~ /^cufft/ || $1 ~ /^cusparse[SDCZ]gtsv/' "$table")
  bad=$(echo "$served" | awk -v lib="$idgpu_base" 'NF { n = split($2, parts, "/"); if (parts[n] != lib) print }')
  vendor_bound=$(echo "$bad" | awk 'NF && $2 !~ /idgpu-stubs/ && $2 ~ /libcufft|libcusparse/')
  local count
  count=$(echo "$served" | awk 'NF' | wc -l)
  echo "    the client's cufft*/cusparse?gtsv* bindings: $count (first lines):"
  echo "$served" | head -n 6 | sed 's/^/      /'
  if [ "$count" -eq 0 ]; then
    fail "$what: no binding of a cufft*/gtsv symbol of the client was logged"
  elif [ -n "$bad" ]; then
    fail "$what: $(echo "$bad" | awk 'NF' | wc -l) client symbols not bound to $idgpu_base:"
    echo "$bad" | head -n 20 | sed 's/^/      /'
    [ -n "$vendor_bound" ] && echo "      (of which bound to the vendor file: $(echo "$vendor_bound" | awk 'NF' | wc -l))"
  else
    ok "$what: all $count cufft*/gtsv symbols of the client bound to $idgpu_base"
  fi
  for symbol in cufftExecC2C cufftPlan1d cufftXtExec cusparseSgtsv2 cusparseZgtsvInterleavedBatch; do
    if ! echo "$served" | awk -v s="$symbol" -v lib="$idgpu_base" '$1 == s { n = split($2, p, "/"); if (p[n] == lib) found = 1 } END { exit !found }'; then
      fail "$what: $symbol of the client is not bound to $idgpu_base"
    fi
  done
  local others
  others=$(awk '$1 ~ /^cusparse/ && $1 !~ /^cusparse[SDCZ]gtsv/' "$table")
  echo "    the client's other cusparse* bindings: $(echo "$others" | awk 'NF' | wc -l), e.g. $(echo "$others" | head -n 1)"
  if [ "$label" = c ]; then
    local astray
    astray=$(echo "$others" | awk 'NF && $2 !~ /idgpu-stubs/')
    if [ -n "$astray" ]; then
      fail "$what: under idgpu-run, client cusparse* symbols bound outside the stand-in:"
      echo "$astray" | head -n 10 | sed 's/^/      /'
    fi
  fi
}

step "symbol bindings (LD_DEBUG=bindings)"
check_bindings b "(b) LD_PRELOAD"
check_bindings c "(c) idgpu-run"

# --- Dispatch report ------------------------------------------------------------------------------
# The report (stderr, at exit): "idgpu dispatch report (pid N)", a header line, then
# "<function> <calls> <native> <vendor> <failed>" rows.
check_report() {
  local err=$1 called=$2 what=$3
  if ! grep -q 'idgpu dispatch report' "$err"; then
    fail "$what: no dispatch report on stderr ($err)"
    return
  fi
  if [ ! -s "$called" ]; then
    fail "$what: the client's list of calls ($called) is missing"
    return
  fi
  local result
  result=$(awk '
    FNR == 1 { file++ }
    file == 1 { expected[$1] = $2; order[++count] = $1; next }
    /idgpu dispatch report/ { inside = 1; next }
    inside && $1 == "function" { next }
    inside && NF >= 5 && $2 ~ /^[0-9]+$/ { calls[$1] += $2; next }
    inside { inside = 0 }
    END {
      for (i = 1; i <= count; i++) {
        name = order[i]
        got = (name in calls) ? calls[name] : 0
        if (got == 0) { printf "MISSING %s (client called it %d times)\n", name, expected[name]; missing++ }
        else if (got != expected[name]) printf "NOTE %s: report %d, client %d\n", name, got, expected[name]
        else matched++
      }
      printf "SUMMARY %d %d %d\n", count, matched, missing
    }' "$called" "$err")
  echo "$result" | grep -v '^SUMMARY' | sed 's/^/    /'
  local summary
  summary=$(echo "$result" | grep '^SUMMARY')
  set -- $summary
  if [ "${4:-1}" != "0" ]; then
    fail "$what: ${4:-?} of the ${2:-?} functions the client called are missing from the report"
  else
    ok "$what: the report lists all ${2} functions the client called (${3} with exactly the client's count)"
  fi
}

step "dispatch report (IDGPU_REPORT=1)"
check_report "$work/b.run.err" "$work/b/run/called.txt" "(b) run"
check_report "$work/b.graph.err" "$work/b/graph/called.txt" "(b) graph"
check_report "$work/c.run.err" "$work/c/run/called.txt" "(c) run"
check_report "$work/c.graph.err" "$work/c/graph/called.txt" "(c) graph"

step "result"
if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "all checks passed"
exit 0
