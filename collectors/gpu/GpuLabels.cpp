#include "collectors/gpu/GpuLabels.h"

#include <nlohmann/json.hpp>

namespace tierscope {

std::string GpuLabels::json(const std::string& vendor, const std::string& model,
                            const std::string& bus, bool upperBound) {
    nlohmann::json labels = {{"vendor", vendor}, {"model", model}, {"bus", bus}};
    if (upperBound)
        labels["upper_bound"] = true;
    return labels.dump();
}

} // namespace tierscope
