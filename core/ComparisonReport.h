#pragma once

#include "core/Gate.h"
#include "core/KpiComparison.h"

#include <string>
#include <utility>
#include <vector>

namespace tierscope {

// Renders an A/B comparison as text, Markdown, JSON or a self-contained HTML page. Every string
// that came from a user (labels, profiles) is escaped for the format.
class ComparisonReport {
  public:
    struct Input {
        std::string labelA;
        std::string labelB;
        std::vector<KpiComparison> kpis;
        std::vector<std::pair<Gate, Gate::Result>> gates;
        std::string toolVersion;
        std::string generatedUtc;
    };

    static std::string text(const Input& in);
    static std::string markdown(const Input& in);
    static std::string json(const Input& in);
    static std::string html(const Input& in);
    // "md", "json", "html", anything else: text.
    static std::string render(const std::string& format, const Input& in);

    static std::string escapeHtml(const std::string& s);
    static std::string formatValue(double value, const std::string& unit);
};

} // namespace tierscope
