#pragma once

#include "app/common/GlobalOptions.h"

#include <chrono>
#include <optional>
#include <string>

namespace tierscope {

// Sessions fed from a Prometheus server: `import prometheus` (a past range) and
// `record --prometheus` (follows the server until Ctrl-C or --duration).
class PrometheusSource {
  public:
    struct Options {
        std::string url;
        std::string nodes = ".+";
        std::string step = "1s";
        std::string timeout = "30s"; // per query
        std::string templates;       // a TOML file of extra templates
        std::string start;           // import only
        std::string end = "now";
        std::string label;
        std::string storageProfile;
        bool quiet = false;
    };

    static int importRange(const GlobalOptions& global, const Options& options);
    static int record(const GlobalOptions& global, const Options& options,
                      std::optional<std::chrono::nanoseconds> duration);
};

} // namespace tierscope
