#!/usr/bin/env bash
# gpu.fft.jit_callbacks: runs jit_callback_client (linked against the vendor cuFFT) three ways
#
#   vendor        the vendor library alone
#   idgpu-auto    LD_PRELOAD=<libidgpu.so.0>, IDGPU_POLICY unset (dispatch as shipped)
#   idgpu-native  LD_PRELOAD=<libidgpu.so.0>, IDGPU_POLICY=native (every plan the native planner takes)
#
# over two groups of plans with JIT (LTO) load and store callbacks: `before` (callbacks set between
# cufftCreate and cufftMakePlan*, as CuPy does) and `after` (set on a made plan), and checks:
#   - the vendor run: the callbacks ran (each output equals the plain plan's on the host-loaded
#     input with the store applied on the host, and is far from the plain transform);
#   - each idgpu run: the status of every call equals the vendor run's (steps.txt) and every
#     output equals the vendor's within rounding (compared in the client, against the vendor run's
#     files);
#   - the dispatch report (IDGPU_REPORT=1): no make or exec call on a plan with callbacks in effect
#     was served natively (counts from the client's called.txt), and those calls were served by
#     the vendor;
#   - the dispatch log (IDGPU_LOG=debug): no make or exec line of a callback plan says [native...],
#     and the log gives a reason naming the callbacks (required under IDGPU_POLICY=native, where
#     every plan of the test would be native without callbacks);
#   - a run of the same plans without callbacks shows which of them dispatch serves natively (all,
#     under IDGPU_POLICY=native): the plans whose callbacks were at stake.
#
# Usage: run_jit_callback_compare.sh --client PATH --idgpu PATH --work DIR [--timeout S]
# Exit: 0 pass, 1 fail, 77 no CUDA device (skipped).
set -u

client="" idgpu="" work="" limit=600
while [ $# -gt 0 ]; do
  case "$1" in
    --client) client=$2; shift 2 ;;
    --idgpu) idgpu=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    --timeout) limit=$2; shift 2 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
done
if [ -z "$client" ] || [ -z "$idgpu" ] || [ -z "$work" ]; then
  echo "usage: $0 --client PATH --idgpu PATH --work DIR [--timeout S]" >&2
  exit 2
fi

failures=0
# shellcheck source=script_lib.sh
. "$(dirname -- "$0")/script_lib.sh"

for file in "$client" "$idgpu"; do
  if [ ! -e "$file" ]; then
    echo "FAIL: missing $file (build the project first)"
    exit 1
  fi
done

# idgpu's settings from the caller's environment are cleared for every run (dispatch must be the
# shipped one, or IDGPU_POLICY=native), except where to find the vendor libraries.
unset_settings=(-u LD_PRELOAD)
while IFS= read -r name; do
  case "$name" in
    IDGPU_VENDOR_*) ;;
    IDGPU_*) unset_settings+=(-u "$name") ;;
  esac
done < <(compgen -e)

# run_client LABEL [env assignments...] -- client arguments...
#   stdout/stderr to $work/LABEL.{out,err}
run_client() {
  local label=$1
  shift
  local assignments=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do assignments+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  run_logged "$label" "$work/$label.out" "$work/$label.err" "${unset_settings[@]}" "${assignments[@]}" -- \
    "$client" "$@"
}

rm -rf "$work"
mkdir -p "$work"
echo "client:   $client"
echo "libidgpu: $idgpu"
echo "work:     $work"

groups=(before after)

# --- The vendor alone ---------------------------------------------------------------------------
step "vendor: the vendor library alone"
for group in "${groups[@]}"; do
  mkdir -p "$work/vendor/$group"
  run_client "vendor.$group" -- callbacks "$group" "$work/vendor/$group"
  rc=$?
  if [ $rc -eq 77 ]; then
    cat "$work/vendor.$group.out"
    echo "no CUDA device: skipped"
    exit 77
  fi
  grep -E '^(RESULT|NOTE|FAIL)' "$work/vendor.$group.out" | sed 's/^/    /'
  if [ $rc -ne 0 ]; then
    show_tail "$work/vendor.$group.err"
    echo "FAIL: the vendor run ($group) failed: the test itself is broken, nothing compared"
    exit 1
  fi
  if grep -q 'idgpu dispatch report' "$work/vendor.$group.err"; then
    fail "vendor ($group): an idgpu report was printed: libidgpu was loaded into the vendor run"
  fi
done

# --- Checks of one idgpu run ----------------------------------------------------------------------

# The statuses of every call, line for line.
compare_steps() {
  local reference=$1 candidate=$2 what=$3
  if [ ! -s "$reference" ] || [ ! -s "$candidate" ]; then
    fail "$what: a steps.txt is missing"
    return
  fi
  if diff -q "$reference" "$candidate" >/dev/null; then
    ok "$what: the statuses of all $(wc -l <"$reference") calls equal the vendor run's"
  else
    fail "$what: statuses differ from the vendor run's (< vendor, > idgpu):"
    diff "$reference" "$candidate" | head -n 30 | sed 's/^/    /'
  fi
}

# The report (stderr, at exit): "idgpu dispatch report (pid N)", a header line, then rows
# "<function> <calls> <native> <vendor> <failed>". called.txt: "<function> <calls> <on callback plans>".
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
    file == 1 { total[$1] = $2; on_callbacks[$1] = $3; order[++count] = $1; next }
    /idgpu dispatch report/ { inside = 1; next }
    inside && $1 == "function" { next }
    inside && NF >= 5 && $2 ~ /^[0-9]+$/ { calls[$1] += $2; native[$1] += $3; vendor[$1] += $4; next }
    inside { inside = 0 }
    END {
      bad = 0
      for (i = 1; i <= count; i++) {
        name = order[i]
        if (!(name in calls)) { printf "BAD %s: missing from the report (the client called it %d times)\n", name, total[name]; bad++; continue }
        printf "ROW %-24s client %4d calls (%d on callback plans); report %4d calls, %4d native, %4d vendor\n", name, total[name], on_callbacks[name], calls[name], native[name], vendor[name]
        if (calls[name] != total[name]) printf "NOTE %s: the report counts %d calls, the client %d\n", name, calls[name], total[name]
        if (on_callbacks[name] == 0) continue
        if (native[name] > total[name] - on_callbacks[name]) {
          printf "BAD %s: %d native of %d calls, %d of them on plans with callbacks: a callback plan was served natively\n", name, native[name], total[name], on_callbacks[name]
          bad++
        }
        if (vendor[name] < on_callbacks[name]) {
          printf "BAD %s: %d calls on callback plans, only %d served by the vendor\n", name, on_callbacks[name], vendor[name]
          bad++
        }
      }
      printf "SUMMARY %d\n", bad
    }' "$called" "$err")
  echo "$result" | grep -v '^SUMMARY' | sed 's/^/    /'
  local bad
  bad=$(echo "$result" | awk '/^SUMMARY/ { print $2 }')
  if [ "${bad:-1}" != "0" ]; then
    fail "$what: the dispatch report shows ${bad:-?} problem(s) above"
  else
    ok "$what: the report counts every make and exec call on a callback plan as served by the vendor"
  fi
}

make_calls='cufftMakePlan1d|cufftMakePlanMany|cufftMakePlanMany64|cufftXtMakePlanMany'
# The api logger's line per call: "[idgpu api] debug: <function>(<arguments>) -> <status> [<path>: <reason>]"
check_log() {
  local err=$1 called=$2 group=$3 policy=$4 what=$5
  local exec_calls='cufftExecC2C|cufftExecZ2Z|cufftXtExec'
  # In `after`, only the cufftExecC2C/Z2Z calls are on callback plans (see the client).
  [ "$group" = after ] && exec_calls='cufftExecC2C|cufftExecZ2Z'
  local lines
  lines=$(grep -cE "\] debug: ($make_calls|cufftExecC2C|cufftExecZ2Z|cufftXtExec)\(" "$err")
  if [ "${lines:-0}" -eq 0 ]; then
    fail "$what: IDGPU_LOG=debug logged no make or exec call"
    return
  fi
  # Make calls count too where every one of them was on a callback plan (in `before`, unless the
  # library refused a plan's callbacks: that plan is made plain, and never executed).
  local checked="$exec_calls"
  if [ "$group" = before ] &&
    awk -v calls="^($make_calls)\$" '$1 ~ calls && $2 != $3 { plain = 1 } END { exit plain }' "$called"; then
    checked="$make_calls|$exec_calls"
  fi
  local native_lines
  native_lines=$(grep -E "\] debug: ($checked)\(" "$err" | grep -E '\[native(:|\])')
  if [ -n "$native_lines" ]; then
    fail "$what: the dispatch log shows callback plans served natively:"
    echo "$native_lines" | head -n 10 | sed 's/^/    /'
  else
    ok "$what: no make or exec line of a callback plan in the dispatch log says native"
  fi
  [ "$group" = before ] || return
  # The reason: lines naming a make call and callbacks, the callback API's own names taken out.
  local reasons count expected
  reasons=$(grep -E "($make_calls)" "$err" |
    sed -E 's/cufftXt(SetJITCallback|SetCallbackSharedSize|SetCallback|ClearCallback)//g' | grep -i 'callback')
  count=$(echo "$reasons" | awk 'NF' | wc -l)
  expected=$(awk -v calls="^($make_calls)\$" '$1 ~ calls { sum += $3 } END { print sum + 0 }' "$called")
  echo "    log lines giving a callback reason for a make call: $count (make calls on callback plans: $expected)"
  echo "$reasons" | awk 'NF' | head -n 4 | sed 's/^/      /'
  if [ "$policy" = native ] && [ "$count" -lt "$expected" ]; then
    fail "$what: under IDGPU_POLICY=native every callback plan overrides the native planner, and the log gives a callback reason for only $count of $expected make calls"
  elif [ "$count" -eq 0 ] && [ "$expected" -gt 0 ]; then
    note "$what: no callback reason logged (dispatch may have picked the vendor for these sizes on this device anyway)"
  fi
}

# The plans without callbacks: where dispatch would have served them natively.
check_plain() {
  local err=$1 out=$2 policy=$3 what=$4
  local exec_rows
  exec_rows=$(awk '
    /idgpu dispatch report/ { inside = 1; next }
    inside && $1 == "function" { next }
    inside && NF >= 5 && $2 ~ /^[0-9]+$/ { if ($1 ~ /^(cufftExecC2C|cufftExecZ2Z|cufftXtExec)$/) { calls += $2; native += $3 } ; next }
    inside { inside = 0 }
    END { print calls + 0, native + 0 }' "$err")
  local calls native
  read -r calls native <<<"$exec_rows"
  local default_native
  default_native=$(awk '/^PLAIN native by default on an H100:/ { print $NF }' "$out")
  echo "    executions of the plans without callbacks: $calls, native: $native (native by default on an H100: ${default_native:-?})"
  if [ "$calls" -eq 0 ]; then
    fail "$what: no report of the plain run"
  elif [ "$policy" = native ] && [ "$native" -ne "$calls" ]; then
    if [ "$native" -eq 0 ]; then
      fail "$what: under IDGPU_POLICY=native none of the test's plans goes native without callbacks: the test tests nothing"
    else
      note "$what: under IDGPU_POLICY=native only $native of $calls plans go native without callbacks"
    fi
  elif [ "$policy" = auto ] && [ "$native" -eq 0 ]; then
    note "$what: on this device dispatch serves none of these plans natively by default: only the IDGPU_POLICY=native run tests the fix"
  else
    ok "$what: $native of $calls plans are native without callbacks (their callbacks were at stake)"
  fi
}

# --- LD_PRELOAD=libidgpu, dispatch as shipped and IDGPU_POLICY=native --------------------------------
for policy in auto native; do
  policy_env=()
  [ "$policy" = native ] && policy_env=(IDGPU_POLICY=native)
  step "idgpu-$policy: LD_PRELOAD=$idgpu ${policy_env[*]:-}"
  for group in "${groups[@]}"; do
    label="idgpu-$policy.$group"
    dir="$work/idgpu-$policy/$group"
    mkdir -p "$dir"
    run_client "$label" LD_PRELOAD="$idgpu" IDGPU_REPORT=1 IDGPU_LOG=debug "${policy_env[@]}" -- \
      callbacks "$group" "$dir" "$work/vendor/$group"
    rc=$?
    grep -E '^(RESULT|NOTE|FAIL)' "$work/$label.out" | sed 's/^/    /'
    if [ $rc -ne 0 ]; then
      show_tail "$work/$label.out"
      fail "$label: the client failed (exit $rc): outputs differ from the vendor's, or a call failed"
    else
      ok "$label: every output equals the vendor's within rounding"
    fi
    compare_steps "$work/vendor/$group/steps.txt" "$dir/steps.txt" "$label"
    check_report "$work/$label.err" "$dir/called.txt" "$label"
    check_log "$work/$label.err" "$dir/called.txt" "$group" "$policy" "$label"
  done
  label="idgpu-$policy.plain"
  mkdir -p "$work/idgpu-$policy/plain"
  run_client "$label" LD_PRELOAD="$idgpu" IDGPU_REPORT=1 "${policy_env[@]}" -- plain "$work/idgpu-$policy/plain"
  rc=$?
  if [ $rc -ne 0 ]; then
    show_tail "$work/$label.out"
    fail "$label: the run of the plans without callbacks failed (exit $rc)"
  fi
  check_plain "$work/$label.err" "$work/$label.out" "$policy" "$label"
done

# --- Callbacks in effect under idgpu ------------------------------------------------------------------
# The vendor run found each applied output far from the plain transform (d_plain > 0.1) and each
# idgpu output is within rounding of the vendor's, so idgpu ran the callbacks too.
step "callbacks in effect"
applied=$(cat "$work"/vendor/*/results.txt 2>/dev/null | grep -c 'verdict=applied')
echo "    vendor outputs with the callbacks applied: $applied (each more than 0.1 from the plain transform)"
[ "$applied" -gt 0 ] || fail "no vendor output with the callbacks applied"

step "result"
if [ $failures -ne 0 ]; then
  echo "$failures check(s) failed (outputs kept in $work)"
  exit 1
fi
# The vendor's outputs (some 3.5 GiB) are only needed to compare: kept on failure.
rm -f "$work"/vendor/*/*.bin
echo "all checks passed"
exit 0
