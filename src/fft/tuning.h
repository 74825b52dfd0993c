// Where the native FFT beats the vendor, per device class: data, each row next to the
// measurement that chose it.
#pragma once

#include "fft/descriptor.h"

namespace idgpu::fft {

// The device class a row of the table was measured on: compute capability (e.g. 90) and peak
// DRAM bandwidth in GB/s (core/device.h), which tells an H100 from an H200.
struct DeviceClass {
  int arch = 0;
  int memory_gbs = 0;
};

// True when the tuning table says the native 1D C2C/Z2Z plan of length n (batch transforms) is
// faster than the vendor's on a device of this class; otherwise `reason` says why not.
bool native_fft_wins(long long n, long long batch, Precision precision, DeviceClass device, const char** reason);

}  // namespace idgpu::fft
