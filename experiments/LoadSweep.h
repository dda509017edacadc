#pragma once

#include "core/compare/SloBound.h"
#include "core/stats/LoadSummary.h"
#include "core/util/WallClock.h"
#include "experiments/MeasuredLoad.h"
#include "loadgen/LoadGenerator.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tierscope {

class Store;

// A load sweep: the same load at several request rates (open loop) or concurrencies (closed
// loop), each point measured by repeated runs, with the repetitions interleaved across the
// points (repetition 1 of every point, then repetition 2, ...) so drift on a shared machine
// hits every point alike. Each run is stored as a run of one experiment, its arm the point
// ("rate 4", "c16"), so `compare arm:EXPERIMENT/rate 4 ...` reads it as any experiment's.
//
// Each point's KPIs are RunKpis' per-run values read back from the store (the comparison's
// own definitions) and summarised by KpiLevel (its scale, its 95 % run-level interval). With
// SLOs, SloSearch brackets the highest point where all of them hold: the grid first, then
// bisection between the last point that holds and the first that fails, each probe measured
// by as many repetitions as a grid point.
class LoadSweep {
  public:
    enum class Mode { Rate, Concurrency };
    struct Options {
        LoadGenerator::Options generator; // everything but the rate and the concurrency
        MeasuredLoad load;                // the prompts; its seed plus the repetition per run
        std::optional<LoadSummary::Slo> goodput;
        Mode mode = Mode::Rate;
        std::vector<double> points;
        int repetitions = 3;
        std::vector<SloBound> slos;
        int bisectSteps = 3;
        // Requests sent once before the grid, at its lowest point, and stored as a warm-up run
        // that no point counts: a cold engine's first requests (its kernels, its allocator)
        // would otherwise land in the first point's first repetition and fail its SLOs.
        int warmupRequests = 0;
        std::string experiment = "sweep";
        nlohmann::json params = nlohmann::json::object(); // stored with every run
    };
    struct Hooks {
        std::function<void()> beforeRun;             // e.g. settle the engine's scrapes
        std::function<void(const std::string&)> say; // one line of progress
        const std::atomic<bool>* cancel = nullptr;
    };

    LoadSweep(Options options, Store& store, std::int64_t session, const WallClock& clock,
              Hooks hooks);
    // Runs the grid and, with SLOs, the search. The report: every point with its runs, its
    // KPIs with their intervals and its SLO verdicts, and with SLOs max_rate_at_slo (or
    // max_concurrency_at_slo) with holds_at and fails_at. Throws what the store or the
    // prompts throw.
    nlohmann::json run();

    static std::string label(Mode mode, double point); // "rate 4", "c16"
    static const char* modeName(Mode mode);            // "rate", "concurrency"
    // One run at a point, as `sweep` and a plan's sweep both send it: the rate (open loop, no
    // bound on concurrency) or the concurrency, and the parameters stored with the run that
    // name the point (sweep_point, rate, concurrency, sweep_mode) for `compare` to read back.
    static void atPoint(Mode mode, double point, LoadGenerator::Options& options,
                        nlohmann::json& params);
    // The KPIs every point reports, in table order.
    static const std::vector<std::string>& reported();

  private:
    struct Point {
        double value = 0;
        std::string probe; // "grid" or "bisection"
        std::vector<std::int64_t> runs;
        std::vector<std::map<std::string, double>> kpis; // one per measured run
        int failedRuns = 0;                              // not measurements (cancelled)
    };
    struct Sent {
        std::int64_t run = 0;
        long completed = 0, failed = 0;
        bool cancelled = false;
    };
    Sent send(double value, int repetition, const std::string& probe, int requests,
              const char* status);
    void measure(Point& point, int repetition);
    void warmUp();
    nlohmann::json describe(const Point& point) const;
    std::optional<bool> holds(const Point& point) const;

    Options m_options;
    Store& m_store;
    std::int64_t m_session;
    const WallClock& m_clock;
    Hooks m_hooks;
};

} // namespace tierscope
