#pragma once

#include <string>

namespace tierscope {

// The labels every GPU metric carries, so charts and exports can say which card a series is.
class GpuLabels {
  public:
    static std::string json(const std::string& vendor, const std::string& model,
                            const std::string& bus, bool upperBound = false);
};

} // namespace tierscope
