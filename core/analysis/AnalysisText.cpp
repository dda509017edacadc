#include "core/analysis/AnalysisText.h"

#include "core/util/UnitFormat.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace tierscope {

namespace {

void append(std::string& out, const char* format, ...) __attribute__((format(printf, 2, 3)));
void append(std::string& out, const char* format, ...) {
    char line[4096];
    va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(line, sizeof line, format, args);
    va_end(args);
    if (n > 0)
        out.append(line, std::min<std::size_t>(static_cast<std::size_t>(n), sizeof line - 1));
}

using Class = BottleneckClassifier::Class;

// How strongly a window shows its class: the measurement the class is named for. Absent
// measurements count as nothing, so a window that has the evidence wins over one without.
double heat(const SessionAnalysis::Window& w) {
    const auto& in = w.input;
    double hot = 0;
    switch (w.verdict.cls) {
    case Class::StorageBound:
        for (const auto& s : in.storage)
            if (s.bytesPerS)
                hot = std::max(hot, s.bandwidthCeiling && *s.bandwidthCeiling > 0
                                        ? *s.bytesPerS / *s.bandwidthCeiling
                                        : 0.0);
        break;
    case Class::GpuComputeBound:
        for (const auto& [gpu, busy] : in.gpuBusy)
            hot = std::max(hot, busy);
        break;
    case Class::KvCapacityBound:
        hot = in.kvUsage.value_or(0);
        break;
    case Class::EngineQueueing:
        hot = in.requestsWaiting.value_or(0);
        break;
    case Class::Idle:
    case Class::Unknown:
        break;
    }
    return hot;
}

// The window of [first, last] whose evidence a span's line shows: its hottest, the first of
// equals (an idle or unknown span shows its first).
std::size_t hottest(const std::vector<SessionAnalysis::Window>& windows, std::size_t first,
                    std::size_t last) {
    std::size_t best = first;
    for (std::size_t k = first + 1; k <= last; ++k)
        if (heat(windows[k]) > heat(windows[best]))
            best = k;
    return best;
}

} // namespace

std::string AnalysisText::of(const SessionAnalysis::Result& result) {
    std::string out;
    for (const auto& [device, c] : result.ceilings)
        if (c.bytesPerS)
            append(out, "ceiling: %s %s (%s)\n", device.c_str(),
                   UnitFormat::bytesPerSecond(*c.bytesPerS).c_str(),
                   c.probed ? "probed" : "ceiling from history, not probed");
    // Consecutive windows of one class and rule print as one line, with its hottest window's
    // evidence and the span's requests.
    for (std::size_t i = 0; i < result.windows.size();) {
        std::size_t j = i;
        while (j + 1 < result.windows.size() &&
               result.windows[j + 1].verdict.cls == result.windows[i].verdict.cls &&
               result.windows[j + 1].verdict.rule == result.windows[i].verdict.rule)
            ++j;
        const double from =
            static_cast<double>(result.windows[i].t0Ns - result.windows[0].t0Ns) / 1e9;
        const double to = from + static_cast<double>((j - i + 1) * result.windowNs) / 1e9;
        const std::size_t shown = hottest(result.windows, i, j);
        const auto& v = result.windows[shown].verdict;
        append(out, "%7.0f-%-7.0f s  %-18s [%s] %s\n", from, to, BottleneckClassifier::name(v.cls),
               v.rule.c_str(), v.evidence.c_str());
        if (j > i) // a span's evidence is one window's: say which
            append(out, "%17s  (evidence of window %.0f-%.0f s, the %s of the span's %zu)\n", "",
                   static_cast<double>(result.windows[shown].t0Ns - result.windows[0].t0Ns) / 1e9,
                   static_cast<double>(result.windows[shown].t0Ns - result.windows[0].t0Ns +
                                       result.windowNs) /
                       1e9,
                   heat(result.windows[shown]) > 0 ? "hottest" : "first", j - i + 1);
        TtftBreakdown ttft; // the span's requests, not its first window's
        for (std::size_t k = i; k <= j; ++k)
            ttft.add(result.windows[k].ttft);
        if (!ttft.empty())
            append(out, "%17s  TTFT: %s\n", "", ttft.text().c_str());
        if (const std::string q = ttft.quantileText(); !q.empty())
            append(out, "%17s        %s\n", "", q.c_str());
        i = j + 1;
    }
    out += "shares:";
    for (const auto& [cls, share] : result.shares)
        append(out, "  %s %.0f %%", BottleneckClassifier::name(cls), share * 100);
    out += "\n";
    if (!result.ttft.empty()) {
        append(out, "TTFT breakdown: %s\n", result.ttft.text().c_str());
        if (const std::string q = result.ttft.quantileText(); !q.empty())
            append(out, "TTFT parts, %s\n", q.c_str());
    } else {
        out += "TTFT breakdown: absent (no engine request-phase histograms were recorded)\n";
    }
    return out;
}

} // namespace tierscope
