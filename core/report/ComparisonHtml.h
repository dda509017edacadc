#pragma once

#include "core/compare/ComparisonResult.h"

#include <string>
#include <vector>

namespace tierscope {

// The self-contained HTML report (ComparisonReport::html): each comparison opens with its
// verdict sentence and its gates, then the charts, then the tables and the evidence behind
// them; the plan, hosts and devices once at the end.
class ComparisonHtml {
  public:
    static std::string page(const std::vector<ComparisonResult>& all);
    static std::string section(const ComparisonResult& in, bool provenance);
};

} // namespace tierscope
