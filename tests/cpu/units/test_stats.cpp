// The dispatch report's detail (src/core/stats.cpp): calls aggregated by function, side, problem
// shape and reason, across threads and resets, and the report's file name and JSON.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "core/api.h"
#include "core/stats.h"

using idgpu::Api;
using idgpu::Call;
using idgpu::Path;
using idgpu::Shape;
namespace stats = idgpu::stats;

namespace {

void record(Api api, Path path, const char* reason, Shape shape, bool failed = false) {
  Call call{api};
  call.path = path;
  call.reason = reason;
  call.shape = shape;
  stats::record(call, failed);
}

std::vector<stats::DetailRow> rows_of(Api api) {
  std::vector<stats::DetailRow> rows;
  for (const stats::DetailRow& row : stats::detail()) {
    if (row.api == api) rows.push_back(row);
  }
  return rows;
}

std::string describe(const std::vector<stats::DetailRow>& rows) {
  std::string text;
  for (const stats::DetailRow& row : rows) {
    text += std::string(idgpu::api_name(row.api)) + " | " + stats::path_name(row.path) + " | " + row.shape + " | " +
            row.reason + " | " + std::to_string(row.calls) + " | " + std::to_string(row.failed) + "\n";
  }
  return text;
}

}  // namespace

TEST_CASE("the detail aggregates calls by function, side, shape and reason", "[cpu][stats]") {
  stats::reset();
  const Api exec = Api::cufftExecC2C;
  const std::uint32_t small = stats::intern_shape("C2C_f32 n=1024 batch=8");
  const std::uint32_t large = stats::intern_shape("C2C_f32 n=65536 batch=1");
  CHECK(small != 0);
  CHECK(large != small);
  CHECK(stats::intern_shape("C2C_f32 n=1024 batch=8") == small);  // one id per text

  // Two pointers to one text are one reason; a reason built for the call (a plan's name) may be
  // gone by the time the report is written.
  std::string first_copy = "vendor plan";
  std::string second_copy = "vendor plan";
  for (int index = 0; index < 3; ++index) record(exec, Path::kVendor, first_copy.c_str(), Shape{small, 0, 0, 0});
  record(exec, Path::kVendor, second_copy.c_str(), Shape{small, 0, 0, 0}, true);
  {
    std::string plan_name = "Stockham C2C, 2 passes";
    record(exec, Path::kNative, plan_name.c_str(), Shape{large, 0, 0, 0});
    record(exec, Path::kNative, plan_name.c_str(), Shape{large, 0, 0, 0});
  }
  first_copy.assign("overwritten");
  second_copy.clear();
  record(exec, Path::kNone, "", Shape{}, true);  // refused before dispatch

  const std::vector<stats::DetailRow> rows = rows_of(exec);
  CAPTURE(describe(rows));
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].path == Path::kNative);  // native, vendor, then refused
  CHECK(rows[0].shape == "C2C_f32 n=65536 batch=1");
  CHECK(rows[0].reason == "Stockham C2C, 2 passes");
  CHECK(rows[0].calls == 2);
  CHECK(rows[0].failed == 0);
  CHECK(rows[1].path == Path::kVendor);
  CHECK(rows[1].shape == "C2C_f32 n=1024 batch=8");
  CHECK(rows[1].reason == "vendor plan");
  CHECK(rows[1].calls == 4);
  CHECK(rows[1].failed == 1);
  CHECK(rows[2].path == Path::kNone);
  CHECK(rows[2].shape.empty());
  CHECK(rows[2].reason.empty());
  CHECK(rows[2].calls == 1);
  CHECK(rows[2].failed == 1);

  // The per-function counters agree with the rows.
  const stats::Snapshot snap = stats::snapshot(exec);
  CHECK(snap.calls == 7);
  CHECK(snap.native == 2);
  CHECK(snap.vendor == 4);
  CHECK(snap.failed == 2);

  stats::reset();
  CHECK(rows_of(exec).empty());
  record(exec, Path::kVendor, "vendor plan", Shape{small, 0, 0, 0});
  const std::vector<stats::DetailRow> after = rows_of(exec);
  REQUIRE(after.size() == 1);
  CHECK(after[0].calls == 1);
  stats::reset();
}

TEST_CASE("tridiagonal shapes are written with their precision and layout", "[cpu][stats]") {
  stats::reset();
  record(Api::cusparseSgtsv2StridedBatch, Path::kVendor, "IDGPU_POLICY=vendor", Shape{0, 8, 3, 0});
  record(Api::cusparseZgtsvInterleavedBatch, Path::kNative, "partition", Shape{0, 32, 5, 2});
  record(Api::cusparseDgtsv2_nopivot, Path::kVendor, "no native solver for this problem yet", Shape{0, 1000, 2, 0});
  record(Api::cusparseCgtsv2_bufferSizeExt, Path::kVendor, "x", Shape{0, 16, 1, 0});
  const auto shape_of = [](Api api) {
    const std::vector<stats::DetailRow> rows = rows_of(api);
    REQUIRE(rows.size() == 1);
    return rows[0].shape;
  };
  CHECK(shape_of(Api::cusparseSgtsv2StridedBatch) == "f32 strided m=8 batch=3");
  CHECK(shape_of(Api::cusparseZgtsvInterleavedBatch) == "c128 interleaved algo=2 m=32 batch=5");
  CHECK(shape_of(Api::cusparseDgtsv2_nopivot) == "f64 m=1000 n=2");
  CHECK(shape_of(Api::cusparseCgtsv2_bufferSizeExt) == "c64 m=16 n=1");
  stats::reset();
}

TEST_CASE("the detail keeps what exited threads counted", "[cpu][stats]") {
  stats::reset();
  const Api api = Api::cufftExecZ2Z;
  const std::uint32_t shape = stats::intern_shape("C2C_f64 n=4096 batch=2");
  std::vector<std::thread> threads;
  for (int thread = 0; thread < 4; ++thread) {
    threads.emplace_back([&] {
      for (int call = 0; call < 100; ++call) record(api, Path::kVendor, "vendor plan", Shape{shape, 0, 0, 0});
    });
  }
  for (std::thread& thread : threads) thread.join();
  const std::vector<stats::DetailRow> rows = rows_of(api);
  CAPTURE(describe(rows));
  REQUIRE(rows.size() == 1);
  CHECK(rows[0].calls == 400);
  CHECK(stats::snapshot(api).calls == 400);
  stats::reset();
  CHECK(rows_of(api).empty());
}

TEST_CASE("calls past a thread's detail table are counted as not itemised", "[cpu][stats]") {
  stats::reset();
  const Api api = Api::cusparseSgtsv2;
  constexpr int kShapes = 40000;  // more keys than one thread's table holds (half of its 2^16 slots)
  std::thread worker([api] {
    for (int m = 1; m <= kShapes; ++m) record(api, Path::kVendor, "vendor", Shape{0, m, 1, 0});
  });
  worker.join();
  const std::vector<stats::DetailRow> rows = rows_of(api);
  std::uint64_t total = 0;
  std::uint64_t not_itemised = 0;
  for (const stats::DetailRow& row : rows) {
    total += row.calls;
    if (row.reason == stats::kNotItemised) not_itemised += row.calls;
  }
  CHECK(total == kShapes);
  CHECK(not_itemised > 0);
  CHECK(not_itemised < kShapes);
  stats::reset();
}

TEST_CASE("IDGPU_REPORT_FILE names a file per process", "[cpu][stats]") {
  CHECK(stats::report_path("report.txt", 42) == "report.txt");
  CHECK(stats::report_path("/tmp/idgpu-%p.json", 42) == "/tmp/idgpu-42.json");
  CHECK(stats::report_path("%p-%p", 7) == "7-7");
  CHECK(stats::report_path("100%%-%p", 7) == "100%-7");
  CHECK(stats::report_path("end%", 7) == "end%");
}

TEST_CASE("the JSON report holds the functions and the rows", "[cpu][stats]") {
  stats::reset();
  const std::uint32_t shape = stats::intern_shape("R2C_f64 n=8192 batch=1");
  record(Api::cufftExecD2Z, Path::kVendor, "a \"quoted\" reason\\with a backslash", Shape{shape, 0, 0, 0});
  const std::string json = stats::report_json();
  CAPTURE(json);
  CHECK(json.front() == '{');
  CHECK(json.back() == '}');
  CHECK(json.find("\"pid\": ") != std::string::npos);
  CHECK(json.find("\"version\": \"") != std::string::npos);
  CHECK(json.find("\"device\": ") != std::string::npos);
  CHECK(json.find("{\"function\": \"cufftExecD2Z\", \"calls\": 1, \"native\": 0, \"vendor\": 1, \"failed\": 0}") !=
        std::string::npos);
  CHECK(json.find("{\"function\": \"cufftExecD2Z\", \"path\": \"vendor\", \"shape\": \"R2C_f64 n=8192 batch=1\", "
                  "\"reason\": \"a \\\"quoted\\\" reason\\\\with a backslash\", \"calls\": 1, \"failed\": 0}") !=
        std::string::npos);
  stats::reset();
  const std::string empty = stats::report_json();
  CHECK(empty.find("\"functions\": []") != std::string::npos);
  CHECK(empty.find("\"rows\": []") != std::string::npos);
}
