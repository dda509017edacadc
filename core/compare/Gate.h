#pragma once

#include <optional>
#include <string>

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
    };
    // Pass when the whole 95 % interval is on the right side of the threshold, fail when it is
    // wholly on the wrong side, inconclusive when it straddles it or there is no interval
    // (fewer than two runs on a side). Relative and ratio gates use the interval of the ratio
    // of geometric means (Welch on the logs of the run values); a "%" gate on a level KPI
    // (failure_rate) bounds B's own mean.
    Result judge(const KpiComparison& kpi) const;
    static const char* name(Verdict v);
};

} // namespace tierscope
