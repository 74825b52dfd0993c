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
// Jobs (ooc/plan.h): the executor runs a job's steps, not the schedule's chunks directly: the complex
// transform's job is its chunks; a real transform's and the Poisson solve's add real rows padded
// on the device and other work per step (real FFTs; the Poisson z solve of whole columns, given by
// a ColumnWork). Each step copies its `in` transfer into the slot and its `out` transfer back, to
// and from any of the exec's host arrays (input, output, the plan's scratch). Where that array is
// pinned the copy is one pitched copy between it and the slot (no staging, nothing for the host
// loop to wait for); else it is gathered and scattered through the slot's pinned buffers as above.
// Every phase ends with every slot's stream synchronised, after its scatters.
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

// The work of a kColumns step, given by the executor's owner (the out-of-core Poisson solve): the
// staged pencil [outer][width] at `data` holds columns [first, first + width) of the flattened
// (n1, n2) index, all `outer` of their rows.
class ColumnWork {
 public:
  virtual ~ColumnWork() = default;
  // Device scratch (bytes) the work of `width` columns needs, in the slot's work area.
  virtual std::size_t scratch_bytes(long long width) const = 0;
  // Whether the step runs the pencil's C2C FFT along the outer axis forward before enqueue() and
  // inverse after it.
  virtual bool wants_fft() const = 0;
  // Enqueues the work on `stream`; the failure's text, or "".
  virtual std::string enqueue(void* data, long long first, long long width, void* scratch,
                              cudaStream_t stream) const = 0;
};

class Executor {
 public:
  enum class Status { kOk, kBudget, kFailed };  // made; the budget is too small; CUDA or cuFFT failed
  enum class Kind { kComplex, kReal, kPoisson };

  struct Request {
    Problem problem;  // the complex problem scheduled: a real one's (or the Poisson grid's) half spectrum
    Kind kind = Kind::kComplex;
    long long real_length = 0;            // kReal: n2; kPoisson: nx
    const ColumnWork* columns = nullptr;  // kPoisson; outlives the executor
  };

  // The executor of `request` (problem_refusal accepts its problem) within `device_bytes`, or null
  // with the reason in *error and *status kBudget or kFailed.
  static std::unique_ptr<Executor> make(const Request& request, long long device_bytes, Status* status,
                                        std::string* error);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  const Request& request() const { return request_; }
  const Schedule& schedule() const { return schedule_; }
  int round_trips() const { return jobs_.front().round_trips; }
  long long step_count() const { return static_cast<long long>(jobs_.front().steps.size()); }
  long long device_bytes_held() const { return device_bytes_held_; }  // buffers and work areas
  long long pinned_bytes() const { return pinned_bytes_; }
  int plan_count() const;

  // kComplex: transforms the problem's elements at `data` (host memory, pageable or pinned) in
  // place with sign -1 or +1, unnormalised; returns when the result is in `data`. False with
  // *error on failure.
  bool execute(void* data, int sign, std::string* error);
  // kReal: R2C (inverse false) or C2R of the real array and its half spectrum (ooc/plan.h
  // real_job; in == out: in place, cuFFT's padded layout).
  bool execute_real(const void* in, void* out, bool inverse, std::string* error);
  // kPoisson: the solve's job (ooc/plan.h poisson_job) from f into u through `spectrum`, host
  // memory of the half spectrum's elements.
  bool execute_poisson(const void* f, void* u, void* spectrum, std::string* error);

  // True where `data` is device memory (which the host loop cannot read).
  static bool is_device_memory(const void* data);
  // True where `data` is pinned (cudaHostAlloc'ed or registered) host memory.
  static bool is_pinned_memory(const void* data);

 private:
  struct Plan {
    StepPlan key;
    cufftHandle handle = -1;
    std::size_t work_bytes = 0;
  };
  struct Slot {
    std::vector<Plan> plans;
    void* device = nullptr;  // slot_bytes, then the work area
    void* work = nullptr;
    std::size_t work_bytes = 0;  // the largest of its plans' and its column work's scratch
    void* pinned_in = nullptr;   // write-combined
    void* pinned_out = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t h2d_done = nullptr;
    cudaEvent_t d2h_done = nullptr;
  };

  Executor() = default;
  // The jobs an exec may run (real: forward and inverse; their in-place forms differ in host runs
  // only), built from schedule_.
  void make_jobs();
  // The plans of every (slot, step plan) the jobs use; false with *error. *needed_factor: the
  // largest work bytes (plan or column scratch) over chunk bytes among them.
  bool make_plans(std::string* error, double* needed_factor);
  void destroy_plans();
  bool allocate(std::string* error);
  // The checks and device scope around run_job; false with *error.
  bool execute_job(const Job& job, unsigned char* const arrays[kHostArrays], int sign, std::string* error);
  // The exec proper: the first failure's text, or "".
  std::string run_job(const Job& job, unsigned char* const arrays[kHostArrays], int sign);
  // Enqueues a step's work on its slot's stream.
  std::string work(const Step& step, int index, int sign);
  const Plan* find_plan(const Slot& slot, const StepPlan& key) const;
  // Waits for every stream, clearing what a failure left.
  void drain();

  Request request_;
  Schedule schedule_;
  std::vector<Job> jobs_;  // the first is the one GetSchedule describes
  int device_ = -1;        // the device current at creation; -1 before cudaGetDevice
  std::vector<Slot> slots_;
  void* device_memory_ = nullptr;
  long long device_bytes_held_ = 0;
  long long pinned_bytes_ = 0;
  std::mutex mutex_;
};

}  // namespace idgpu::ooc
