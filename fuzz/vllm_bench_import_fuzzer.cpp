// libFuzzer target: the `vllm bench serve --save-result` importer on any JSON file.
#include "core/store/VllmBenchImport.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        (void)tierscope::VllmBenchImport::parse(
            std::string(reinterpret_cast<const char*>(data), size));
    } catch (const std::exception&) {
    }
    return 0;
}
