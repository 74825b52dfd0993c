// The out-of-core schedule of a complex-to-complex FFT whose data live in host memory and may be
// far larger than the GPU (J. Wu, "Optimization Techniques for Mapping Algorithms and Applications
// onto CUDA GPU Platforms and CPU-GPU Heterogeneous Platforms", PhD thesis, University of
// Maryland, 2014, chapter 4, "Out of Card Poisson Solver"), and a host executor that runs a
// schedule stage by stage with the buffers the GPU executor will use, so that the CPU tests check
// the chunking, the staged layouts and the buffer reuse against a direct DFT without a GPU. A
// schedule is data only (no CUDA types): the GPU executor turns it into copies and launches.
//
// Problem. A row-major array [n0][n1][n2] (n2 contiguous) of complex elements of `element_bytes`
// (8: float2, 16: double2) in host memory, transformed along its three axes (a 2D transform is
// [1][n1][n2]); or a batch of 1D transforms [batch][n], which is the array [batch][1][n]
// transformed along axis 2 only. The device may use `device_bytes` of its memory (the budget).
//
// Device memory. `slot_count` slots, each holding one chunk from its copy to the device (H2D) to
// its copy back (D2H), each with the transform's work area, `work_factor` bytes per slot byte
// (1.0: an out-of-place transform's scratch as large as its data). The work area is per slot, not
// shared, because the chunks of different slots run their kernels on different streams and may
// overlap. So a schedule whose largest chunk has b bytes needs
//   device_bytes_for_slot(b) = slot_count * (b + ceil(work_factor * b)).
// Each slot also has two pinned host buffers of the slot's size, one per direction (Wu:
// write-combined for H2D, ordinary for D2H, whose reads are slow from write-combined memory).
// Pinned memory is host memory and is not counted in the budget.
//
// Slots: 3 by default, the fewest with which the pipeline never stalls. A chunk goes through five
// stages, Wu's S2P, H2D, kernels, D2H and P2S: gather (host data -> pinned), H2D, kernels, D2H,
// scatter (pinned -> host data). In the steady state chunk i + 1 is gathered while i is copied in,
// i - 1 transformed, i - 2 copied back and i - 3 scattered. A device slot is held from H2D to
// D2H: while chunk i is copied in, i - 1 and i - 2 still hold theirs, so i needs a third. With
// three slots the slot rules below are met just in time: i's H2D follows i - 3's D2H by one step
// (pipeline_timeline: with unit stages, c chunks take c + 4 steps with 3 slots and stall with 2;
// the tests check both). More slots only help when stage times vary. The slot of chunk i is
// i mod slot_count (round-robin over the chunks of every phase), and its stream is its slot, so
// stream order alone keeps a slot's chunks in sequence.
//
// Dependencies the executor must honour (chunk j in slot s, p = j's previous_on_slot, the chunk
// that used s before it, -1 if none):
//  1. a chunk's own stages run in order: gather, H2D, kernels, D2H, scatter;
//  2. the device slot: H2D(j) after D2H(p) (stream order gives it);
//  3. the pinned H2D buffer: gather(j) after H2D(p);
//  4. the pinned D2H buffer: D2H(j) after scatter(p) (the host has copied p's result out);
//  5. phases in order: no stage of a phase starts before every stage of the one before has ended
//     (a pencil needs the result of every plane slab; the host pass the result of every chunk,
//     or every chunk the host pass's).
//
// Schedules (ScheduleKind):
//  - kTwoPhase, on the device only, two round trips: phase "planes" moves slabs of k consecutive
//    whole n1 x n2 planes and transforms axes 1 and 2; phase "pencils" moves, for a range of W
//    consecutive positions of the flattened (n1, n2) index, all n0 of them (n0 host segments of W
//    elements, stride n1 n2), and transforms axis 0 over those W columns. A phase whose axes all
//    have length 1 is left out; when the whole array fits one slot the planes phase is one chunk
//    that transforms axis 0 as well, and there is no pencils phase (one round trip).
//  - kOneRoundTrip, Wu's scheme: the host transforms the contiguous axis 2 itself (a host phase),
//    and the device transforms axes 0 and 1 on x-slabs: XW consecutive n2 positions across all
//    n0 x n1 (n0 n1 host segments of XW elements, stride n2). The data cross the bus once each way.
//    Refused where n0 = n1 = 1 (nothing would be left for the device).
//  - kBatched, for a batched 1D problem, one round trip: chunks of whole transforms. A single
//    transform larger than a slot is refused (it needs an out-of-core 1D algorithm).
//
// Which one (Options::force empty): kBatched for a batched problem; for a 3D one, kTwoPhase when it
// needs one round trip only (n0 = 1, or the whole array fits one slot) and fits; else
// kOneRoundTrip whenever an x-slab of the least width fits a slot (one round trip beats two); else
// kTwoPhase if its smallest chunks (one plane; a pencil of the least width) fit; else none, the
// reason saying what the least budget is (ScheduleResult::minimum_device_bytes).
//
// Order of the phases: the phase that transforms the contiguous axis 2 runs first in a forward
// transform (sign -1) and last in an inverse one (+1): kOneRoundTrip is {host axis 2, device
// axes 0 1} forward and {device, host} inverse; kTwoPhase {planes, pencils} forward and
// {pencils, planes} inverse. For C2C either order gives the same result (the 3D DFT is the product
// of 1D DFTs along different axes, which commute), and the host executor accepts either sign for
// any schedule. The order is for the real transforms to come: R2C halves axis 2 (n2/2 + 1 complex
// outputs) in its first pass and C2R restores it in its last, so with this order their device
// phases run the C2C chunks of [n0][n1][n2/2 + 1], with the same one round trip.
//
// Segments. Every H2D and D2H copies segments of at least kSegmentBytes = 128 bytes where the axis
// allows it (Wu: the largest device memory transaction and the L2 line; his x-slabs are 128 bytes
// wide): over an extent E (n2 for x-slabs, n1 n2 for pencils), widths are multiples of the granule
// g = min(E, ceil(min_segment_bytes / element_bytes)) elements, except the last chunk's, which
// also takes the remainder E mod g. So every segment has at least g elements (the schedule's
// promise, segment_bytes_promised; a plane slab's segments are whole planes), the least chunk is
// g + (E mod g) wide, and where E >= g the staged rows of every chunk but the last start on
// g-element (128-byte) boundaries of the slot. Options::min_segment_bytes changes the 128 (the
// tests shrink it to get many chunks from small arrays).
//
// Pipelining: a batched problem is cut into chunks of at most kPipelineChunkBytes (whole
// transforms; one transform may be larger) even where the budget holds it whole: one chunk's H2D,
// transform and D2H run one after the other, while chunks overlap one's D2H with the next one's
// H2D (H200, 8192 transforms of 4096 fp32 from pinned memory: 0.54 of one round trip's bound in
// one chunk, 0.88 in 8). A 3D array that fits one slot stays one chunk: none of its output is final
// before all of its input is in, so chunks could not overlap the two directions anyway.
//
// Limits: more than kMaxChunks chunks in a phase is refused (per-chunk costs would dominate).
//
// Chunk sizes: per phase, the fewest chunks that fit a slot, their units (planes, transforms,
// granules) spread evenly, larger chunks first (sizes differ by one unit at most).
//
// Staged layout: a chunk's `run` is `count` host segments of `length` elements, segment c at
// element first + c * stride. Gathered in order and contiguous, staged element c * length + j is
// host element first + c * stride + j; the staged chunk is the row-major array
// [staged[0]][staged[1]][staged[2]] (staged[0] staged[1] staged[2] = count * length), whose axis a
// runs along the problem's axis a, over its whole extent where the chunk transforms that axis:
//  - a slab of k planes from plane p: run {p n1 n2, n1 n2, k, n1 n2}, staged [k][n1][n2];
//  - a pencil of W positions from flattened position m: run {m, W, n0, n1 n2}, staged [n0][1][W];
//  - an x-slab of XW columns from x: run {x, XW, n0 n1, n2}, staged [n0][n1][XW];
//  - batched, k transforms from transform b: run {b n, n, k, n}, staged [k][1][n].
// The device transforms the staged array in place, along the chunk's axes.
#pragma once

#include <array>
#include <complex>
#include <optional>
#include <string>
#include <vector>

namespace idgpu::ooc {

constexpr int kDefaultSlotCount = 3;  // see "Slots" above
constexpr int kMaxSlotCount = 64;
constexpr long long kSegmentBytes = 128;  // see "Segments" above
constexpr long long kMaxChunks = 1 << 20;
constexpr long long kPipelineChunkBytes = 16LL << 20;  // see "Pipelining" above

constexpr unsigned axis_bit(int axis) { return 1u << axis; }

struct Problem {
  std::array<long long, 3> extents{1, 1, 1};  // [n0][n1][n2], n2 contiguous
  bool batched = false;                       // [batch][1][n], only axis 2 transformed
  int element_bytes = 16;                     // 8 (complex float) or 16 (complex double)

  unsigned axes() const { return batched ? axis_bit(2) : axis_bit(0) | axis_bit(1) | axis_bit(2); }
};
Problem three_d(long long n0, long long n1, long long n2, int element_bytes);
Problem batched_1d(long long batch, long long n, int element_bytes);

enum class ScheduleKind { kTwoPhase, kOneRoundTrip, kBatched };
const char* to_string(ScheduleKind kind);

struct Options {
  long long device_bytes = 0;  // the budget
  int slot_count = kDefaultSlotCount;
  double work_factor = 1.0;
  long long min_segment_bytes = kSegmentBytes;
  int sign = -1;                      // the direction: where the contiguous axis's phase goes
  std::optional<ScheduleKind> force;  // empty: chosen as above
  // kTwoPhase: axis 0 always in a pencils phase of its own, even where one chunk holds the whole
  // array (the out-of-core Poisson solve runs other work there than the slabs' FFTs).
  bool keep_pencils = false;
};

// `count` host segments of `length` elements, segment c at element first + c * stride.
struct HostRun {
  long long first = 0;
  long long length = 0;
  long long count = 0;
  long long stride = 0;

  long long elements() const { return length * count; }
};

enum class PhaseKind { kHost, kDevice };

// A host phase transforms `axes` of the whole array in host memory; a device phase is the chunks
// [first_chunk, first_chunk + chunk_count), each transforming `axes` of its staged array.
struct Phase {
  PhaseKind kind = PhaseKind::kDevice;
  unsigned axes = 0;  // axis_bit(a) for each axis a of length > 1 transformed here
  int first_chunk = 0;
  int chunk_count = 0;
};

struct Chunk {
  int phase = 0;
  HostRun run;
  std::array<long long, 3> staged{1, 1, 1};  // the staged chunk's shape (see "Staged layout")
  unsigned axes = 0;                         // transformed on the device (its phase's axes)
  int slot = 0;
  int stream = 0;
  int previous_on_slot = -1;  // the chunk that used the slot before this one, or -1
};

struct Schedule {
  ScheduleKind kind = ScheduleKind::kTwoPhase;
  Problem problem;
  int sign = -1;
  int slot_count = kDefaultSlotCount;
  int stream_count = kDefaultSlotCount;  // one per slot
  long long slot_bytes = 0;              // the largest chunk
  long long work_bytes = 0;              // the work area of each slot
  long long device_bytes = 0;            // device_bytes_for_slot(slot_bytes), within the budget
  long long segment_bytes_promised = 0;  // no chunk's segment is shorter (see "Segments")
  int round_trips = 0;                   // device phases
  std::vector<Phase> phases;
  std::vector<Chunk> chunks;

  long long elements() const;
  std::string to_string() const;  // a line for the schedule and one per phase, for logs and tests
};

struct ScheduleResult {
  std::optional<Schedule> schedule;
  std::string reason;                  // why there is none
  long long minimum_device_bytes = 0;  // the least budget of the kind asked for (auto: of any kind); 0 if invalid
};

// The schedule of `problem` within options.device_bytes, or the reason there is none (bad sizes or
// options, overflow, a budget too small for the least chunk).
ScheduleResult make_schedule(const Problem& problem, const Options& options);

// The device memory a schedule whose largest chunk has `slot_bytes` bytes needs (see "Device
// memory"); the largest value of long long where it overflows.
long long device_bytes_for_slot(long long slot_bytes, int slot_count, double work_factor);

// The pipeline as it runs with every stage one step long: each stage starts as early as the
// dependencies above allow, with one stage per step on each engine (gather threads, H2D copy
// engine, compute, D2H copy engine, scatter threads), chunks in order on each; a host phase takes
// one step. Sorted by step, then by stage.
enum class Stage { kGather, kHostToDevice, kKernels, kDeviceToHost, kScatter, kHostPass };
const char* to_string(Stage stage);
struct TimedStage {
  long long step = 0;
  Stage stage = Stage::kGather;
  int phase = 0;
  int chunk = -1;  // -1 for a host pass
};
std::vector<TimedStage> pipeline_timeline(const Schedule& schedule);

// Runs `schedule` on `data` (the problem's elements, row-major) in place with sign -1 (forward) or
// +1 (inverse), unnormalised, as the GPU executor will: host phases transform their axes of the
// whole array; device chunks go through pinned and device buffers per slot, stage by stage in the
// order of pipeline_timeline. Each buffer knows which chunk it holds, and a stage that finds its
// buffer not yet released (a dependency missing from the schedule) or that shares a buffer with
// another stage of the same step throws std::logic_error; bad arguments throw
// std::invalid_argument. Released buffers are poisoned with NaN. The transforms are naive DFTs in
// double (speed is not a goal).
void execute_on_host(const Schedule& schedule, std::vector<std::complex<double>>& data, int sign);

}  // namespace idgpu::ooc
