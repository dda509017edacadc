#pragma once

#include "core/compare/Comparison.h"
#include "core/compare/Gate.h"
#include "core/compare/KpiComparison.h"
#include "core/model/DeviceRecord.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tierscope {

// Renders an A/B comparison as text, Markdown, JSON or a self-contained HTML page. Every string
// that came from a user (labels, profiles) is escaped for the format.
class ComparisonReport {
  public:
    struct Share {
        std::string bottleneck;     // "storage-bound", ...
        std::optional<double> a, b; // 0..1; absent: that side has no timeline
    };
    struct Chart {
        std::string name; // "ttft-cdf", ...
        std::string title;
        std::string svg;
    };
    struct Input {
        std::string labelA;
        std::string labelB;
        std::vector<KpiComparison> kpis;
        std::vector<std::pair<Gate, Gate::Result>> gates;
        std::vector<Share> shares;
        std::vector<std::string> excluded; // "A: run 7 (warmup)": runs that are no measurement
        // Failed validity checks of the measured runs ("B: run 9: engine_identity: ..."): the
        // comparison is INVALID and its gates are not judged. Warnings are shown, not fatal.
        std::vector<std::string> invalid;
        std::vector<std::string> warnings;
        // Every measured run's checks that passed, its cache resets and its populate phase
        // ("A: run 9: reset_prefix_cache ok ...", "A: run 9: storage_evidence pass: ...").
        std::vector<std::string> checks;
        // The same, as rows for a table: the side ('A' or 'B') and the run's check.
        std::vector<std::pair<char, Comparison::RunCheck>> runChecks;
        std::vector<Chart> charts;
        std::string plan; // the experiment plan's TOML, when the runs came from one
        std::vector<std::string> hosts;
        std::vector<DeviceRecord> devices;
        std::string toolVersion;
        std::string generatedUtc;
    };

    static std::string text(const Input& in);
    static std::string markdown(const Input& in);
    static std::string json(const Input& in);
    static std::string html(const Input& in);
    // Several comparisons (an experiment's variants) on one page.
    static std::string html(const std::vector<Input>& all);
    // One row per KPI, RFC 4180 quoting.
    static std::string csv(const Input& in);
    // "md", "json", "html", "csv", anything else: text.
    static std::string render(const std::string& format, const Input& in);
    // Several comparisons as one document: a JSON array, one HTML page, one CSV table.
    static std::string render(const std::string& format, const std::vector<Input>& all);

    // How the intervals and verdicts are made, printed under every report.
    static const char* footnote();
    static std::string escapeHtml(const std::string& s);
    static std::string formatValue(double value, const std::string& unit);
    // The table's cells, for every view that shows the table: the change ("-25.3 %", "n/a"
    // from zero), the ratio ("0.747x") and the KPI's one interval ("[-31.0 %, -19.2 %]" on the
    // ratio scale, "B-A [0.30 GB/s, 2.10 GB/s]" on the difference scale).
    static std::string changeCell(const KpiComparison& k);
    static std::string ratioCell(const KpiComparison& k);
    static std::string intervalCell(const KpiComparison& k);

  private:
    static std::string htmlSection(const Input& in, bool provenance);
};

} // namespace tierscope
