// The C boundary: every exported function is a thin guard around its C++ body. One helper does
// what each entry point would otherwise repeat: no exception crosses the ABI (each maps to the
// vendor's status), every call is counted, and at debug level logged with its arguments and its
// dispatch; arguments refused before dispatch get an error line that names them.
#pragma once

#include <cufft.h>
#include <cusparse.h>

#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "core/api.h"
#include "core/config.h"
#include "core/log.h"
#include "core/stats.h"

namespace idgpu::shim {

template <class Status>
struct StatusCodes;

template <>
struct StatusCodes<cufftResult> {
  static constexpr cufftResult kSuccess = CUFFT_SUCCESS;
  static constexpr cufftResult kAllocFailed = CUFFT_ALLOC_FAILED;
  static constexpr cufftResult kInternal = CUFFT_INTERNAL_ERROR;
  static const char* name(cufftResult status);
};

template <>
struct StatusCodes<cusparseStatus_t> {
  static constexpr cusparseStatus_t kSuccess = CUSPARSE_STATUS_SUCCESS;
  static constexpr cusparseStatus_t kAllocFailed = CUSPARSE_STATUS_ALLOC_FAILED;
  static constexpr cusparseStatus_t kInternal = CUSPARSE_STATUS_INTERNAL_ERROR;
  static const char* name(cusparseStatus_t status);
};

template <class T>
std::string format_value(const T& value) {
  if constexpr (std::is_pointer<T>::value) {
    return fmt::format("{}", static_cast<const void*>(value));
  } else if constexpr (std::is_enum<T>::value) {
    return fmt::format("{}", static_cast<long long>(value));
  } else {
    return fmt::format("{}", value);
  }
}

// "(plan, idata, odata)" and the values -> "plan=3, idata=0x..., odata=0x...".
template <class... Args>
std::string format_arguments(const char* names, const Args&... values) {
  const std::string values_text[] = {format_value(values)..., std::string()};
  std::string text;
  const char* cursor = names + (names[0] == '(' ? 1 : 0);
  for (std::size_t index = 0; index < sizeof...(Args); ++index) {
    while (*cursor == ' ') ++cursor;
    const char* end = cursor;
    while (*end != ',' && *end != ')' && *end != '\0') ++end;
    if (index > 0) text += ", ";
    text.append(cursor, static_cast<std::size_t>(end - cursor));
    text += '=';
    text += values_text[index];
    cursor = *end == '\0' ? end : end + 1;
  }
  return text;
}

void log_exception(Api api, const char* what);

template <class Status, class Body, class... Args>
Status enter(Api api, const char* argument_names, Body&& body, const Args&... arguments) noexcept {
  using Codes = StatusCodes<Status>;
  Call call{api};
  Status status = Codes::kInternal;
  try {
    status = body(call);
  } catch (const std::bad_alloc&) {
    log_exception(api, "out of host memory");
    status = Codes::kAllocFailed;
  } catch (const std::exception& error) {
    log_exception(api, error.what());
  } catch (...) {
    log_exception(api, "unknown exception");
  }
  const bool failed = status != Codes::kSuccess;
  try {
    stats::record(call, failed);
    // The api logger's level, from the hot line (the logger itself is touched only to log).
    const int level = hot().api_log_level;
    if (failed && call.path == Path::kNone && level <= static_cast<int>(LogLevel::kError)) {
      log::api().error("{}({}) refused: {}", api_name(api), format_arguments(argument_names, arguments...),
                   Codes::name(status));
    } else if (level <= static_cast<int>(LogLevel::kDebug)) {
      log::api().debug("{}({}) -> {} [{}{}{}]", api_name(api), format_arguments(argument_names, arguments...),
                   Codes::name(status),
                   call.path == Path::kNative ? "native" : call.path == Path::kVendor ? "vendor" : "not dispatched",
                   call.reason[0] != '\0' ? ": " : "", call.reason);
    }
  } catch (...) {
    // Statistics and logging never change a call's result.
  }
  return status;
}

}  // namespace idgpu::shim
