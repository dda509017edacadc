#include "app/commands/SimEngineCommand.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "core/util/DurationParser.h"
#include "core/util/SizeParser.h"

#include <cstdio>
#include <iostream>
#include <thread>

namespace tierscope {

CLI::App* SimEngineCommand::attach(CLI::App& parent, EngineSimulator::Options& o) {
    auto* cmd = parent.add_subcommand(
        "sim-engine",
        "Run an OpenAI-compatible engine SIMULATOR on 127.0.0.1 for tests and demos: "
        "streams tokens, serves vLLM-named /metrics, and makes TTFT = queueing + prefill + "
        "real KV-chunk reads from --kv-dir");
    cmd->add_option("--port", o.port, "TCP port on 127.0.0.1 (0: any free port, printed)")
        ->capture_default_str()
        ->check(CLI::Range(0, 65535));
    cmd->add_option("--kv-dir", o.kvDir,
                    "Directory for the prefix cache's KV chunk files (read with O_DIRECT)");
    cmd->add_option_function<std::string>(
        "--kv-read-rate",
        [&o](const std::string& text) {
            const auto bytes = SizeParser::parse(text);
            if (!bytes || *bytes == 0)
                throw CLI::ValidationError("--kv-read-rate", "not a size: " + text);
            o.kvReadBytesPerS = static_cast<double>(*bytes);
        },
        "Pace KV reads from --kv-dir to at most this much per second, as a slower tier "
        "(e.g. 500MB; default: as fast as the disk)");
    cmd->add_option("--model", o.model, "Model name to report")->capture_default_str();
    cmd->add_option("--max-concurrency", o.maxConcurrency,
                    "Requests served at once; the rest queue")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--prefill-tokens-per-s", o.prefillTokensPerS,
                    "Prefill speed for uncached tokens")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--decode-tokens-per-s", o.decodeTokensPerS, "Decode speed per request")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--chunk-tokens", o.chunkTokens, "Tokens per KV chunk")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--kv-bytes-per-token", o.kvBytesPerToken,
                    "KV bytes per token (default: Llama-3.1-8B fp16)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--kv-capacity-tokens", o.kvCapacityTokens, "Prefix-cache capacity in tokens")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_option("--cpu-kv-capacity-tokens", o.cpuKvCapacityTokens,
                    "A CPU (RAM) KV tier of this many tokens in front of --kv-dir (0: none)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--kv-connector", o.kvConnector,
                    "Whose metrics the reads from --kv-dir appear in: lmcache (LMCache's "
                    "retrieve time, inside the prefill), lmcache-mp (LMCache's multi-process "
                    "server: its lookups on a /metrics of its own, --lmcache-mp-port), "
                    "offloading (vLLM's OffloadingConnector: requests deferred for their KV, the "
                    "wait a lookup delay inside the queue time) or hicache (SGLang with HiCache: "
                    "SGLang's names, cached tokens by source, the reads a load back)")
        ->check(CLI::IsMember({"lmcache", "lmcache-mp", "offloading", "hicache"}))
        ->capture_default_str();
    cmd->add_option("--lmcache-mp-port", o.lmcacheMpPort,
                    "With --kv-connector lmcache-mp: the LMCache server's /metrics port (0: any "
                    "free port, printed)")
        ->capture_default_str()
        ->check(CLI::Range(0, 65535));
    cmd->add_flag("--recompute-fallback", o.recomputeFallback,
                  "Recompute cached chunks when reading them from --kv-dir would be slower");
    cmd->add_option("--error-rate", o.errorRate, "Share of requests answered with HTTP 500")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--disconnect-rate", o.disconnectRate, "Share of streams dropped half-way")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--stall-rate", o.stallRate, "Share of streams that pause half-way")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--stall-ms", o.stallMs, "Length of a stall")->capture_default_str();
    cmd->add_option("--seed", o.seed, "Seed for fault injection")->capture_default_str();
    cmd->add_option("--record-limit", o.recordLimit,
                    "Requests /sim/requests remembers (the most recent)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    cmd->add_flag("--close-connections", o.closeConnections,
                  "Close every connection after its response (for thousands of streams: "
                  "cpp-httplib polls idle keep-alive connections)");
    cmd->add_option_function<std::string>(
        "--startup-delay",
        [&o](const std::string& text) {
            const auto d = DurationParser::parse(text);
            if (!d)
                throw CLI::ValidationError("--startup-delay", "not a duration: " + text);
            o.startupDelayS = std::chrono::duration<double>(*d).count();
        },
        "Wait this long before listening, as an engine that loads its weights (e.g. 3s)");
    return cmd;
}

int SimEngineCommand::run(const EngineSimulator::Options& options) {
    const auto listenAt = std::chrono::steady_clock::now() +
                          std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                              std::chrono::duration<double>(options.startupDelayS));
    while (!CancelOnSignal::flag() && std::chrono::steady_clock::now() < listenAt)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (CancelOnSignal::flag())
        return kExitOk;
    EngineSimulator simulator(options);
    int port = 0;
    try {
        port = simulator.start();
    } catch (const std::exception& e) {
        std::cerr << "tierscope sim-engine: " << e.what() << "\n";
        return kExitFailure;
    }
    std::printf(
        "tierscope sim-engine (a simulator, not an inference engine) listening on "
        "http://127.0.0.1:%d\n"
        "  /v1/completions, /v1/chat/completions, /v1/models, /metrics, /reset_prefix_cache, "
        "/sim/requests; "
        "Ctrl-C stops\n",
        port);
    if (simulator.lmcacheMpPort() > 0)
        std::printf("  LMCache server /metrics: http://127.0.0.1:%d/metrics\n",
                    simulator.lmcacheMpPort());
    std::fflush(stdout);
    while (!CancelOnSignal::flag())
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    simulator.stop();
    return kExitOk;
}

} // namespace tierscope
