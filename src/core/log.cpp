#include "core/log.h"

#include <spdlog/sinks/stdout_sinks.h>

#include <memory>

#include "core/config.h"

namespace idgpu::log {
namespace {

spdlog::level::level_enum to_spdlog(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace: return spdlog::level::trace;
    case LogLevel::kDebug: return spdlog::level::debug;
    case LogLevel::kInfo: return spdlog::level::info;
    case LogLevel::kWarn: return spdlog::level::warn;
    case LogLevel::kError: return spdlog::level::err;
    case LogLevel::kOff: return spdlog::level::off;
  }
  return spdlog::level::err;
}

// Loggers are not put in spdlog's registry: the host process may use spdlog itself.
std::shared_ptr<spdlog::logger> make_logger(const char* name) {
  static auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>(name, sink);
  logger->set_pattern("[idgpu %n] %l: %v");
  logger->set_level(to_spdlog(config().log_level));
  logger->flush_on(spdlog::level::trace);
  return logger;
}

}  // namespace

spdlog::logger& api() {
  static const auto logger = make_logger("api");
  return *logger;
}
spdlog::logger& plan() {
  static const auto logger = make_logger("plan");
  return *logger;
}
spdlog::logger& dispatch() {
  static const auto logger = make_logger("dispatch");
  return *logger;
}
spdlog::logger& vendor() {
  static const auto logger = make_logger("vendor");
  return *logger;
}
spdlog::logger& kernel() {
  static const auto logger = make_logger("kernel");
  return *logger;
}

}  // namespace idgpu::log
