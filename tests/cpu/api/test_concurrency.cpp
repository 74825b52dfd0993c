// The exported cuFFT API used from 8 threads at once against the fake vendor: every call of a
// thread reaches the vendor with that thread's own vendor handle, whatever the others do.
#include <catch2/catch.hpp>

#include <atomic>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "idgpu/idgpu.h"
#include "support/bits.h"
#include "support/cufft_calls.h"
#include "support/fake_client.h"
#include "support/seed.h"

using namespace idgpu::test;

namespace {

struct Live {
  cufftHandle ours;
  cufftHandle vendor;
};

// Catch2's assertions are not thread-safe: a worker notes its first few failures as text.
struct Failures {
  std::vector<std::string> notes;
  int count = 0;
  void note(const std::string& what) {
    if (count++ < 5) notes.push_back(what);
  }
};

bool last_call_is(const char* name, const std::vector<unsigned long long>& args) {
  FakeVendorCall call{};
  if (fakeVendorThreadLastCall(&call) == 0) return false;
  const RecordedCall recorded = to_recorded(call);
  return recorded.name == name && recorded.args == args;
}

}  // namespace

TEST_CASE("8 threads create, use and destroy plans through the C API", "[cpu][fft][threads]") {
  const unsigned seed = test_seed();
  CAPTURE(seed);
  constexpr int kThreads = 8;
  constexpr int kIterations = 1500;
  fakeVendorReset();
  REQUIRE(idgpuResetCallStats() == IDGPU_STATUS_SUCCESS);
  const long long live_before = fakeVendorLiveCufftHandles();

  std::vector<Failures> failures(kThreads);
  std::vector<std::vector<cufftHandle>> handles_seen(kThreads);
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int thread = 0; thread < kThreads; ++thread) {
    threads.emplace_back([&, thread] {
      Failures& mine = failures[static_cast<std::size_t>(thread)];
      std::mt19937 random(seed + static_cast<unsigned>(thread));
      std::vector<Live> live;  // up to 6 plans of this thread at a time
      std::vector<cufftHandle>& seen = handles_seen[static_cast<std::size_t>(thread)];
      ready.fetch_add(1);
      // Start together, so that the threads overlap (yielding: CI has two cores for eight threads).
      while (ready.load() < kThreads) std::this_thread::yield();
      auto destroy_one = [&](std::size_t index) {
        const Live plan = live[index];
        live.erase(live.begin() + static_cast<long>(index));
        if (cufftDestroy(plan.ours) != CUFFT_SUCCESS) mine.note("cufftDestroy failed");
        if (!last_call_is("cufftDestroy", {to_bits(plan.vendor)})) mine.note("cufftDestroy reached the wrong plan");
        // (A destroyed handle is not used here: another thread may be handed it again at once,
        // and using a handle while its owner destroys it is the application's race.)
      };
      for (int iteration = 0; iteration < kIterations; ++iteration) {
        Live plan{};
        if (cufftCreate(&plan.ours) != CUFFT_SUCCESS) {
          mine.note("cufftCreate failed");
          continue;
        }
        FakeVendorCall create{};
        if (fakeVendorThreadLastCall(&create) == 0 || std::string(create.name) != "cufftCreate") {
          mine.note("cufftCreate did not reach the vendor");
          continue;
        }
        plan.vendor = static_cast<cufftHandle>(create.out);
        live.push_back(plan);
        seen.push_back(plan.ours);
        // Use every live plan of this thread: each call must reach that plan's vendor handle.
        for (const Live& each : live) {
          const auto stream = from_bits<cudaStream_t>(0x10000ull * static_cast<unsigned long long>(thread + 1) +
                                                      static_cast<unsigned long long>(iteration));
          if (cufftSetStream(each.ours, stream) != CUFFT_SUCCESS) mine.note("cufftSetStream failed");
          if (!last_call_is("cufftSetStream", {to_bits(each.vendor), to_bits(stream)})) {
            mine.note("cufftSetStream reached the wrong vendor plan");
          }
        }
        if (live.size() >= 6 || (random() % 3 == 0 && !live.empty())) destroy_one(random() % live.size());
      }
      while (!live.empty()) destroy_one(live.size() - 1);
    });
  }
  for (std::thread& thread : threads) thread.join();

  for (int thread = 0; thread < kThreads; ++thread) {
    CAPTURE(thread);
    const Failures& mine = failures[static_cast<std::size_t>(thread)];
    CHECK(mine.count == 0);
    for (const std::string& note : mine.notes) FAIL_CHECK(note);
  }
  CHECK(fakeVendorLiveCufftHandles() == live_before);
  CHECK(fakeVendorMisuseCount() == 0);
  CHECK(fakeVendorCallCount("cufftCreate") == kThreads * kIterations);
  CHECK(fakeVendorCallCount("cufftDestroy") == kThreads * kIterations);
  idgpuCallStats_t create{};
  REQUIRE(idgpuGetCallStatsByName("cufftCreate", &create) == IDGPU_STATUS_SUCCESS);
  CHECK(create.calls == kThreads * kIterations);
  CHECK(create.failedCalls == 0);
  idgpuCallStats_t destroy{};
  REQUIRE(idgpuGetCallStatsByName("cufftDestroy", &destroy) == IDGPU_STATUS_SUCCESS);
  CHECK(destroy.calls == kThreads * kIterations);
  // Every handle ever handed out is destroyed now: refused, and no vendor call.
  fakeVendorReset();
  std::size_t checked = 0;
  for (const std::vector<cufftHandle>& seen : handles_seen) {
    for (cufftHandle handle : seen) {
      if (cufftSetStream(handle, nullptr) != CUFFT_INVALID_PLAN) {
        CAPTURE(handle);
        FAIL_CHECK("a destroyed handle was accepted");
      }
      ++checked;
    }
  }
  CHECK(checked == static_cast<std::size_t>(kThreads * kIterations));
  CHECK(vendor_call_count() == 0);
}
