// What the native paths ask of the current CUDA device, cached per device.
#pragma once

#include <cstddef>

namespace idgpu {

// Compute capability of the current device as major * 10 + minor (e.g. 90); 0 when there is none.
int current_device_arch();

// Peak DRAM bandwidth of the current device in GB/s (read + write, from its memory clock and bus
// width: 2 x clock x bus bytes); 0 when there is none or it does not say. Tells apart devices of
// one compute capability, e.g. an H100 SXM (3352) from an H200 (4800).
int current_device_memory_gbs();

// Dynamic shared memory a block may opt into, the most threads per block and the number of SMs
// of the current device; false when there is no device.
bool current_device_block_limits(std::size_t* shared_bytes, int* threads, int* multiprocessors);

// Size of the current device's L2 cache in bytes; 0 when there is no device.
std::size_t current_device_l2_bytes();

// Copies `bytes` from host to device memory and returns once they are in device memory, as a
// cudaError_t (an int here, to keep this header free of CUDA's). cudaMemcpy from pageable memory
// may return with its DMA still in flight, ordered only on the legacy default stream: a kernel on
// a non-blocking stream (a caller's, or a plan's own at plan time) could then read the old
// contents. The copy runs on a stream of its own, synchronised, so no other stream is waited for.
int copy_to_device(void* device, const void* host, std::size_t bytes);

}  // namespace idgpu
