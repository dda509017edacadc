#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tierscope {

// One sample line of the Prometheus text exposition (0.0.4) or OpenMetrics text format.
struct PromSample {
    std::string name;
    std::vector<std::pair<std::string, std::string>> labels; // in file order, unescaped
    double value = 0.0;
    std::optional<double> timestamp; // as written: ms in 0.0.4, seconds in OpenMetrics

    const std::string* label(const std::string& key) const {
        for (const auto& [k, v] : labels)
            if (k == key)
                return &v;
        return nullptr;
    }
};

} // namespace tierscope
