// libFuzzer target: the guidellm benchmarks report importer on any text.
#include "core/store/GuidellmImport.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        (void)tierscope::GuidellmImport::parse(
            std::string(reinterpret_cast<const char*>(data), size));
    } catch (const std::exception&) {
    }
    return 0;
}
