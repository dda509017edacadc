#include "core/report/ComparisonVerdict.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

namespace tierscope {

namespace {

constexpr std::size_t kHeadline = 3; // figures named per side; the table has the rest

// The KPIs a reader looks for first; any other significant one follows in table order.
int priority(const std::string& name) {
    static const std::vector<std::string> order = {
        "ttft_p50",      "output_throughput", "ttft_p99",        "request_throughput",
        "goodput",       "model_load_time",   "checkpoint_time", "kv_restore_p50",
        "read_gb_per_s", "write_gb_per_s",    "e2el_p50",        "tpot_mean",
        "itl_mean",      "failure_rate"};
    const auto it = std::find(order.begin(), order.end(), name);
    return it == order.end() ? static_cast<int>(order.size())
                             : static_cast<int>(it - order.begin());
}

std::string list(std::vector<const KpiComparison*> kpis) {
    std::stable_sort(kpis.begin(), kpis.end(), [](const auto* x, const auto* y) {
        return priority(x->name) < priority(y->name);
    });
    std::string out;
    for (std::size_t i = 0; i < kpis.size() && i < kHeadline; ++i)
        out += (i ? ", " : "") + ComparisonVerdict::displayName(kpis[i]->name) + " " +
               ComparisonVerdict::change(*kpis[i]);
    if (kpis.size() > kHeadline)
        out += " and " + std::to_string(kpis.size() - kHeadline) + " more";
    return out;
}

std::string gates(const ComparisonReport::Input& in, const std::set<int>& notApplicable,
                  bool* failed) {
    std::string out;
    for (std::size_t i = 0; i < in.gates.size(); ++i) {
        const auto v = in.gates[i].second.verdict;
        std::string word = notApplicable.count(static_cast<int>(i)) ? "n/a"
                           : v == Gate::Verdict::Pass               ? "PASS"
                           : v == Gate::Verdict::Fail               ? "FAIL"
                                                                    : "INCONCLUSIVE";
        if (v == Gate::Verdict::Fail)
            *failed = true;
        out += (i ? ", G" : "G") + std::to_string(i + 1) + " " + word;
    }
    return out;
}

} // namespace

ComparisonVerdict::Tone ComparisonVerdict::tone(const KpiComparison& k) {
    switch (k.verdict()) {
    case KpiComparison::Verdict::BetterB:
        return Tone::Better;
    case KpiComparison::Verdict::BetterA:
        return Tone::Worse;
    case KpiComparison::Verdict::Changed:
        return Tone::Changed;
    case KpiComparison::Verdict::NoSignificantDifference:
        return Tone::NoDifference;
    case KpiComparison::Verdict::NoInterval:
        break;
    }
    return Tone::NoInterval;
}

std::string ComparisonVerdict::displayName(const std::string& kpi) {
    static const std::map<std::string, std::string> names = {
        {"ttft_mean", "TTFT mean"},
        {"ttft_p50", "TTFT p50"},
        {"ttft_p90", "TTFT p90"},
        {"ttft_p99", "TTFT p99"},
        {"itl_mean", "ITL mean"},
        {"tpot_mean", "TPOT mean"},
        {"e2el_p50", "E2E latency p50"},
        {"e2el_p99", "E2E latency p99"},
        {"failure_rate", "failure rate"},
        {"output_throughput", "throughput"},
        {"request_throughput", "request rate"},
        {"read_gb_per_s", "read GB/s"},
        {"write_gb_per_s", "write GB/s"},
        {"read_gb_per_s_peak", "peak read GB/s"},
        {"write_gb_per_s_peak", "peak write GB/s"},
        {"model_load_time", "model load time"},
        {"checkpoint_time", "checkpoint time"},
        {"kv_restore_p50", "KV restore p50"},
        {"kv_restore_p99", "KV restore p99"},
        {"gpu_busy_mean", "GPU busy"},
    };
    const auto it = names.find(kpi);
    return it == names.end() ? kpi : it->second;
}

std::string ComparisonVerdict::change(const KpiComparison& k) {
    // The KPI's one interval, as the table and the gates print it.
    if (k.scale == KpiComparison::Scale::Ratio && k.a != 0)
        return k.relativeText();
    // A difference of percentages is in points, not a relative change.
    const bool points = k.unit == "%";
    auto value = [&](double v) {
        if (points) {
            char text[32];
            std::snprintf(text, sizeof text, "%+.1f", v);
            return std::string(text);
        }
        return (v >= 0 ? "+" : "") + ComparisonReport::formatValue(v, k.unit);
    };
    std::string out = value(k.difference()) + (points ? " pts" : "");
    if (k.interval)
        out += " [" + value(k.interval->lo) + ", " + value(k.interval->hi) + "]";
    return out;
}

ComparisonVerdict::Result ComparisonVerdict::of(const ComparisonReport::Input& in,
                                                const std::set<int>& notApplicable) {
    if (!in.invalid.empty()) {
        std::string why;
        for (const auto& line : in.invalid)
            why += (why.empty() ? "" : "; ") + line;
        return {"INVALID, gates not judged: " + why, Tone::Invalid};
    }
    std::vector<const KpiComparison*> better, worse, changed;
    std::size_t withInterval = 0;
    for (const auto& k : in.kpis) {
        const auto t = tone(k);
        withInterval += t != Tone::NoInterval;
        if (t == Tone::Better)
            better.push_back(&k);
        else if (t == Tone::Worse)
            worse.push_back(&k);
        else if (t == Tone::Changed)
            changed.push_back(&k);
    }
    Result r;
    if (in.kpis.empty()) {
        r = {"Nothing to compare: no KPI was measured on both sides", Tone::NoInterval};
    } else if (!better.empty() && !worse.empty()) {
        r = {"Mixed: B is better on " + list(better) + "; A is better on " + list(worse),
             Tone::Worse};
    } else if (!better.empty()) {
        r = {"B is better: " + list(better), Tone::Better};
    } else if (!worse.empty()) {
        r = {"A is better (B is worse): " + list(worse), Tone::Worse};
    } else if (withInterval == 0) {
        r = {"No interval yet: fewer than two measured runs a side, repeat the runs",
             Tone::NoInterval};
    } else {
        r = {"No significant difference", Tone::NoDifference};
        if (!changed.empty())
            r.sentence += " in any figure of merit";
    }
    // Device figures and time shares: facts about how the arms ran, never a side's merit.
    if (!changed.empty() && r.tone != Tone::NoInterval)
        r.sentence += "; changed without a better side: " + list(changed);
    bool failed = false;
    if (const auto g = gates(in, notApplicable, &failed); !g.empty())
        r.sentence += "; " + g;
    if (failed && r.tone != Tone::Worse)
        r.tone = Tone::Worse;
    return r;
}

} // namespace tierscope
