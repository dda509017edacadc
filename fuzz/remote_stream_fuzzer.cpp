// libFuzzer target: what a server sends over SSH, read by the workstation's stream reader in
// arbitrary pieces. Hostile input: must never crash, hang or buffer beyond its line bound, and
// whatever it delivers must be a validated value.
#include "remote/RemoteStreamReader.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size < 1)
        return 0;
    const std::size_t piece = 1 + data[0] % 128; // the network splits anywhere
    const std::string_view stream(reinterpret_cast<const char*>(data) + 1, size - 1);
    tierscope::RemoteStreamReader::Callbacks c;
    c.samples = [](std::int64_t t, std::span<const tierscope::Reading> readings) {
        if (t <= 0)
            std::abort();
        for (const auto& r : readings)
            if (!std::isfinite(r.value) || r.metric.path.empty())
                std::abort();
    };
    c.log = [](const std::string& text) {
        for (const char ch : text)
            if (static_cast<unsigned char>(ch) < 0x20)
                std::abort(); // control characters never reach a terminal
    };
    tierscope::RemoteStreamReader reader(c);
    for (std::size_t at = 0; at < stream.size(); at += piece)
        if (!reader.feed(stream.substr(at, piece)))
            break;
    return 0;
}
