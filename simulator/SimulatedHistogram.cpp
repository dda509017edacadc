#include "simulator/SimulatedHistogram.h"

#include <cstdio>

namespace tierscope {

void SimulatedHistogram::observe(double v) {
    for (std::size_t b = 0; b < m_bounds.size(); ++b)
        if (v <= m_bounds[b])
            m_counts[b] += 1;
    m_sum += v;
    ++m_count;
}

std::string SimulatedHistogram::text(const char* name, const char* help,
                                     const std::string& labels) const {
    std::string out =
        std::string("# HELP ") + name + " " + help + "\n# TYPE " + name + " histogram\n";
    char line[320];
    for (std::size_t b = 0; b < m_bounds.size(); ++b) {
        std::snprintf(line, sizeof line, "%s_bucket{%s,le=\"%g\"} %.0f\n", name, labels.c_str(),
                      m_bounds[b], m_counts[b]);
        out += line;
    }
    std::snprintf(line, sizeof line,
                  "%s_bucket{%s,le=\"+Inf\"} %lld\n%s_sum{%s} %.9f\n%s_count{%s} %lld\n", name,
                  labels.c_str(), static_cast<long long>(m_count), name, labels.c_str(), m_sum,
                  name, labels.c_str(), static_cast<long long>(m_count));
    return out + line;
}

} // namespace tierscope
