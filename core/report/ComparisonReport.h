#pragma once

#include "core/compare/ComparisonResult.h"

#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// Renders an A/B comparison as text, Markdown, JSON or a self-contained HTML page. Every string
// that came from a user (labels, profiles) is escaped for the format.
class ComparisonReport {
  public:
    static std::string text(const ComparisonResult& in);
    static std::string markdown(const ComparisonResult& in);
    static std::string json(const ComparisonResult& in);
    static std::string html(const ComparisonResult& in);
    // Several comparisons (an experiment's variants) on one page.
    static std::string html(const std::vector<ComparisonResult>& all);
    // One row per KPI, RFC 4180 quoting.
    static std::string csv(const ComparisonResult& in);
    // "md", "json", "html", "csv", anything else: text.
    static std::string render(const std::string& format, const ComparisonResult& in);
    // Several comparisons as one document: a JSON array, one HTML page, one CSV table.
    static std::string render(const std::string& format, const std::vector<ComparisonResult>& all);

    // How the intervals and verdicts are made, printed under every report.
    static const char* footnote();
    static std::string escapeHtml(const std::string& s);
    // The table's cells, for every view that shows the table: the change ("-25.3 %", "n/a"
    // from zero), the ratio ("0.747x") and the KPI's one interval ("[-31.0 %, -19.2 %]" on the
    // ratio scale, "B-A [0.30 GB/s, 2.10 GB/s]" on the difference scale).
    static std::string changeCell(const KpiComparison& k);
    static std::string ratioCell(const KpiComparison& k);
    static std::string intervalCell(const KpiComparison& k);
    // What the interval column is called: "95 % CI", or a sequential design's per-look level.
    static std::string intervalHeader(const ComparisonResult& in);
    // ", floor +-4.1 %" or ", within noise (floor +-4.1 %)"; "" without a calibration.
    static std::string floorCell(const KpiComparison& k);

    // How the intervals were made and what the KPIs are held against, one line each.
    static std::vector<std::string> designLines(const ComparisonResult& in);
    // "42 %", "n/a" where the side has no timeline.
    static std::string shareCell(const std::optional<double>& share);
    // One KPI's row as every table prints it: KPI, A, B, B - A, change, ratio, interval,
    // n (A / B), better.
    static std::vector<std::string> rowCells(const KpiComparison& k);
};

} // namespace tierscope
