#pragma once

#include "core/compare/Comparison.h"

#include <string>
#include <vector>

namespace tierscope {

// The engine schema canary across the two sides: a catalog role that one side's engine served
// during its measured runs and the other side's engine never did (its family is missing: an
// older version, a flag, a connector not loaded) is a figure the two sides cannot share. Each
// such role is a warning of the side that lacks it, never a zero.
class EngineRoleCheck {
  public:
    struct Lost {
        char side = 'B';  // the side whose engine did not serve the role
        std::string text; // "LMCache hit tokens: served by A's engine, not by B's (no family
                          // of it at 10.0.0.2:8000)"
    };
    static std::vector<Lost> of(const ComparisonSide& a, const ComparisonSide& b);
};

} // namespace tierscope
