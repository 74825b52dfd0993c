#!/bin/sh
# Installs idgpu into a scratch prefix, builds tests/install/consumer against it with
# find_package(idgpu), checks that the consumer needs libidgpu ahead of libcufft, and runs it
# (against the fake vendor library the CPU tests build, so no GPU is needed).
#   run_install_consumer.sh BUILD_DIR SOURCE_DIR WORK_DIR FAKE_CUFFT FAKE_CUSPARSE
set -eu
build=$1 source=$2 work=$3 fake_cufft=$4 fake_cusparse=$5
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source/tests/install/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cmake --build "$work/consumer" > "$work/build.log"
needed=$(readelf -d "$work/consumer/consumer" | awk '/NEEDED/ {print $NF}' | tr -d '[]' | tr '\n' ' ')
echo "consumer NEEDED: $needed"
# libidgpu must be needed, and ahead of libcufft where the linker kept that one (with
# --as-needed it drops libcufft: every cufft* reference already resolved to libidgpu).
case "$needed" in
  *libcufft.so.*libidgpu.so.*) echo "libidgpu is not ahead of libcufft"; exit 1 ;;
  *libidgpu.so.*) ;;
  *) echo "the consumer does not need libidgpu"; exit 1 ;;
esac
test -f "$work/prefix/lib/cmake/idgpu/idgpuConfig.cmake" -o -f "$work/prefix/lib64/cmake/idgpu/idgpuConfig.cmake"
test -x "$work/prefix/bin/idgpu-run"
IDGPU_VENDOR_CUFFT=$fake_cufft IDGPU_VENDOR_CUSPARSE=$fake_cusparse IDGPU_LOG=off "$work/consumer/consumer"
