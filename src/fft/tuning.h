// Where the native FFT beats the vendor, per device class: data, each row next to the
// measurement that chose it.
#pragma once

#include "core/device_class.h"
#include "fft/descriptor.h"

namespace idgpu::fft {

using idgpu::DeviceClass;

// True when the tuning table says the native 1D C2C/Z2Z plan of length n (batch transforms) is
// faster than the vendor's on a device of this class (core/device_class.h: only the classes a row
// was measured on); otherwise `reason` says why not.
bool native_fft_wins(long long n, long long batch, Precision precision, DeviceClass device, const char** reason);

// The same for a multi-dimensional C2C/Z2Z or a 1D real (R2C/C2R, D2Z/Z2D) transform in the
// default layout: `dims` the rank's lengths (outermost first), `batch` transforms.
bool native_layout_wins(Kind kind, Precision precision, int rank, const long long* dims, long long batch,
                        DeviceClass device, const char** reason);

// The same for a 2D or 3D C2C/Z2Z over the lines of a [dims][S] array (plan_c2c_lines: `lines`
// = S transforms at distance 1), written in that layout or (contiguous_out) each transform
// contiguous, `points` elements a call.
bool native_lines_wins(Precision precision, int rank, long long lines, bool contiguous_out, long long points,
                       DeviceClass device, const char** reason);

}  // namespace idgpu::fft
