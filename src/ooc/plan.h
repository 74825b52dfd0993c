// What an out-of-core FFT plan (idgpuOoc*, include/idgpu/idgpu.h) decides on the host before it
// touches the device, kept apart from the GPU executor (ooc/executor.h) so that the CPU tests check
// it: the problem's validity, the budget where the caller gives none, the schedule (ooc/schedule.h)
// and the cuFFT layout of each chunk's transform.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>

#include "ooc/schedule.h"

namespace idgpu::ooc {

// Why `problem` cannot be planned (a size below 1, a batched problem not [batch][1][n], bad element
// bytes, elements or bytes that overflow), or "".
std::string problem_refusal(const Problem& problem);

// The share of the free device memory a plan takes when neither the caller nor
// IDGPU_OOC_DEVICE_BYTES gives a budget.
constexpr double kFreeMemoryShare = 0.8;

// The budget of a plan: `requested` (idgpuOoc*'s deviceBytes) where nonzero, else `configured`
// (IDGPU_OOC_DEVICE_BYTES, 0 when unset) where nonzero, else kFreeMemoryShare of `free_bytes`
// (cudaMemGetInfo). Clamped to the largest long long (a budget is only a bound).
long long resolve_device_bytes(std::size_t requested, long long configured, std::size_t free_bytes);

// The schedule a plan runs: make_schedule with the budget and `work_factor`, sign -1 (one
// schedule serves both signs: see ooc/executor.h), the batched kind for a batched problem and the
// two-phase kind forced for a 3D one. The one-round-trip kind transforms the contiguous axis on the
// host, and the library has no fast host FFT yet; the two-phase kind is one round trip too where
// the whole array fits a slot.
ScheduleResult schedule_for(const Problem& problem, long long device_bytes, double work_factor);

// A cuFFT advanced layout (cufftMakePlanMany64), in place: `batch` transforms of the row-major
// array n[0..rank), element (i_0 .. i_rank-1) of transform b at b * distance + stride * (the
// row-major index of i in n), inembed = onembed = n (or NULL where stride is 1 and distance the
// transform's points: the basic layout).
struct FftLayout {
  int rank = 1;
  std::array<long long, 3> n{1, 1, 1};
  long long stride = 1;
  long long distance = 1;
  long long batch = 1;

  long long points() const { return n[0] * n[1] * n[2]; }     // of one transform (unused n are 1)
  long long elements() const { return points() * batch; }     // of the staged chunk
  bool basic() const { return stride == 1 && distance == points(); }
  bool operator==(const FftLayout& other) const {
    return rank == other.rank && n == other.n && stride == other.stride && distance == other.distance &&
           batch == other.batch;
  }
  std::string to_string() const;
};

// The in-place transform of a staged chunk (ooc/schedule.h, "Staged layout") of shape `staged`
// along `axes`, as one cuFFT plan: axes of length 1 are dropped; the transformed axes must then be
// the last ones (the others a batch of whole transforms: plane slabs, batched 1D, a whole array)
// or the first ones (the others columns side by side: pencils, x-slabs). Empty for any other
// shape, and where no axis is transformed.
std::optional<FftLayout> fft_layout(const std::array<long long, 3>& staged, unsigned axes);

}  // namespace idgpu::ooc
