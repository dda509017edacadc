// libFuzzer target: the AIPerf profile export importer. The input is a summary, and after its
// first NUL byte, records: both files of an export from one input.
#include "core/store/AiperfImport.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const auto split = text.find('\0');
    try {
        if (split == std::string::npos) {
            (void)tierscope::AiperfImport::parse(text, nullptr);
        } else {
            std::istringstream records(text.substr(split + 1));
            (void)tierscope::AiperfImport::parse(text.substr(0, split), &records);
        }
    } catch (const std::exception&) {
    }
    return 0;
}
