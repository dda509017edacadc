#include "core/compare/SequentialDesign.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

namespace tierscope {

int SequentialDesign::looksFor(int maxRepetitions) {
    return std::max(1, (maxRepetitions + kBlock - 1) / kBlock);
}

std::string SequentialDesign::describe() const {
    char text[96];
    std::snprintf(text, sizeof text, "%.4g %% at each of %d looks (always valid)",
                  confidence() * 100, looks);
    return text;
}

std::optional<SequentialDesign> SequentialDesign::ofRuns(const std::vector<RunInfo>& runs) {
    std::optional<SequentialDesign> out;
    for (const auto& r : runs) {
        const auto params = nlohmann::json::parse(r.paramsJson, nullptr, false);
        if (!params.is_object())
            continue;
        const auto it = params.find(kParam);
        if (it == params.end() || !it->is_number_integer() || it->get<long long>() < 1)
            continue;
        const int looks = static_cast<int>(std::min<long long>(it->get<long long>(), 100000));
        if (!out || looks > out->looks)
            out = SequentialDesign{looks};
    }
    return out;
}

} // namespace tierscope
