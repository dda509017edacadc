#pragma once

#include "core/store/SessionSummary.h"

#include <ostream>
#include <string>

namespace tierscope {

class SummaryPrinter {
  public:
    static void print(std::ostream& out, const SessionSummary& summary, const std::string& dbPath);
};

} // namespace tierscope
