# Shell helpers shared by the GPU test drivers (run_*.sh), sourced after their arguments are read.
#   step TEXT     a heading            fail TEXT   a failed check (counted in $failures)
#   ok TEXT       a passed check       note TEXT   something worth reading that is not a failure
#   limited CMD   runs CMD under a wall-clock limit of $limit seconds (where `timeout` exists)
#   run_logged LABEL OUT ERR [NAME=VALUE...] -- CMD...   runs `env NAME=VALUE... CMD` under the
#                 limit with stdout/stderr to OUT/ERR, prints the command and how it ended, returns
#                 CMD's status
#   show_tail FILE   the last lines of FILE, indented
failures=${failures:-0}
step() { printf '\n=== %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }
ok() { printf 'ok: %s\n' "$*"; }
note() { printf 'NOTE: %s\n' "$*"; }

limited() {
  if command -v timeout >/dev/null 2>&1; then
    timeout --signal=KILL "$limit" "$@"
  else
    "$@"
  fi
}

run_logged() {
  local label=$1 out=$2 err=$3
  shift 3
  local assignments=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do assignments+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  printf -- '--- (%s): env %s %s\n' "$label" "${assignments[*]:-}" "$*"
  local started=$SECONDS
  limited env "${assignments[@]}" "$@" >"$out" 2>"$err"
  local rc=$?
  printf -- '    exit %d after %ds (stdout %s, stderr %s)\n' "$rc" $((SECONDS - started)) "$out" "$err"
  return $rc
}

show_tail() {
  printf -- '    --- last lines of %s:\n' "$1"
  tail -n 25 "$1" | sed 's/^/    | /'
}
