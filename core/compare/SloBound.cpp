#include "core/compare/SloBound.h"

#include "core/compare/RunKpis.h"
#include "core/util/DurationParser.h"

#include <cctype>
#include <cmath>
#include <cstdlib>

namespace tierscope {

namespace {

std::string trimmed(const std::string& s) {
    std::size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a])))
        ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])))
        --b;
    return s.substr(a, b - a);
}

// The bound in the KPI's unit, or nullopt.
std::optional<double> value(const std::string& text, const std::string& unit) {
    if (unit == "s") {
        const auto d = DurationParser::parse(text);
        return d ? std::optional<double>(static_cast<double>(d->count()) / 1e9) : std::nullopt;
    }
    const char* start = text.c_str();
    char* end = nullptr;
    const double v = std::strtod(start, &end);
    if (end == start || !std::isfinite(v))
        return std::nullopt;
    const std::string rest = trimmed(end);
    if (!rest.empty() && rest != unit)
        return std::nullopt;
    return v;
}

} // namespace

std::optional<SloBound> SloBound::parse(const std::string& text, std::string& error) {
    SloBound s;
    s.text = text;
    const auto op = std::min(text.find("<="), text.find(">="));
    if (op == std::string::npos) {
        error =
            "an SLO reads KPI<=VALUE or KPI>=VALUE, e.g. \"ttft_p99<=2s\", not \"" + text + "\"";
        return std::nullopt;
    }
    s.kpi = trimmed(text.substr(0, op));
    s.atMost = text[op] == '<';
    const auto* definition = RunKpis::find(s.kpi);
    if (definition && definition->armLevel) {
        error = "\"" + s.kpi + "\" in \"" + text +
                "\" is an arm's capacity, not a run's KPI an SLO can bound";
        return std::nullopt;
    }
    if (!definition) {
        const auto renamed = RunKpis::renamedTo(s.kpi);
        error = "\"" + s.kpi + "\" in \"" + text + "\" is not a KPI" +
                (renamed ? "; it is now " + *renamed : std::string());
        return std::nullopt;
    }
    s.unit = definition->unit;
    const std::string bound = trimmed(text.substr(op + 2));
    const auto v = value(bound, s.unit);
    if (!v || *v < 0) {
        error = "the bound in \"" + text + "\" is not " +
                (s.unit == "s" ? std::string("a duration such as 2s or 100ms")
                               : "a number in " + s.unit);
        return std::nullopt;
    }
    s.threshold = *v;
    return s;
}

std::optional<double> SloBound::judgedEnd(const KpiLevel& level) const {
    if (!level.interval)
        return std::nullopt;
    return atMost ? level.interval->hi : level.interval->lo;
}

std::optional<bool> SloBound::holds(const KpiLevel& level) const {
    const auto end = judgedEnd(level);
    if (!end)
        return std::nullopt;
    return atMost ? *end <= threshold : *end >= threshold;
}

std::optional<bool> SloBound::allHold(const std::vector<SloBound>& slos,
                                      const std::vector<std::map<std::string, double>>& runs) {
    if (runs.empty())
        return std::nullopt;
    for (const auto& slo : slos) {
        std::vector<double> values;
        for (const auto& run : runs)
            if (const auto it = run.find(slo.kpi); it != run.end())
                values.push_back(it->second);
        const auto level = KpiLevel::of(values);
        if (values.size() < runs.size() || !level || !slo.holds(*level).value_or(false))
            return false;
    }
    return true;
}

} // namespace tierscope
