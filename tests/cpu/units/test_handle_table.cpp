// src/fft/plan.h HandleTable: the cufftHandle space libidgpu owns. Lookups, reuse of freed
// handles, 10^5 create/destroy cycles, and 8 threads creating, finding and destroying at once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "fft/plan.h"
#include "support/seed.h"

using idgpu::fft::HandleTable;
using idgpu::fft::Plan;

namespace {

// A plan that says whose it is: `vendor` is free for the tests to use as a mark.
std::unique_ptr<Plan> marked_plan(int mark) {
  auto plan = std::make_unique<Plan>();
  plan->vendor = mark;
  return plan;
}

}  // namespace

TEST_CASE("handles start at 1, find their plan, and are refused once removed", "[cpu][fft][handles]") {
  auto table = std::make_unique<HandleTable>();
  CHECK(table->live() == 0);
  auto first_plan = marked_plan(11);
  Plan* first_address = first_plan.get();
  const cufftHandle first = table->insert(std::move(first_plan));
  const cufftHandle second = table->insert(marked_plan(22));
  CHECK(first == 1);
  CHECK(second == 2);
  CHECK(table->live() == 2);
  CHECK(table->find(first) == first_address);
  REQUIRE(table->find(second) != nullptr);
  CHECK(table->find(second)->vendor == 22);

  // Handles never handed out, out of range or negative: null, never a crash.
  for (cufftHandle handle : {0, -1, -1000000, 3, 1023, 1024, 1 << 20, (HandleTable::kMaxChunks << HandleTable::kChunkBits),
                             0x7fffffff}) {
    CAPTURE(handle);
    CHECK(table->find(handle) == nullptr);
    CHECK(table->remove(handle) == nullptr);
  }
  CHECK(table->live() == 2);

  std::unique_ptr<Plan> removed = table->remove(first);
  CHECK(removed.get() == first_address);
  CHECK(table->find(first) == nullptr);
  CHECK(table->remove(first) == nullptr);  // twice
  CHECK(table->live() == 1);
  CHECK(table->find(second)->vendor == 22);
}

TEST_CASE("a freed handle is reused only after the ones freed before it", "[cpu][fft][handles]") {
  auto table = std::make_unique<HandleTable>();
  std::vector<cufftHandle> handles;
  for (int index = 0; index < 5; ++index) handles.push_back(table->insert(marked_plan(index)));
  // Free 4, 2, 5 in that order: they come back in that order (a stale handle stays invalid as long
  // as possible), and only then does the table grow.
  table->remove(handles[3]);
  table->remove(handles[1]);
  table->remove(handles[4]);
  CHECK(table->insert(marked_plan(100)) == handles[3]);
  CHECK(table->insert(marked_plan(101)) == handles[1]);
  CHECK(table->insert(marked_plan(102)) == handles[4]);
  CHECK(table->insert(marked_plan(103)) == 6);
  CHECK(table->find(handles[1])->vendor == 101);
  CHECK(table->live() == 6);
}

TEST_CASE("handles past the first chunk work like the first", "[cpu][fft][handles]") {
  auto table = std::make_unique<HandleTable>();
  const int count = 3 * HandleTable::kChunkSize + 17;
  std::vector<cufftHandle> handles;
  for (int index = 0; index < count; ++index) handles.push_back(table->insert(marked_plan(index)));
  CHECK(handles.back() == count);
  for (int index = 0; index < count; index += 97) {
    CAPTURE(index);
    REQUIRE(table->find(handles[static_cast<std::size_t>(index)]) != nullptr);
    CHECK(table->find(handles[static_cast<std::size_t>(index)])->vendor == index);
  }
  CHECK(table->find(count + 1) == nullptr);  // in an allocated chunk, never handed out
  for (cufftHandle handle : handles) CHECK(table->remove(handle) != nullptr);
  CHECK(table->live() == 0);
}

TEST_CASE("10^5 create/destroy cycles", "[cpu][fft][handles]") {
  auto table = std::make_unique<HandleTable>();
  const unsigned seed = idgpu::test::test_seed();
  CAPTURE(seed);
  std::mt19937 random(seed);
  constexpr int kCycles = 100000;
  constexpr std::size_t kWindow = 64;
  std::vector<std::pair<cufftHandle, int>> live;  // handle, mark
  cufftHandle highest = 0;
  int failures = 0;
  for (int cycle = 0; cycle < kCycles; ++cycle) {
    const cufftHandle handle = table->insert(marked_plan(cycle));
    if (handle < 1) {
      ++failures;
      continue;
    }
    highest = std::max(highest, handle);
    live.emplace_back(handle, cycle);
    // Destroy one at random once the window is full, and now and then before.
    if (live.size() > kWindow || random() % 4 == 0) {
      const std::size_t index = random() % live.size();
      const auto [victim, mark] = live[index];
      Plan* found = table->find(victim);
      if (found == nullptr || found->vendor != mark) ++failures;
      if (table->remove(victim) == nullptr) ++failures;
      if (table->find(victim) != nullptr) ++failures;
      live.erase(live.begin() + static_cast<long>(index));
    }
  }
  CHECK(failures == 0);
  CHECK(table->live() == live.size());
  // Freed handles are reused: the table never grew beyond the largest number live at once.
  CHECK(highest <= static_cast<cufftHandle>(kWindow + 1));
  for (const auto& [handle, mark] : live) {
    REQUIRE(table->find(handle) != nullptr);
    CHECK(table->find(handle)->vendor == mark);
    CHECK(table->remove(handle) != nullptr);
  }
  CHECK(table->live() == 0);
}

TEST_CASE("8 threads create, find and destroy their own plans concurrently", "[cpu][fft][handles][threads]") {
  auto table = std::make_unique<HandleTable>();
  const unsigned seed = idgpu::test::test_seed();
  CAPTURE(seed);
  constexpr int kThreads = 8;
  constexpr int kIterations = 20000;
  std::atomic<int> ready{0};
  std::atomic<bool> stop_readers{false};
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int thread = 0; thread < kThreads; ++thread) {
    threads.emplace_back([&, thread] {
      std::mt19937 random(seed + static_cast<unsigned>(thread));
      int& failed = failures[static_cast<std::size_t>(thread)];
      std::vector<std::pair<cufftHandle, int>> live;
      ready.fetch_add(1);
      // Start together, so that the threads overlap (yielding: CI has two cores for eight threads).
      while (ready.load() < kThreads) std::this_thread::yield();
      for (int iteration = 0; iteration < kIterations; ++iteration) {
        // A mark no other thread uses: thread in the high bits.
        const int mark = (thread << 24) | iteration;
        const cufftHandle handle = table->insert(marked_plan(mark));
        if (handle < 1) {
          ++failed;
          continue;
        }
        live.emplace_back(handle, mark);
        // Every live plan of this thread is found, with its own mark.
        for (const auto& [mine, my_mark] : live) {
          Plan* found = table->find(mine);
          if (found == nullptr || found->vendor != my_mark) ++failed;
        }
        if (live.size() > 8 || random() % 2 == 0) {
          const std::size_t index = random() % live.size();
          const auto [victim, victim_mark] = live[index];
          std::unique_ptr<Plan> removed = table->remove(victim);
          if (removed == nullptr || removed->vendor != victim_mark) ++failed;
          // Destroyed: refused, or (if another thread was handed the handle since) not this plan.
          // Only our own plans are ever dereferenced: the mark is compared through the removed copy.
          Plan* after = table->find(victim);
          if (after == removed.get()) ++failed;
          live.erase(live.begin() + static_cast<long>(index));
        }
      }
      for (const auto& [handle, mark] : live) {
        std::unique_ptr<Plan> removed = table->remove(handle);
        if (removed == nullptr || removed->vendor != mark) ++failed;
      }
    });
  }
  // Two readers look up arbitrary handles throughout (never dereferencing what they find), so
  // lookups race with chunk allocation and removal.
  std::atomic<unsigned long long> reads{0};
  std::vector<std::thread> readers;
  for (int reader = 0; reader < 2; ++reader) {
    readers.emplace_back([&, reader] {
      std::mt19937 random(seed ^ (0xabcu + static_cast<unsigned>(reader)));
      while (!stop_readers.load()) {
        const cufftHandle handle = static_cast<cufftHandle>(random() % 4096) - 8;
        (void)table->find(handle);
        reads.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  stop_readers = true;
  for (std::thread& reader : readers) reader.join();

  for (int thread = 0; thread < kThreads; ++thread) {
    CAPTURE(thread);
    CHECK(failures[static_cast<std::size_t>(thread)] == 0);
  }
  CHECK(table->live() == 0);
  CHECK(reads.load() > 0);
  // Everything was destroyed: no handle below the high-water mark is live.
  for (cufftHandle handle = 1; handle <= kThreads * 16; ++handle) CHECK(table->find(handle) == nullptr);
}
