#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tierscope {

class RecordCommand {
  public:
    struct Options {
        std::string label;
        std::string storageProfile;
        std::string duration;
        std::string interval = "1s";
        bool quiet = false;
        std::vector<std::string> engines;
        std::string engineTokenEnv;
        std::string engineInterval = "1s";
        bool engineRaw = false;
        bool insecure = false;
        std::string prometheus; // record from this server instead of this machine
        std::string nodes = ".+";
        std::string templates;
        std::string target; // ssh://host: record that server, mirrored here
    };

    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
