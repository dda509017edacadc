#include "core/Gate.h"

#include "core/KpiComparison.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tierscope {

std::optional<Gate> Gate::parse(const std::string& text, std::string& error) {
    Gate g;
    g.text = text;
    std::size_t i = 0;
    auto skip = [&] {
        while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
            ++i;
    };
    skip();
    while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_'))
        g.kpi += text[i++];
    skip();
    if (g.kpi.empty() || i + 2 > text.size() ||
        (text.compare(i, 2, "<=") != 0 && text.compare(i, 2, ">=") != 0)) {
        error = "a gate reads KPI <= VALUE or KPI >= VALUE, e.g. \"ttft_p50 <= -25%\"";
        return std::nullopt;
    }
    g.atMost = text[i] == '<';
    i += 2;
    skip();
    const char* start = text.c_str() + i;
    char* end = nullptr;
    const double value = std::strtod(start, &end);
    if (end == start || !std::isfinite(value)) {
        error = "no number after the comparison in \"" + text + "\"";
        return std::nullopt;
    }
    std::string unit(end);
    while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back())))
        unit.pop_back();
    if (unit == "%") {
        g.kind = Kind::Relative;
        g.threshold = value / 100.0;
    } else if (unit == "x") {
        g.kind = Kind::Ratio;
        g.threshold = value;
    } else {
        error = "the threshold in \"" + text + "\" needs a unit: % (change) or x (ratio B/A)";
        return std::nullopt;
    }
    return g;
}

Gate::Result Gate::judge(const KpiComparison& k) const {
    if (!k.interval)
        return {Verdict::Inconclusive,
                "no confidence interval: fewer than two " + k.sampleKind + " on a side"};
    if (k.a == 0.0)
        return {Verdict::Inconclusive, "A is zero: no relative change"};
    // The interval of B - A, as a change relative to A (or a ratio), with A held fixed.
    const double offset = kind == Kind::Ratio ? 1.0 : 0.0;
    const double lo = offset + k.interval->lo / std::abs(k.a);
    const double hi = offset + k.interval->hi / std::abs(k.a);
    const double point = offset + k.difference() / std::abs(k.a);
    char numbers[160];
    if (kind == Kind::Ratio)
        std::snprintf(numbers, sizeof numbers, "B/A %.3fx, 95%% CI [%.3fx, %.3fx]", point, lo, hi);
    else
        std::snprintf(numbers, sizeof numbers, "change %+.1f%%, 95%% CI [%+.1f%%, %+.1f%%]",
                      point * 100, lo * 100, hi * 100);
    const bool pass = atMost ? hi <= threshold : lo >= threshold;
    const bool fail = atMost ? lo > threshold : hi < threshold;
    return {pass ? Verdict::Pass : fail ? Verdict::Fail : Verdict::Inconclusive, numbers};
}

const char* Gate::name(Verdict v) {
    switch (v) {
    case Verdict::Pass:
        return "pass";
    case Verdict::Fail:
        return "fail";
    case Verdict::Inconclusive:
        break;
    }
    return "inconclusive";
}

} // namespace tierscope
