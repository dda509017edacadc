#pragma once

#include "collectors/Recorder.h"

#include <chrono>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace tierscope {

// Recorder::Options from what `record` and `load` take on their command lines, checked the
// same way for both: the sampling interval (100ms..10s), the engine scrape interval (at least
// 100ms) and the engines' /metrics URLs (http:// or https:// only: libcurl would read file://
// and speak gopher://).
class RecorderOptions {
  public:
    struct Engine {
        std::string url;
        std::string tokenEnv; // names the variable holding its bearer token; empty: none
    };
    struct Input {
        std::string dbPath;
        std::string label;
        std::string storageProfile;
        std::string tags;
        std::string interval = "1s";
        std::string engineInterval = "1s";
        std::vector<Engine> engines;
        std::string engineOption = "--engine"; // the option the engines' URLs came from
        bool engineRaw = false;
        bool insecure = false;
    };

    static constexpr const char* kIntervalHelp = "Sampling interval, 100ms..10s";

    // The usage error of --interval, naming it, or nothing.
    static std::optional<std::string> intervalError(const std::string& text);
    // The usage error of an engine /metrics URL given with `option`, or nothing.
    static std::optional<std::string> urlError(const std::string& option, const std::string& url);
    // The options, or the usage error naming the option at fault.
    static std::variant<Recorder::Options, std::string> build(const Input& input);
};

} // namespace tierscope
