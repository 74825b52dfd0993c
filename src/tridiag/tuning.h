// Where the native tridiagonal solvers beat the vendor, per device class: data, each entry next to
// the measurement that chose it.
#pragma once

#include "core/device_class.h"
#include "tridiag/problem.h"

namespace idgpu::tridiag {

using idgpu::DeviceClass;
using idgpu::kAnyDevice;

// True when the tuning table says the native solver is faster than the vendor for this problem
// on a device of this class (compute capability and peak DRAM bandwidth, core/device_class.h:
// only the classes a row was measured on); otherwise `reason` says why not. kAnyDevice asks
// whether any measured device class could make the native side win.
bool native_wins(const Problem& problem, DeviceClass device, const char** reason);

// Whether gtsvInterleavedBatch algos 1/2 gather the batch into one block-diagonal system solved by
// gtsv2's chunked diagonal pivoting (kernels/interleaved_pivoting.cu) rather than solve one thread
// a system (kernels/interleaved.cu): long systems in small batches, where a thread's serial chain
// of m steps is the time.
bool gathered_batch_wins(const Problem& problem);

// Whether the gathered gtsvInterleavedBatch algos 1/2 (kernels/interleaved_pivoting.cu) solve one
// block a system rather than the batch as one block-diagonal system level by level over the GPU:
// `configured` 1 or 0 (IDGPU_PIVOT_ONE_BLOCK) decides, -1 takes the measured rule.
bool gathered_one_block_a_system(int m, int batch, int element_bytes, int configured);

}  // namespace idgpu::tridiag
