#pragma once

#include <string>

namespace tierscope {

// Roots of the kernel interfaces, replaceable so tests and benchmarks can point collectors at a
// captured tree.
struct SystemPaths {
    std::string proc = "/proc";
    std::string sys = "/sys";
};

} // namespace tierscope
