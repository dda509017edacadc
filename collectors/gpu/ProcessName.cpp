#include "collectors/gpu/ProcessName.h"

#include <fstream>

namespace tierscope {

std::optional<std::string> ProcessName::read(const std::string& procRoot, std::uint32_t pid) {
    std::ifstream in(procRoot + "/" + std::to_string(pid) + "/comm");
    std::string name;
    if (!in || !std::getline(in, name))
        return std::nullopt;
    return name;
}

} // namespace tierscope
