// The GPU executor of an out-of-core FFT schedule (ooc/schedule.h), the object behind
// idgpuOocPlan_t (include/idgpu/idgpu.h): Wu's pipeline ("Optimization Techniques for Mapping
// Algorithms and Applications onto CUDA GPU Platforms and CPU-GPU Heterogeneous Platforms", PhD
// thesis, University of Maryland, 2014, chapter 4), with the buffers execute_on_host models.
//
// Per slot in use (min(slot_count, chunks)): a device buffer of slot_bytes and the work area of its
// FFT plans (carved from one allocation), a write-combined pinned buffer for H2D (the host only
// writes it) and an ordinary pinned one for D2H (the host reads it), a non-blocking stream and two
// events: `h2d_done` recorded after the slot's last H2D, `d2h_done` after its last D2H.
//
// Transforms: cuFFT plans made through the library's own entry points (fft/api.h: native where the
// dispatch serves them, the vendor otherwise), in place on the slot's buffer, one per slot and
// distinct layout (ooc/plan.h fft_layout: a slot's plan is bound to its stream and work area; the
// chunks of a phase differ by one unit at most, so a slot holds a handful of plans). Auto-allocation
// is off and each plan runs in its slot's work area. The plans are made before any memory: where
// one needs more work area than the schedule's work_bytes, the schedule is made again with the
// work factor those plans ask for (their work bytes over their chunk's bytes), which gives smaller
// chunks in the same budget; a budget too small even for the least chunk then is refused.
//
// Direction: one schedule, made for sign -1, serves both signs: its phases are C2C transforms along
// different axes, which commute (ooc/schedule.h, "Order of the phases"); the inverse runs the same
// phases in the same order with cuFFT's inverse sign.
//
// The host loop, for each phase in turn, for each chunk j of it in order (slot s, p the slot's
// previous chunk, if the slot still holds one that was not scattered):
//   a. if p: wait for h2d_done[s] (H2D(p) has completed);
//   b. gather(j): the run's segments from the user's data into pinned_in[s] (host threads);
//   c. enqueue H2D(j) on stream s, record h2d_done[s]; enqueue the FFT of j on stream s;
//   d. if p: wait for d2h_done[s] (D2H(p) has completed), then scatter(p): pinned_out[s] into the
//      user's data (host threads);
//   e. enqueue D2H(j) on stream s, record d2h_done[s]; j is now the slot's chunk to scatter.
// At the end of a phase every slot's last chunk is waited for and scattered (d) before the next
// phase's first gather. This meets schedule.h's rules:
//   1. a chunk's own stages in order: gather (b) before its H2D is enqueued (c); H2D, FFT and D2H in
//      stream order on s; its scatter only after d2h_done shows its D2H completed;
//   2. H2D(j) after D2H(p): both on stream s, D2H(p) enqueued first;
//   3. gather(j) after H2D(p): (a);
//   4. D2H(j) after scatter(p): scatter(p) ends on the host (d) before D2H(j) is enqueued (e);
//   5. phases in order: the barrier above; no stage of the next phase is enqueued or run on the
//      host before it, and each phase's scatters complete within it.
// With three slots the host gathers j while the device copies j - 1 in, transforms j - 2 and copies
// j - 3 out, then scatters j - 3: slot_count chunks in flight. The gather of j needs only H2D(j - 3),
// done long before, so it starts at once and its H2D overlaps the scatter of j - 3 on the host.
//
// Pinned data skips the host loop's staging (run_direct): each run's segments move as one pitched
// copy between the caller's memory and the slot, the whole phase enqueued at once.
//
// Errors: a failed CUDA or cuFFT call ends the exec: every stream is synchronised (nothing is left
// in flight into the buffers or the user's data) and the message returned; the user's data may be
// partly transformed. A plan runs one exec at a time (a mutex); the device is the one current when
// the plan was made.
#pragma once

#include <cuda_runtime_api.h>
#include <cufft.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ooc/plan.h"
#include "ooc/schedule.h"

namespace idgpu::ooc {

class Executor {
 public:
  enum class Status { kOk, kBudget, kFailed };  // made; the budget is too small; CUDA or cuFFT failed

  // The executor of `problem` (problem_refusal accepts it) within `device_bytes`, or null with the
  // reason in *error and *status kBudget or kFailed.
  static std::unique_ptr<Executor> make(const Problem& problem, long long device_bytes, Status* status,
                                        std::string* error);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  const Schedule& schedule() const { return schedule_; }
  long long device_bytes_held() const { return device_bytes_held_; }  // buffers and work areas
  long long pinned_bytes() const { return pinned_bytes_; }
  int plan_count() const;

  // Transforms the problem's elements at `data` (host memory, pageable or pinned) in place with
  // sign -1 or +1, unnormalised; returns when the result is in `data`. False with *error on failure.
  bool execute(void* data, int sign, std::string* error);

  // True where `data` is device memory (which the host loop cannot read).
  static bool is_device_memory(const void* data);

 private:
  struct Plan {
    FftLayout layout;
    cufftHandle handle = -1;
    std::size_t work_bytes = 0;
  };
  struct Slot {
    std::vector<Plan> plans;
    void* device = nullptr;  // slot_bytes, then the work area
    void* work = nullptr;
    std::size_t work_bytes = 0;  // the largest of its plans'
    void* pinned_in = nullptr;   // write-combined
    void* pinned_out = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t h2d_done = nullptr;
    cudaEvent_t d2h_done = nullptr;
  };

  Executor() = default;
  // The plans of every (slot, layout) the schedule uses; false with *error. *needed_factor: the
  // largest work bytes over chunk bytes among them.
  bool make_plans(std::string* error, double* needed_factor);
  void destroy_plans();
  bool allocate(std::string* error);
  // The exec proper: the first failure's text, or "".
  std::string run(unsigned char* data, int sign);
  // The same for pinned data: no staging buffers, every copy a pitched copy between the caller's
  // memory and the slot, all of a phase enqueued at once on the slots' streams (stream order keeps
  // a slot's chunks in sequence), a barrier between phases.
  std::string run_direct(unsigned char* data, int sign);
  static bool is_pinned_memory(const void* data);
  // Waits for every stream, clearing what a failure left.
  void drain();

  Schedule schedule_;
  int device_ = -1;  // the device current at creation; -1 before cudaGetDevice
  std::vector<Slot> slots_;
  std::vector<int> chunk_plan_;  // per chunk: its plan's index in its slot's plans
  void* device_memory_ = nullptr;
  long long device_bytes_held_ = 0;
  long long pinned_bytes_ = 0;
  std::mutex mutex_;
};

}  // namespace idgpu::ooc
