#pragma once

#include "core/compare/KpiComparison.h"
#include "core/model/RunInfo.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

class Store;

// The rig's own noise, measured by an A/A calibration: one arm run against itself in the
// plan's order (`tierscope run PLAN --calibrate`). Per KPI, the between-run spread of the logs
// of the run values (pooled within each copy, so a difference between the copies is not
// counted as spread) and the A/A interval. A comparison's change smaller than the floor, the
// half-width of the interval an unchanged system gives at that comparison's run counts, is
// within this rig's noise.
class NoiseFloor {
  public:
    struct Kpi {
        double sigma = 0.0;               // sd of log(run value) within a copy
        double dof = 0.0;                 // its degrees of freedom (runs of both copies - 2)
        double cv = 0.0;                  // the between-run coefficient of variation it implies
        std::optional<double> aaLo, aaHi; // the A/A change's interval, as fractions
        double aaChange = 0.0;
        std::size_t runs = 0; // per copy, the fewer
    };
    std::int64_t session = 0;
    std::string experiment; // the calibration's experiment it came from
    std::map<std::string, Kpi> kpis;

    // The KPIs of an A/A comparison (ratio scale only: a CV needs positive values).
    static NoiseFloor fromAa(const std::vector<KpiComparison>& aa);
    // The calibration in `session` whose workload variant matches `experiment` ("plan/load@c8"
    // matches "plan-calibration/load@c8"), else its only one; nullopt when the session holds no
    // calibration (its experiments are named "<plan>-calibration/...").
    static std::optional<NoiseFloor> load(Store& store, std::int64_t session,
                                          const std::string& experiment);
    // The half-width, as a fraction, of the `confidence` interval of B/A an unchanged system
    // gives with na and nb runs: exp(t * sigma * sqrt(1/na + 1/nb)) - 1, t on the
    // calibration's degrees of freedom (sigma comes from it).
    std::optional<double> halfWidth(const std::string& kpi, std::size_t na, std::size_t nb,
                                    double confidence) const;
    // Sets each KPI's floor and floorCv.
    void apply(std::vector<KpiComparison>& kpis) const;

    static constexpr const char* kSuffix = "-calibration";
    // What the runs of an experiment that carries a floor store in their params.
    static constexpr const char* kParam = "noise_floor_session";
    static std::optional<std::int64_t> sessionOfRuns(const std::vector<RunInfo>& runs);
};

} // namespace tierscope
