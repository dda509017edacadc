#pragma once

#include "core/analysis/SessionAnalysis.h"

#include <string>

namespace tierscope {

// A session analysis as `tierscope analyze` prints it: the ceilings, one line per span of
// windows of one class and rule with its evidence and TTFT breakdown, the shares, and the
// session's TTFT breakdown. The GUI's "Analyze" shows the same text.
class AnalysisText {
  public:
    static std::string of(const SessionAnalysis::Result& result);
};

} // namespace tierscope
