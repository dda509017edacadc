#pragma once

#include "experiments/PlanSweep.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tierscope {

// An A/B experiment, read from TOML (resources/plans/ has examples): arms (storage setups),
// workloads (optionally swept over concurrency), repetitions, warm-up and gates.
struct ExperimentPlan {
    struct Arm {
        std::string label;
        std::string storageProfile;
        std::string path;      // the arm's directory for storage workloads ({path} in commands)
        std::string engineUrl; // for load workloads
        // More /metrics endpoints of the arm's engine (an LMCache server, KVBM, Mooncake's
        // master serve their own port), recorded as the engine's is.
        std::vector<std::string> metricsUrls;
        // engine_url's /metrics, then metrics_urls: the endpoints this arm's runs are read from.
        std::vector<std::string> metricsEndpoints() const;
        std::string setup;     // shell commands run before each of the arm's runs
        std::string teardown;  // and after
        std::chrono::milliseconds timeout{60000}; // for setup and teardown each
        std::map<std::string, std::string> env;
        // The arm's engine, started by the runner in a process group of its own and stopped as
        // a group (SIGTERM, then SIGKILL after engineStopGrace), so none outlives its arm.
        std::string engineStart; // a shell command; empty: setup manages the engine, if any
        // URL (or a path on engine_url) polled until it answers 200; empty: /v1/models
        std::string engineReady;
        std::chrono::milliseconds readyTimeout{15 * 60 * 1000};
        std::chrono::milliseconds engineStopGrace{30000};
        // run: a fresh engine for every run; arm: one for consecutive runs of the arm.
        enum class EngineRestart { Run, Arm };
        EngineRestart engineRestart = EngineRestart::Arm;
        // Cache control, run before each run (for cold-recovery: between its populate and its
        // measured phase), in this order: the engine's prefix cache (POST
        // {engine_url}/reset_prefix_cache), the free-form `reset` command (an LMCache CPU tier,
        // ...; like setup, in its own process group, with `timeout`), then the page cache
        // (sync, then 3 > /proc/sys/vm/drop_caches, which needs root).
        bool resetPrefixCache = false;
        std::string reset;
        bool dropCaches = false;
        bool hasReset() const { return resetPrefixCache || !reset.empty() || dropCaches; }
        // What the arm's KV should come from in a cold-recovery run: restored from its KV
        // tier (the default), or recomputed, the baseline a KV tier is measured against (vLLM
        // with --no-enable-prefix-caching or without a connector). Its cache evidence then
        // passes on no tier hits, and its storage evidence on reading next to nothing.
        enum class Cache { Restore, Recompute };
        Cache cache = Cache::Restore;
        // One of the arm's commands with {path} quoted for /bin/sh: a path with a space stays
        // one word (the parser refused a {path} inside quotes already, naming $TIERSCOPE_PATH).
        std::string expand(const std::string& command) const;
    };
    struct Workload {
        std::string kind; // model-load | kv-restore | checkpoint-save | load | cold-recovery
        std::map<std::string, std::string> params; // workload options, as text
        std::vector<int> concurrency;              // a sweep; empty: the workload's default
        // A load sweep with SLOs: one variant whose runs each name their point (PlanSweep).
        std::optional<PlanSweep> sweep;
    };
    // One workload variant: a workload at one point of its sweep.
    struct Variant {
        std::size_t workload = 0;
        int concurrency = 0; // 0: default
        std::string name() const;
    };

    std::string name;
    std::vector<Arm> arms;
    std::vector<Workload> workloads;
    int repetitions = 3; // under "auto", the first block's
    int warmup = 0;      // unmeasured repetitions of each arm and variant, run first
    // repetitions = "auto" (SequentialDesign): blocks of repetitions until every gate is
    // decided, at most this many.
    std::optional<int> maxRepetitions;
    // An A/A calibration of the first arm runs first, in a session of its own, and the
    // experiment's KPIs show the noise floor it measured (NoiseFloor).
    bool calibrate = false;
    int calibrationRuns = 8;                       // per copy of the arm
    std::optional<std::int64_t> noiseFloorSession; // an earlier calibration's floor
    // The change each gated KPI is expected to show (a fraction), for the runs a gate needs.
    std::map<std::string, double> expected;
    // abba: A B B A ... (the default), which cancels a linear drift; interleaved: A B A B;
    // random: a seeded shuffle of the arms in each repetition.
    enum class Order { Abba, Interleaved, Random };
    Order order = Order::Abba;
    std::uint64_t seed = 1;
    bool stopOnFailure = false;
    std::vector<std::string> gates;
    // The errors validity check fails a run whose share of failed requests is above this (0..1);
    // without it, any failure is a warning.
    std::optional<double> maxFailureRate;
    // A restoring arm's cache evidence fails when fewer of the tokens it looked up in its KV
    // tier hit than this share (0..1): a few hit tokens do not make a restore.
    double minHitShare = 0.5;

    // Throws std::runtime_error naming the line of what is wrong.
    static ExperimentPlan parse(std::string_view toml);

    // More runs than any experiment needs (a week of 1-minute runs is 10,080); the schedule of
    // a plan is built whole before its first run.
    static constexpr int kMaxRuns = 100'000;

    static const char* orderName(Order o);
    std::vector<Variant> variants() const;
    // Every /metrics endpoint the experiment records: each arm's engine_url's /metrics and its
    // metrics_urls, each once, in arm order.
    std::vector<std::string> metricsEndpoints() const;
};

} // namespace tierscope
