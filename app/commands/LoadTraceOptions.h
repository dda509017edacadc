#pragma once

#include "loadgen/TraceSchedule.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tierscope {

// `tierscope load --dataset trace`: its flags (--trace, --trace-format, --time-scale,
// --max-requests, --start-at), what they may be combined with, the schedule they open, and
// what the run's parameters and output say of the trace. Kept apart from LoadCommand so that
// command stays wiring.
class LoadTraceOptions {
  public:
    // What else the command was given, for the checks.
    struct Given {
        std::string dataset;
        int concurrency = 0;
        double rate = 0;
        int requests = 0;
        std::uint64_t seed = 0;
    };

    static void attach(CLI::App& command, TraceSchedule::Options& options);
    // With --dataset trace, opens the trace into `schedule` (a malformed line is counted, not
    // fatal; a trace with nothing to send is). The usage error, or nothing.
    static std::optional<std::string> open(const TraceSchedule::Options& options,
                                           const Given& given,
                                           std::unique_ptr<TraceSchedule>& schedule);
    // The run's parameters: what the trace was and how it was replayed.
    static nlohmann::json params(const TraceSchedule::Options& options);
};

} // namespace tierscope
