#pragma once

#include "core/compare/Comparison.h"
#include "core/compare/ComparisonResult.h"
#include "core/compare/Gate.h"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace tierscope {

class Store;

// Everything a comparison shows, built from the store in one place, so `compare`, `run`,
// `export` and the GUI agree: the sides, the KPIs, gate verdicts, bottleneck shares and the
// provenance (plan, hosts, devices). It decides; it renders nothing (ComparisonCharts does).
class ComparisonBuilder {
  public:
    // A malformed side or gate: the user's mistake, not the store's.
    struct UsageError : std::invalid_argument {
        using std::invalid_argument::invalid_argument;
    };

    struct Options {
        std::vector<Gate> gates;
        // true: a gate on a KPI neither side measured is left out (a plan's gate on another
        // workload); false: it is undecided.
        bool dropUnmeasuredGates = false;
        // The session of an A/A calibration whose noise floor every KPI shows (NoiseFloor);
        // without it, the one the runs name (a plan's noise_floor or calibrate), if any.
        std::optional<std::int64_t> noiseFloorSession;
    };

    // "run:N" (or "N"), "run:1,2,3", "run:4-6", "session:N" or "arm:EXPERIMENT/ARM", with
    // requests and timelines. An experiment name is reused by every execution of its plan:
    // an arm whose runs lie in more than one session is refused unless it names one
    // (arm:EXPERIMENT/ARM@SESSION) or pools them on purpose (@all). Throws UsageError or
    // StoreError (NotFound).
    static ComparisonSide resolve(Store& store, const std::string& spec);
    // An arm with no runs (its experiment stopped first) is an empty side, not an error.
    // With a session, only that session's runs (one execution of the plan).
    static ComparisonSide arm(Store& store, const std::string& experiment, const std::string& arm,
                              const std::string& label,
                              std::optional<std::int64_t> session = std::nullopt);
    // Gate texts and preset names to gates; throws UsageError naming the bad one (a malformed
    // gate, an unknown preset or KPI).
    static std::vector<Gate> gates(const std::vector<std::string>& texts,
                                   const std::vector<std::string>& presets);

    static ComparisonResult build(Store& store, const ComparisonSide& a, const ComparisonSide& b,
                                  const Options& options);

    // Throws UsageError when a side's measured runs are of several workload variants, or the
    // sides are of different ones: their KPIs would average unlike things.
    static void checkVariants(const ComparisonSide& a, const ComparisonSide& b);

  private:
    static void load(Store& store, ComparisonSide& side);
    static void addNoiseFloor(Store& store, const ComparisonSide& a, const ComparisonSide& b,
                              const Options& o, ComparisonResult& in);
};

} // namespace tierscope
