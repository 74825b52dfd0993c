// Scratch that a native path needs beyond what the vendor's API lets the caller give (a work area
// no larger than the vendor's, a buffer size that is the vendor's), stream-ordered so that a call
// stays asynchronous and capturable into a CUDA graph.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace idgpu {

// Allocates `bytes` on `stream` from idgpu's own memory pool of the current device (not the
// device's default pool, which belongs to the application). The pool keeps up to
// IDGPU_SCRATCH_KEEP bytes of freed scratch mapped (default: 1/16 of the device memory) so that
// the next call does not map its pages again: releasing a 2 GB scratch at every synchronisation
// cost 2.8 ms of a 6.3 ms solve (H100, gtsvInterleavedBatch m = 65536, batch 1000). Where the pool
// cannot be made, the default pool serves. Returns the runtime's error; *pointer is then null.
cudaError_t scratch_allocate(void** pointer, std::size_t bytes, cudaStream_t stream);

// Frees scratch_allocate's memory on `stream` (stream-ordered); null is a no-op.
cudaError_t scratch_free(void* pointer, cudaStream_t stream);

// The bytes of freed scratch the pool keeps: IDGPU_SCRATCH_KEEP where set, else 1/16 of
// `device_bytes`.
long long scratch_keep_bytes(long long configured, std::size_t device_bytes);

}  // namespace idgpu
