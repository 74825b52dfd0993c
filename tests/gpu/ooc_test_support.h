// What the out-of-core GPU tests share (ooc_test.cpp: the FFTs; ooc_poisson_test.cpp: the Poisson
// solve): device and pinned buffers owned by a scope, host arrays of either kind (the two kinds of
// host memory idgpuOoc* take), NaN poisoning, and the pinned copy bandwidth that the [bandwidth]
// cases print their rates against.
// Include after <catch2/catch.hpp> (the helpers assert with REQUIRE).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

namespace idgpu::test {

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) { REQUIRE(cudaMalloc(&data_, bytes) == cudaSuccess); }
  ~DeviceBuffer() { cudaFree(data_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};

class PinnedBuffer {
 public:
  explicit PinnedBuffer(std::size_t bytes) : bytes_(bytes) {
    REQUIRE(cudaHostAlloc(&data_, bytes, cudaHostAllocDefault) == cudaSuccess);
  }
  ~PinnedBuffer() { cudaFreeHost(data_); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  void* get() const { return data_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Bytes that make NaN of every float and double they cover (all exponent and mantissa bits set):
// what outputs are poisoned with before an exec, so that an element left unwritten shows.
constexpr unsigned char kPoisonByte = 0xff;

// Host memory of `bytes` the caller's data lives in: pageable (operator new, as a std::vector's) or
// pinned (cudaHostAlloc), the two kinds idgpuOoc* take, each through its own copy path.
class HostArray {
 public:
  HostArray(std::size_t bytes, bool pinned) : bytes_(bytes) {
    if (pinned) {
      REQUIRE(cudaHostAlloc(&pinned_, bytes, cudaHostAllocDefault) == cudaSuccess);
    } else {
      pageable_.resize(bytes);
    }
  }
  ~HostArray() {
    if (pinned_ != nullptr) cudaFreeHost(pinned_);
  }
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;

  void* get() { return pinned_ != nullptr ? pinned_ : static_cast<void*>(pageable_.data()); }
  const void* get() const { return pinned_ != nullptr ? pinned_ : static_cast<const void*>(pageable_.data()); }
  std::size_t bytes() const { return bytes_; }
  bool pinned() const { return pinned_ != nullptr; }

  // The array's first values.size() elements (of any trivially copyable type) set to `values`.
  template <class T>
  void fill(const std::vector<T>& values) {
    REQUIRE(values.size() * sizeof(T) <= bytes_);
    std::memcpy(get(), values.data(), values.size() * sizeof(T));
  }
  void poison() { std::memset(get(), kPoisonByte, bytes_); }
  // The first `count` elements as T.
  template <class T>
  std::vector<T> read(std::size_t count) const {
    REQUIRE(count * sizeof(T) <= bytes_);
    std::vector<T> values(count);
    std::memcpy(values.data(), get(), count * sizeof(T));
    return values;
  }
  std::vector<unsigned char> read_bytes() const { return read<unsigned char>(bytes_); }

 private:
  std::size_t bytes_ = 0;
  std::vector<unsigned char> pageable_;
  void* pinned_ = nullptr;
};

struct CopyBandwidth {
  double h2d = 0, d2h = 0;                 // GB/s, one direction alone
  double h2d_both = 0, d2h_both = 0;       // GB/s of each direction while both run
  double both() const { return 2 * std::min(h2d_both, d2h_both); }  // one round trip's bound, 2 x bytes / time
};

// Pinned copies of `bytes` each way, alone and both at once on two streams (best of three).
inline CopyBandwidth measure_copies(std::size_t bytes) {
  PinnedBuffer host_in(bytes), host_out(bytes);
  DeviceBuffer device_in(bytes), device_out(bytes);
  std::memset(host_in.get(), 1, bytes);
  cudaStream_t streams[2];
  cudaEvent_t start, ends[2];
  for (cudaStream_t& stream : streams) {
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  }
  REQUIRE(cudaEventCreate(&start) == cudaSuccess);
  for (cudaEvent_t& end : ends) REQUIRE(cudaEventCreate(&end) == cudaSuccess);
  const auto gigabytes_per_second = [&](float milliseconds) {
    return static_cast<double>(bytes) / (milliseconds * 1e6);
  };
  CopyBandwidth bandwidth;
  for (int run = 0; run < 3; ++run) {
    float h2d_ms = 0, d2h_ms = 0, both_h2d_ms = 0, both_d2h_ms = 0;
    REQUIRE(cudaEventRecord(start, streams[0]) == cudaSuccess);
    REQUIRE(cudaMemcpyAsync(device_in.get(), host_in.get(), bytes, cudaMemcpyHostToDevice, streams[0]) == cudaSuccess);
    REQUIRE(cudaEventRecord(ends[0], streams[0]) == cudaSuccess);
    REQUIRE(cudaEventSynchronize(ends[0]) == cudaSuccess);
    REQUIRE(cudaEventElapsedTime(&h2d_ms, start, ends[0]) == cudaSuccess);
    REQUIRE(cudaEventRecord(start, streams[0]) == cudaSuccess);
    REQUIRE(cudaMemcpyAsync(host_out.get(), device_out.get(), bytes, cudaMemcpyDeviceToHost, streams[0]) ==
            cudaSuccess);
    REQUIRE(cudaEventRecord(ends[0], streams[0]) == cudaSuccess);
    REQUIRE(cudaEventSynchronize(ends[0]) == cudaSuccess);
    REQUIRE(cudaEventElapsedTime(&d2h_ms, start, ends[0]) == cudaSuccess);
    // Both at once: the second stream starts with the first.
    REQUIRE(cudaEventRecord(start, streams[0]) == cudaSuccess);
    REQUIRE(cudaStreamWaitEvent(streams[1], start, 0) == cudaSuccess);
    REQUIRE(cudaMemcpyAsync(device_in.get(), host_in.get(), bytes, cudaMemcpyHostToDevice, streams[0]) == cudaSuccess);
    REQUIRE(cudaMemcpyAsync(host_out.get(), device_out.get(), bytes, cudaMemcpyDeviceToHost, streams[1]) ==
            cudaSuccess);
    REQUIRE(cudaEventRecord(ends[0], streams[0]) == cudaSuccess);
    REQUIRE(cudaEventRecord(ends[1], streams[1]) == cudaSuccess);
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    REQUIRE(cudaEventElapsedTime(&both_h2d_ms, start, ends[0]) == cudaSuccess);
    REQUIRE(cudaEventElapsedTime(&both_d2h_ms, start, ends[1]) == cudaSuccess);
    bandwidth.h2d = std::max(bandwidth.h2d, gigabytes_per_second(h2d_ms));
    bandwidth.d2h = std::max(bandwidth.d2h, gigabytes_per_second(d2h_ms));
    bandwidth.h2d_both = std::max(bandwidth.h2d_both, gigabytes_per_second(both_h2d_ms));
    bandwidth.d2h_both = std::max(bandwidth.d2h_both, gigabytes_per_second(both_d2h_ms));
  }
  for (cudaEvent_t end : ends) cudaEventDestroy(end);
  cudaEventDestroy(start);
  for (cudaStream_t stream : streams) cudaStreamDestroy(stream);
  return bandwidth;
}

}  // namespace idgpu::test
