// libFuzzer target: the Prometheus HTTP API answer parser behind `import prometheus`.
#include "collectors/prometheus/PrometheusApi.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto r = tierscope::PrometheusApi::parse(
        std::string_view(reinterpret_cast<const char*>(data), size));
    for (const auto& s : r.series)
        (void)s.points.size();
    return 0;
}
