// The device classes the tuning tables were measured on, shared by the FFT and tridiagonal
// tables: a row names the classes its measurement holds for, and a device outside every class
// keeps the vendor (unless IDGPU_POLICY=native asks otherwise).
#pragma once

namespace idgpu {

// A device as the tuning tables see it: compute capability as major * 10 + minor (e.g. 90) and
// peak DRAM bandwidth in GB/s (core/device.h).
struct DeviceClass {
  int arch = 0;
  int memory_gbs = 0;
};

// Wildcards: kAnyDevice falls in every measured class, so a table asked about it answers "could
// the native side win on any device measured" (a host-side check before the device is asked).
constexpr int kAnyArch = -1;
constexpr int kAnyBandwidth = -1;
constexpr DeviceClass kAnyDevice{kAnyArch, kAnyBandwidth};

// A set of measured device classes, one bit each.
using MeasuredClasses = unsigned;
constexpr MeasuredClasses kH100 = 1u << 0;
constexpr MeasuredClasses kH200 = 1u << 1;

// Compute capability alone does not tell an H100 from an H200 (both sm_90), and the two rank the
// same kernels differently, so a class is also a band of peak DRAM bandwidth [min_gbs, max_gbs)
// around the one device it was measured on: H100 SXM 3352 GB/s, H200 4800-4814 GB/s (as CUDA
// reports their memory clock and bus width). Other sm_90 parts such as the H100 PCIe (2000 GB/s)
// and other architectures (sm_80, sm_89, sm_100, sm_120: the kernels run there from PTX, never
// timed) fall in no class and keep the vendor until measured. A GH200 is not told apart: its GPU
// is the same sm_90 die, and with HBM3e (about 4.9 TB/s) it falls in the H200 band, with HBM3
// (about 4.0 TB/s) at the H100 band's edge; no row was timed on one.
struct ClassBand {
  MeasuredClasses id;
  int min_arch;
  int max_arch;
  int min_gbs;
  int max_gbs;
};
constexpr ClassBand kClassBands[] = {
    {kH100, 90, 90, 3000, 4000},
    {kH200, 90, 90, 4500, 5200},
};

// The measured classes `device` falls in (none: 0; kAnyDevice: all).
constexpr MeasuredClasses classes_of(DeviceClass device) {
  MeasuredClasses found = 0;
  for (const ClassBand& band : kClassBands) {
    const bool arch = device.arch == kAnyArch || (device.arch >= band.min_arch && device.arch <= band.max_arch);
    const bool bandwidth = device.memory_gbs == kAnyBandwidth ||
                           (device.memory_gbs >= band.min_gbs && device.memory_gbs < band.max_gbs);
    if (arch && bandwidth) found |= band.id;
  }
  return found;
}

// The reason a tuning table gives for a device in no measured class.
constexpr const char* kUnmeasuredDevice = "this device class was never measured (tuning table): vendor";

}  // namespace idgpu
