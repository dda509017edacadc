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

} // namespace

std::string AnalysisText::of(const SessionAnalysis::Result& result) {
    std::string out;
    for (const auto& [device, c] : result.ceilings)
        if (c.bytesPerS)
            append(out, "ceiling: %s %s (%s)\n", device.c_str(),
                   UnitFormat::bytesPerSecond(*c.bytesPerS).c_str(),
                   c.probed ? "probed" : "ceiling from history, not probed");
    // Consecutive windows of one class and rule print as one line, with the first's evidence.
    for (std::size_t i = 0; i < result.windows.size();) {
        std::size_t j = i;
        while (j + 1 < result.windows.size() &&
               result.windows[j + 1].verdict.cls == result.windows[i].verdict.cls &&
               result.windows[j + 1].verdict.rule == result.windows[i].verdict.rule)
            ++j;
        const double from =
            static_cast<double>(result.windows[i].t0Ns - result.windows[0].t0Ns) / 1e9;
        const double to = from + static_cast<double>((j - i + 1) * result.windowNs) / 1e9;
        const auto& v = result.windows[i].verdict;
        append(out, "%7.0f-%-7.0f s  %-18s [%s] %s\n", from, to, BottleneckClassifier::name(v.cls),
               v.rule.c_str(), v.evidence.c_str());
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
