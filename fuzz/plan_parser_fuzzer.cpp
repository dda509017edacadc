// libFuzzer target: an experiment plan (TOML) from a user's file. Malformed plans must be
// rejected with an exception, never crash.
#include "experiments/ExperimentPlan.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const auto plan = tierscope::ExperimentPlan::parse(
            std::string_view(reinterpret_cast<const char*>(data), size));
        (void)plan.variants();
    } catch (const std::exception&) {
    }
    return 0;
}
