// The test side of the fake vendor: reading its log in C++ terms.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

#include "fake_vendor.h"

namespace idgpu::test {

struct RecordedCall {
  std::string name;
  std::vector<unsigned long long> args;
  unsigned long long out = 0;
  int status = 0;
};

inline RecordedCall to_recorded(const FakeVendorCall& call) {
  RecordedCall recorded;
  recorded.name = call.name;
  recorded.args.assign(call.args, call.args + call.argc);
  recorded.out = call.out;
  recorded.status = call.status;
  return recorded;
}

// Every call since the last fakeVendorReset, in order.
inline std::vector<RecordedCall> vendor_calls() {
  std::vector<RecordedCall> calls;
  FakeVendorCall call{};
  for (unsigned long long index = 0; fakeVendorCallAt(index, &call) != 0; ++index) calls.push_back(to_recorded(call));
  return calls;
}

inline std::vector<std::string> vendor_call_names() {
  std::vector<std::string> names;
  for (const RecordedCall& call : vendor_calls()) names.push_back(call.name);
  return names;
}

inline RecordedCall last_vendor_call() {
  FakeVendorCall call{};
  if (fakeVendorLastCall(&call) == 0) return {};
  return to_recorded(call);
}

inline unsigned long long vendor_call_count(const char* name = nullptr) { return fakeVendorCallCount(name); }

// The fake's path as CTest set it: the tests refuse to run against anything else.
inline std::string fake_vendor_path(const char* variable) {
  const char* value = std::getenv(variable);
  return value != nullptr ? value : "";
}

}  // namespace idgpu::test
