// Named loggers per layer (spdlog, to stderr). Formatting happens only when a level is enabled.
#pragma once

#include <spdlog/logger.h>

namespace idgpu::log {

spdlog::logger& api();       // every exported call, its arguments and its dispatch
spdlog::logger& plan();      // plan creation and the plan tree
spdlog::logger& dispatch();  // native or vendor, and why
spdlog::logger& vendor();    // finding and loading the vendor libraries
spdlog::logger& kernel();    // launches (and IDGPU_SYNC_CHECK results)

}  // namespace idgpu::log
