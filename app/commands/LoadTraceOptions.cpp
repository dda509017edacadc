#include "app/commands/LoadTraceOptions.h"

#include <stdexcept>

namespace tierscope {

void LoadTraceOptions::attach(CLI::App& cmd, TraceSchedule::Options& o) {
    cmd.add_option("--trace", o.path,
                   "--dataset trace: the trace file; it is read as it is replayed, so a trace "
                   "of any size keeps the client's memory bounded");
    cmd.add_option("--trace-format", o.format,
                   "--dataset trace: mooncake (JSONL, timestamp in ms, 512-token hash ids), "
                   "bailian (Qwen-Bailian JSONL, s, 16-token hash ids), azure (Azure LLM "
                   "inference trace CSV, 2023 or 2024) or burstgpt (BurstGPT CSV)")
        ->check(CLI::IsMember({"mooncake", "bailian", "azure", "burstgpt"}));
    cmd.add_option("--time-scale", o.timeScale,
                   "--dataset trace: send times are the trace's (from its first request) times "
                   "this; 0.5 replays twice as fast")
        ->check(CLI::PositiveNumber)
        ->capture_default_str();
    cmd.add_option("--max-requests", o.maxRequests,
                   "--dataset trace: send at most the first N requests of the trace")
        ->check(CLI::PositiveNumber);
    cmd.add_option("--start-at", o.startAtS,
                   "--dataset trace: skip the trace's first S seconds (trace time); the replay "
                   "starts with the request after them")
        ->check(CLI::NonNegativeNumber);
}

std::optional<std::string> LoadTraceOptions::open(const TraceSchedule::Options& options,
                                                  const Given& given,
                                                  std::unique_ptr<TraceSchedule>& schedule) {
    const bool traceFlags = !options.path.empty() || !options.format.empty() ||
                            options.timeScale != 1.0 || options.maxRequests != 0 ||
                            options.startAtS != 0;
    if (given.dataset != "trace") {
        if (traceFlags)
            return "--trace, --trace-format, --time-scale, --max-requests and --start-at go "
                   "with --dataset trace";
        return std::nullopt;
    }
    if (options.path.empty() || options.format.empty())
        return "--dataset trace needs --trace FILE and --trace-format "
               "mooncake|bailian|azure|burstgpt";
    // The trace is the schedule: a rate or a concurrency would be a second one.
    if (given.concurrency > 0 || given.rate > 0)
        return "--dataset trace sends each request at its time in the trace: --concurrency and "
               "--rate do not apply (--time-scale scales the times)";
    if (given.requests > 0)
        return "--dataset trace takes --max-requests N (the trace's first N), not --requests";
    TraceSchedule::Options o = options;
    o.seed = given.seed;
    try {
        schedule = std::make_unique<TraceSchedule>(o);
    } catch (const std::exception& e) {
        return std::string(e.what());
    }
    return std::nullopt;
}

nlohmann::json LoadTraceOptions::params(const TraceSchedule::Options& o) {
    return {{"trace", o.path},
            {"trace_format", o.format},
            {"time_scale", o.timeScale},
            {"max_requests", o.maxRequests > 0 ? nlohmann::json(o.maxRequests) : nullptr},
            {"start_at", o.startAtS}};
}

} // namespace tierscope
