#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tierscope {

// The highest load (a request rate, or a concurrency) at which a set of SLOs holds, bracketed
// by two measured points: grid first, then bisection between the last point that holds and
// the first that fails. It never reports a capacity it did not measure: the answer is the
// highest point shown to hold below the first failure, and the failure above it says how far
// the true capacity can be.
class SloSearch {
  public:
    struct Result {
        std::optional<double> holdsAt; // the highest point that holds below the first failure
        std::optional<double> failsAt; // the lowest point that fails
        // Both ends found: the capacity lies in [holdsAt, failsAt). Otherwise "not reached
        // within the grid": every point failed (no holdsAt) or none did (no failsAt).
        bool reached() const { return holdsAt && failsAt; }
        std::vector<double> bisected; // the points the bisection probed, in order
        // Grid points above the first failure that held again: the curve is not monotone
        // there, and the first failure still bounds the answer.
        std::vector<double> holdsAbove;
    };
    // Whether the SLOs hold at a point, measured by the caller (all its repetitions);
    // nullopt: it could not be measured (cancelled), which ends the search.
    using Probe = std::function<std::optional<bool>(double point)>;

    // `grid`: each grid point with whether it held, in any order. `integer`: points are whole
    // numbers (a concurrency), so bisection stops when they are adjacent. `steps`: at most
    // this many bisection probes.
    static Result run(std::vector<std::pair<double, bool>> grid, int steps, bool integer,
                      const Probe& probe);
};

} // namespace tierscope
