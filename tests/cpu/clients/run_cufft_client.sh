#!/bin/sh
# Runs cufft_client.c's program the way an application meets idgpu, and checks where its calls
# went: which library each cufft* symbol bound to (LD_DEBUG=bindings), what idgpu counted
# (IDGPU_REPORT=1), which vendor library idgpu loaded (IDGPU_LOG=info) and what the fake vendor
# recorded (the client prints the fake's log).
#
#   run_cufft_client.sh <case> <client> <fake> <node> <libidgpu> <launcher> <served>
#
#   client    the program, linked against <fake> (a fake libcufft.so.N whose names are in <node>)
#   libidgpu  the path of libidgpu.so.<major>;  launcher  bin/idgpu-run
#   served    "libcufft.so.12, libcufft.so.11 and libcusparse.so.12": the releases idgpu serves
#   case      preload   LD_PRELOAD=libidgpu: the client's symbols bind to libidgpu's entries of
#                       <node>, idgpu counts every call and forwards it to the fake the client
#                       loaded (the instance already in the process)
#             launcher  idgpu-run, with the fake's directory on LD_LIBRARY_PATH: the stand-in of
#                       that SONAME satisfies the client's DT_NEEDED, the symbols bind to libidgpu
#                       as above, and idgpu loads the fake from that directory
#             unserved  LD_PRELOAD=libidgpu, a release idgpu does not serve: the symbols bind to
#                       the fake, no call reaches idgpu, and the process says so at exit
set -u
if [ $# -ne 7 ]; then
  echo "usage: run_cufft_client.sh <case> <client> <fake> <node> <libidgpu> <launcher> <served>" >&2
  exit 2
fi
case_name=$1 client=$2 fake=$3 node=$4 libidgpu=$5 launcher=$6 served=$7
soname=$(basename "$fake")
fake_dir=$(dirname "$fake")
client_name=$(basename "$client")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
out=$work/stdout err=$work/stderr bindings=$work/bindings
failures=0

fail() {
  echo "FAILED: $*"
  failures=$((failures + 1))
}
# expect_line <file> <exact line>
expect_line() {
  grep -qxF -- "$2" "$1" || fail "no line in $(basename "$1"): $2"
}
# expect_match <file> <extended regular expression> [<count>]: the lines matching, <count> of them
# (at least one when no count is given).
expect_match() {
  found=$(grep -cE -- "$2" "$1")
  if [ $# -ge 3 ]; then
    [ "$found" -eq "$3" ] || fail "$found lines (expected $3) in $(basename "$1") match: $2"
  else
    [ "$found" -ge 1 ] || fail "no line in $(basename "$1") matches: $2"
  fi
}
# The characters of a literal string, escaped for grep -E.
literal() {
  printf '%s' "$1" | sed 's/[][\.^$*+?(){}|]/\\&/g'
}

# The fake's directory leads LD_LIBRARY_PATH in every case: the client's run path to it would
# lose to a directory of NVIDIA's libraries there. CUDA_HOME and CUDA_PATH are unset: idgpu's
# search looks there before LD_LIBRARY_PATH.
set -- env -u CUDA_HOME -u CUDA_PATH IDGPU_POLICY=vendor IDGPU_REPORT=1 IDGPU_LOG=info LD_DEBUG=bindings LD_DEBUG_OUTPUT="$work/ld" \
  LD_LIBRARY_PATH="$fake_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
case $case_name in
  preload | unserved) set -- "$@" LD_PRELOAD="$libidgpu" "$client" ;;
  launcher) set -- "$@" "$launcher" "$client" ;;
  *)
    echo "unknown case $case_name" >&2
    exit 2
    ;;
esac
echo "running: $*"
"$@" >"$out" 2>"$err"
status=$?
[ "$status" -eq 0 ] || fail "the client exited with $status"
cat "$work"/ld.* >"$bindings" 2>/dev/null

# The symbols the client called, each once in its output ("client: <symbol> -> <status>").
symbols=$(sed -n 's/^client: \([A-Za-z_0-9]*\) -> .*$/\1/p' "$out" | sort -u)
[ -n "$symbols" ] || fail "the client called nothing"
pid=$(sed -n 's/^client: pid \([0-9]*\)$/\1/p' "$out")

# 1. Bindings: each of the client's cufft* references, asked for in <node>, is bound once (lazily,
#    at its first call) to libidgpu, or to the fake where idgpu does not serve the release.
if [ "$case_name" = unserved ]; then bound_to=$soname; else bound_to=$(basename "$libidgpu"); fi
for symbol in $symbols; do
  expect_match "$bindings" "binding file [^ ]*/$(literal "$client_name") \[0\] to [^ ]*/$(literal "$bound_to") \[0\]: normal symbol \`$symbol' \[$(literal "$node")\]\$" 1
  expect_match "$bindings" "binding file [^ ]*/$(literal "$client_name") \[0\] to .*: normal symbol \`$symbol'" 1
done

# 2. What the fake vendor recorded: no handle it never handed out, and exactly the client's calls,
#    in order, under the symbols the client called; through idgpu, cufftPlan1d arrives as
#    cufftCreate + cufftMakePlan1d (idgpu makes every plan on a handle of its own creation).
expect_match "$out" '^fake: [0-9]+ calls, 0 misuse$' 1
sed -n 's/^client: \([A-Za-z_0-9]*\) -> .*$/\1/p' "$out" >"$work/called"
if [ "$case_name" != unserved ]; then
  sed 's/^cufftPlan1d$/cufftCreate\ncufftMakePlan1d/' "$work/called" >"$work/expected"
else
  cp "$work/called" "$work/expected"
fi
sed -n 's/^fake call: \([A-Za-z_0-9]*\)(.*) -> 0$/\1/p' "$out" >"$work/recorded"
cmp -s "$work/expected" "$work/recorded" ||
  fail "the fake recorded other calls than expected: $(tr '\n' ' ' <"$work/recorded")(expected: $(tr '\n' ' ' <"$work/expected"))"
# The JIT callbacks reached the fake's function of their own ABI, their arguments unchanged (the
# plan translated to the fake's handle): cuFFT 11's older cufftXtSetJITCallback without the
# symbol name, and the one with it (__cufftXtSetJITCallback_12_7 in cuFFT 11).
handle='0x[0-9a-f]+'
case $soname in
  libcufft.so.11)
    expect_match "$out" "^fake call: cufftXtSetJITCallback\($handle, 0xfa7b1000, 0x1234, 0x4, 0xca11e40\) -> 0\$" 1
    expect_match "$out" "^fake call: __cufftXtSetJITCallback_12_7\($handle, $handle, 0xfa7b2000, 0x5678, 0x4, 0xca11e40\) -> 0\$" 1
    ;;
  libcufft.so.12)
    expect_match "$out" "^fake call: cufftXtSetJITCallback\($handle, $handle, 0xfa7b2000, 0x5678, 0x4, 0xca11e40\) -> 0\$" 1
    ;;
esac

# 3. What idgpu saw.
expect_line "$err" "idgpu dispatch report (pid $pid)"
if [ "$case_name" = unserved ]; then
  expect_line "$err" "[idgpu vendor] info: no call reached idgpu: the process loaded $soname ($fake), a vendor release idgpu does not serve (it serves $served)"
  expect_line "$err" "(no calls)"
  expect_line "$err" "the process loaded $soname ($fake), a vendor release idgpu does not serve (it serves $served): calls to it never reach idgpu"
else
  # Every call counted, forwarded to the vendor, none failed ("function calls native vendor
  # failed"); both JIT entry points of cuFFT 11 are counted as cufftXtSetJITCallback.
  sed -n 's/^client: \([A-Za-z_0-9]*\) -> .*$/\1/p' "$out" | sed 's/^__cufftXtSetJITCallback_12_7$/cufftXtSetJITCallback/' |
    sort | uniq -c >"$work/counts"
  while read -r count function; do
    expect_match "$err" "^$function +$count +0 +$count +0\$" 1
  done <"$work/counts"
  expect_match "$err" '^\(no calls\)$' 0
  expect_match "$err" 'does not serve' 0
  # The vendor idgpu loaded is the fake of the client's release: the instance the client loaded,
  # or (the stand-in having taken its SONAME) the file found on LD_LIBRARY_PATH.
  if [ "$case_name" = preload ]; then
    expect_line "$err" "[idgpu vendor] info: $soname: using the instance the process already loaded, $fake"
  else
    expect_line "$err" "[idgpu vendor] info: $soname loaded from $fake"
  fi
fi
expect_match "$err" '^\[idgpu [a-z]+\] (warning|error):' 0

if [ "$failures" -ne 0 ]; then
  echo "--- stdout"
  cat "$out"
  echo "--- stderr"
  cat "$err"
  echo "--- the client's bindings of cufft* symbols"
  grep "binding file [^ ]*/$client_name .*normal symbol \`_*cufft" "$bindings"
  exit 1
fi
echo "passed: $case_name, $client_name against $soname"
