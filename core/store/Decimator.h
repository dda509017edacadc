#pragma once

#include "core/model/Bucket.h"
#include "core/model/Sample.h"

#include <cstdint>
#include <span>
#include <vector>

namespace tierscope {

// Reduces a series to at most one Bucket (min, max, sum, count) per output slot, so a chart
// draws ~2 points per pixel column whatever the raw density. Empty slots are omitted: a gap
// stays a gap instead of becoming a zero.
class Decimator {
  public:
    Decimator(std::int64_t t0Ns, std::int64_t t1Ns, int slots);

    void add(std::int64_t tNs, double value);
    void addBucket(std::int64_t tNs, double min, double max, double sum, std::int64_t count);
    std::vector<Bucket> result() const;

    std::int64_t slotWidthNs() const { return m_width; }

    static std::vector<Bucket> decimate(std::span<const Sample> samples, std::int64_t t0Ns,
                                        std::int64_t t1Ns, int slots);

  private:
    int slotOf(std::int64_t tNs) const;

    std::int64_t m_t0;
    std::int64_t m_t1;
    std::int64_t m_width;
    std::vector<Bucket> m_slots;
};

} // namespace tierscope
