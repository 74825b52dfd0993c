// The shared call log of the fake vendor libraries (see fake_vendor.h).
#include "fake_vendor.h"

#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace {

struct Log {
  std::mutex mutex;
  std::vector<FakeVendorCall> history;
  std::map<std::string, unsigned long long> counts;
  std::map<std::string, int> statuses;
  unsigned long long total = 0;
  unsigned long long misuse = 0;
  bool has_last = false;
  FakeVendorCall last{};
  std::set<int> live_cufft;
  int next_cufft = FAKE_VENDOR_FIRST_CUFFT_HANDLE;
  unsigned long long next_cusparse = FAKE_VENDOR_FIRST_CUSPARSE_HANDLE;
};

Log& log() {
  static Log* instance = new Log();  // never destroyed: calls may arrive from exit handlers
  return *instance;
}

// Per thread, so that concurrent tests can check the call their own thread caused.
thread_local bool thread_has_last = false;
thread_local FakeVendorCall thread_last{};

}  // namespace

extern "C" {

void fakeVendorReset(void) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.history.clear();
  l.counts.clear();
  l.statuses.clear();
  l.total = 0;
  l.misuse = 0;
  l.has_last = false;
  thread_has_last = false;
}

int fakeVendorLastCall(FakeVendorCall* call) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  if (!l.has_last) return 0;
  *call = l.last;
  return 1;
}

int fakeVendorThreadLastCall(FakeVendorCall* call) {
  if (!thread_has_last) return 0;
  *call = thread_last;
  return 1;
}

int fakeVendorCallAt(unsigned long long index, FakeVendorCall* call) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  if (index >= l.history.size()) return 0;
  *call = l.history[index];
  return 1;
}

unsigned long long fakeVendorCallCount(const char* name) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  if (name == nullptr) return l.total;
  const auto found = l.counts.find(name);
  return found == l.counts.end() ? 0 : found->second;
}

void fakeVendorSetStatus(const char* name, int status) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  l.statuses[name] = status;
}

unsigned long long fakeVendorMisuseCount(void) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  return l.misuse;
}

long long fakeVendorLiveCufftHandles(void) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  return static_cast<long long>(l.live_cufft.size());
}

int fakeVendorChosenStatus(const char* name, int* status) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  const auto found = l.statuses.find(name);
  if (found == l.statuses.end()) return 0;
  *status = found->second;
  return 1;
}

void fakeVendorRecord(const FakeVendorCall* call) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  FakeVendorCall entry = *call;
  entry.sequence = ++l.total;
  l.counts[entry.name] += 1;
  if (l.history.size() < FAKE_VENDOR_HISTORY) l.history.push_back(entry);
  l.last = entry;
  l.has_last = true;
  thread_last = entry;
  thread_has_last = true;
}

int fakeVendorNewCufftHandle(void) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  const int handle = l.next_cufft++;
  l.live_cufft.insert(handle);
  return handle;
}

int fakeVendorReleaseCufftHandle(int handle) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  return l.live_cufft.erase(handle) == 1 ? 1 : 0;
}

int fakeVendorIsLiveCufftHandle(int handle) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  return l.live_cufft.count(handle) == 1 ? 1 : 0;
}

void fakeVendorNoteMisuse(void) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  ++l.misuse;
}

unsigned long long fakeVendorNewCusparseHandle(void) {
  Log& l = log();
  std::lock_guard<std::mutex> lock(l.mutex);
  const unsigned long long handle = l.next_cusparse;
  l.next_cusparse += 0x100;
  return handle;
}

}  // extern "C"
