// Where the native tridiagonal solvers beat the vendor, per device class: data, each entry next to
// the measurement that chose it.
#pragma once

#include "tridiag/problem.h"

namespace idgpu::tridiag {

// An architecture newer than any row asks for: native_wins(problem, kAnyArch) says whether any
// device could make the native side win.
constexpr int kAnyArch = 1 << 20;

// Peak DRAM bandwidth that matches every row (with kAnyArch: could any device win).
constexpr int kAnyBandwidth = -1;

// True when the tuning table says the native solver is faster than the vendor for this problem
// on a device of compute capability `arch` (e.g. 90) and peak DRAM bandwidth `memory_gbs` (GB/s,
// core/device.h: it tells an H100 from an H200); otherwise `reason` says why not.
bool native_wins(const Problem& problem, int arch, int memory_gbs, const char** reason);

}  // namespace idgpu::tridiag
