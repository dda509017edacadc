#pragma once

#include <cstdint>
#include <optional>

namespace tierscope {

// Energy from power readings, for a backend that has no energy counter (Ascend DCMI): the
// trapezoid between consecutive readings, starting at 0 J at the first. Its gpu/<n>/energy_j
// is labelled "integrated", because it is only as good as the power samples: a spike between
// two readings is not in it. A reading that failed leaves a gap that the next one bridges
// with a straight line, as the trapezoid does between any two readings.
class PowerIntegrator {
  public:
    // The series' value in joules after a reading of `watts` at tNs.
    double add(std::int64_t tNs, double watts);

  private:
    std::optional<std::int64_t> m_lastNs;
    double m_lastW = 0;
    double m_joules = 0;
};

} // namespace tierscope
