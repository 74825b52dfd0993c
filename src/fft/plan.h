// cuFFT plans as idgpu holds them: the handle table the library owns, the plan object, and the
// slot where a native plan plugs in.
#pragma once

#include <cufft.h>
#include <cuda_runtime_api.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <deque>
#include <vector>

#include "core/api.h"
#include "fft/descriptor.h"

namespace idgpu::fft {

// What an executor needs for one transform.
struct ExecArgs {
  const void* input;
  void* output;
  int direction;  // CUFFT_FORWARD or CUFFT_INVERSE (C2C); ignored for R2C/C2R
  cudaStream_t stream;
  void* work_area;
};

// A plan of our own kernels: a tree whose leaves are kernel launches, built by a solver of the
// planner registry. The FFT kernels fill this in; the vendor-compatible shell around it (handles,
// work area, stream, statistics) is already here.
class NativePlan {
 public:
  virtual ~NativePlan() = default;
  virtual const char* name() const = 0;
  virtual std::size_t work_size() const = 0;
  // kNotServed (before anything is launched or written): the vendor plan serves this call.
  virtual cufftResult execute(const ExecArgs& args) const = 0;
};

// What NativePlan::execute returns when it cannot serve a call that the vendor can (e.g. no
// memory for an in-place execution's scratch): not a cuFFT status, never returned to callers.
inline constexpr cufftResult kNotServed = static_cast<cufftResult>(0x1d6000);

// A solver answers "do I apply to this problem?" and, if so, builds a plan (FFTW's applicable() /
// mkplan()). The vendor is the last solver and is not in this list: a descriptor no native solver
// takes, or takes slower than the vendor, is a vendor plan.
class Solver {
 public:
  virtual ~Solver() = default;
  virtual const char* name() const = 0;
  // Returns null with `reason` set when the solver does not apply.
  virtual std::unique_ptr<NativePlan> make(const Descriptor& descriptor, const char** reason) const = 0;
};

const std::vector<const Solver*>& solvers();

class Plan {
 public:
  cufftHandle vendor = -1;  // the vendor plan behind this one (created with the handle)
  std::optional<Descriptor> descriptor;  // set once a plan was made
  // For the dispatch report, set with the descriptor: its text interned (stats::intern_shape), and
  // the native plan's name interned, so that an exec carries both without formatting anything.
  std::uint32_t shape = 0;
  const char* native_name = "";
  std::unique_ptr<NativePlan> native;    // set when our kernels serve the plan
  bool made = false;
  bool vendor_only = false;  // a vendor-only feature was used on this plan
  // Why the vendor serves this handle (vendor_only): the call that set the feature, for the
  // dispatch log of every later make and exec.
  std::string vendor_only_reason;
  // A work area idgpu allocated for the vendor plan behind a native one, when the plan was
  // pinned to the vendor after the caller had sized its own area from the native plan (and
  // turned auto-allocation off): the caller's area may be too small for the vendor's plan.
  bool owns_vendor_work_area = false;
  bool vendor_made = false;  // the vendor plan exists (always, unless a native plan was chosen)
  cudaStream_t stream = nullptr;
  bool auto_allocate = true;
  void* work_area = nullptr;
  // A native plan's own work area when auto-allocation is on.
  void* owned_work_area = nullptr;

  ~Plan();
};

// The cufftHandle space belongs to idgpu: a handle from our cufftCreate works in every other call
// of ours. Lookups are lock-free (one acquire load); creation and destruction take a mutex.
class HandleTable {
 public:
  static constexpr int kChunkBits = 10;
  static constexpr int kChunkSize = 1 << kChunkBits;
  static constexpr int kMaxChunks = 4096;  // 4M live handles

  // Returns the new handle, or -1 when the table is full.
  cufftHandle insert(std::unique_ptr<Plan> plan);
  // Null for an unknown or destroyed handle.
  Plan* find(cufftHandle handle) const;
  std::unique_ptr<Plan> remove(cufftHandle handle);
  std::size_t live() const;

  ~HandleTable();

 private:
  std::atomic<Plan*>* slot(cufftHandle handle) const;

  mutable std::mutex mutex_;
  std::atomic<std::atomic<Plan*>*> chunks_[kMaxChunks] = {};
  std::deque<cufftHandle> free_;
  cufftHandle next_ = 1;
  std::size_t live_ = 0;
};

HandleTable& handles();

}  // namespace idgpu::fft
