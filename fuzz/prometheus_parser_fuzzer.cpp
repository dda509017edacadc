// libFuzzer target: the Prometheus/OpenMetrics text parser must never crash, hang or read out
// of bounds, whatever an engine's /metrics endpoint sends.
#include "collectors/engine/PrometheusTextParser.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto result = tierscope::PrometheusTextParser::parse(
        std::string_view(reinterpret_cast<const char*>(data), size));
    for (const auto& s : result.samples)
        (void)result.typeOf(s.name);
    return 0;
}
