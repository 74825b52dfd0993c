#include "fft/plan.h"

#include "core/vendor.h"
#include "fft/native.h"

namespace idgpu::fft {

const std::vector<const Solver*>& solvers() {
  // Tried in order; the vendor is the last resort and not in the list.
  static const std::vector<const Solver*> registry = {&stockham_solver()};
  return registry;
}

Plan::~Plan() {
  if (owned_work_area != nullptr) cudaFree(owned_work_area);
}

std::atomic<Plan*>* HandleTable::slot(cufftHandle handle) const {
  if (handle < 1) return nullptr;
  const auto index = static_cast<unsigned>(handle);
  const unsigned chunk = index >> kChunkBits;
  if (chunk >= static_cast<unsigned>(kMaxChunks)) return nullptr;
  std::atomic<Plan*>* slots = chunks_[chunk].load(std::memory_order_acquire);
  if (slots == nullptr) return nullptr;
  return &slots[index & (kChunkSize - 1)];
}

cufftHandle HandleTable::insert(std::unique_ptr<Plan> plan) {
  std::lock_guard<std::mutex> lock(mutex_);
  cufftHandle handle;
  if (!free_.empty()) {
    handle = free_.back();
    free_.pop_back();
  } else {
    handle = next_;
    const unsigned chunk = static_cast<unsigned>(handle) >> kChunkBits;
    if (chunk >= static_cast<unsigned>(kMaxChunks)) return -1;
    if (chunks_[chunk].load(std::memory_order_relaxed) == nullptr) {
      chunks_[chunk].store(new std::atomic<Plan*>[kChunkSize](), std::memory_order_release);
    }
    ++next_;
  }
  slot(handle)->store(plan.release(), std::memory_order_release);
  ++live_;
  return handle;
}

Plan* HandleTable::find(cufftHandle handle) const {
  std::atomic<Plan*>* entry = slot(handle);
  return entry != nullptr ? entry->load(std::memory_order_acquire) : nullptr;
}

std::unique_ptr<Plan> HandleTable::remove(cufftHandle handle) {
  std::lock_guard<std::mutex> lock(mutex_);
  std::atomic<Plan*>* entry = slot(handle);
  if (entry == nullptr) return nullptr;
  Plan* plan = entry->exchange(nullptr, std::memory_order_acq_rel);
  if (plan == nullptr) return nullptr;
  // The oldest freed handle is reused first, so a stale handle stays invalid as long as possible.
  free_.push_front(handle);
  --live_;
  return std::unique_ptr<Plan>(plan);
}

std::size_t HandleTable::live() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return live_;
}

HandleTable::~HandleTable() {
  for (auto& chunk : chunks_) {
    std::atomic<Plan*>* slots = chunk.load(std::memory_order_relaxed);
    if (slots == nullptr) continue;
    // Plans still alive at exit are released without calling into the vendor or the runtime,
    // which may already be gone.
    for (int index = 0; index < kChunkSize; ++index) {
      Plan* plan = slots[index].load(std::memory_order_relaxed);
      if (plan != nullptr) {
        plan->owned_work_area = nullptr;
        (void)plan->native.release();  // its device tables go with the process
      }
      delete plan;
    }
    delete[] slots;
  }
}

HandleTable& handles() {
  static HandleTable* table = new HandleTable();  // outlives exit handlers that may still call us
  return *table;
}

}  // namespace idgpu::fft
