#!/bin/sh
# Installs what idgpu builds with, from Debian's packages, where it is missing: a C++ compiler,
# CMake, Ninja, spdlog (with fmt), Catch2, CLI11, and Python's venv (the wheel, pyproject.toml). The CUDA
# toolkit (nvcc, cuFFT, cuSPARSE) is a prerequisite this script only checks for.
set -e
need=""
command -v cmake >/dev/null 2>&1 || need="$need cmake"
command -v ninja >/dev/null 2>&1 || need="$need ninja-build"
command -v g++ >/dev/null 2>&1 || need="$need g++"
command -v nm >/dev/null 2>&1 || need="$need binutils"
[ -f /usr/include/spdlog/spdlog.h ] || need="$need libspdlog-dev"
[ -f /usr/include/fmt/format.h ] || need="$need libfmt-dev"
[ -f /usr/include/catch2/catch.hpp ] || [ -f /usr/include/catch2/catch_all.hpp ] || need="$need catch2"
[ -f /usr/include/CLI/CLI.hpp ] || need="$need libcli11-dev"
python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || need="$need python3-venv"
if [ -n "$need" ]; then
  if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
  echo "installing:$need"
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $need
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "the CUDA toolkit (nvcc, cuFFT, cuSPARSE) is required: install it first" >&2
  exit 1
fi
