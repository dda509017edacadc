#pragma once

#include <string>

namespace tierscope {

class Logging {
  public:
    // Sends the default spdlog logger to stderr (its stock sink is stdout, which would corrupt
    // --json output and CSV exports) with a short "tierscope: level: message" pattern.
    static void toStderr(const std::string& level = "warn");
};

} // namespace tierscope
