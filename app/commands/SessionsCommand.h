#pragma once

#include "app/common/GlobalOptions.h"
#include "core/model/MetricInfo.h"
#include "core/model/SessionInfo.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

class Store;

class SessionsCommand {
  public:
    struct Options {
        bool json = false;
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
    // "finished", "recording" or "interrupted": the STATE the listing prints.
    static std::string stateOf(Store& store, const SessionInfo& session,
                               const std::vector<MetricInfo>& metrics, std::int64_t nowNs);
};

} // namespace tierscope
