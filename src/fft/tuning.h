// Where the native FFT beats the vendor, per device class: data, each row next to the
// measurement that chose it.
#pragma once

#include "fft/descriptor.h"

namespace idgpu::fft {

// True when the tuning table says the native 1D C2C/Z2Z plan of length n (batch transforms) is
// faster than the vendor's on a device of compute capability `arch` (e.g. 90); otherwise
// `reason` says why not.
bool native_fft_wins(long long n, long long batch, Precision precision, int arch, const char** reason);

}  // namespace idgpu::fft
