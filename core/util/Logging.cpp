#include "core/util/Logging.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace tierscope {

void Logging::toStderr(const std::string& level) {
    auto logger = spdlog::stderr_logger_mt("tierscope");
    spdlog::set_default_logger(logger);
    spdlog::set_level(spdlog::level::from_str(level));
    spdlog::set_pattern("tierscope: %l: %v");
}

} // namespace tierscope
