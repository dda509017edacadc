#pragma once

#include <optional>
#include <string>
#include <utility>

namespace tierscope {

struct KpiComparison;

// A pass/fail criterion on a KPI's change from A to B: "ttft_p50 <= -25%" (relative change),
// "model_load_time <= 0.5x" (ratio B/A), "output_throughput >= +29%".
struct Gate {
    enum class Kind { Relative, Ratio };
    enum class Verdict { Pass, Fail, Inconclusive };

    std::string text;
    std::string kpi;
    bool atMost = true; // <= ; false: >=
    Kind kind = Kind::Relative;
    double threshold = 0.0; // a fraction for Relative (-0.25), a factor for Ratio (0.5)

    // nullopt (with `error` set) when the expression is malformed.
    static std::optional<Gate> parse(const std::string& text, std::string& error);

    struct Result {
        Verdict verdict = Verdict::Inconclusive;
        std::string reason;
        // Undecided: the runs per arm that would decide it at 80 % power if the change and the
        // spread seen so far held (GatePower); absent when they cannot say.
        std::optional<int> runsPerArm;

        Result() = default;
        Result(Verdict v, std::string why, std::optional<int> runs = std::nullopt)
            : verdict(v), reason(std::move(why)), runsPerArm(runs) {}
    };
    // A budget beyond any experiment's: a gate needing more is "not decidable".
    static constexpr int kMaxRunsPerArm = 1000;
    // The threshold as the log of a ratio B/A (log 0.75 for "<= -25%"); absent when the
    // threshold is not a positive ratio ("<= -100%").
    std::optional<double> thresholdLog() const;
    // Pass when the whole interval (95 %, or a sequential design's per-look level) is on the
    // right side of the threshold, fail when it is wholly on the wrong side, undecided when it
    // straddles it (with the runs that would decide it) or there is no interval (fewer than two
    // runs on a side). Relative and ratio gates use the interval of the ratio
    // of geometric means (Welch on the logs of the run values); a "%" gate on a level KPI
    // (failure_rate) bounds B's own mean.
    Result judge(const KpiComparison& kpi) const;
    // "pass", "fail" or "undecided".
    static const char* name(Verdict v);

  private:
    void needed(const KpiComparison& kpi, Result& out) const;
};

} // namespace tierscope
