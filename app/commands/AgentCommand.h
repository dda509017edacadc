#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace tierscope {

// `tierscope agent`: serve this machine's collectors as Prometheus /metrics.
class AgentCommand {
  public:
    struct Options {
        std::string listen = "127.0.0.1:9464";
        std::string interval = "1s";
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const Options& options);
};

} // namespace tierscope
