#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace tierscope {

// A process's short name, /proc/<pid>/comm: what nvtop and nvidia-smi show beside a pid.
class ProcessName {
  public:
    // Absent when the process has gone (or /proc refuses): never an empty name in its place.
    static std::optional<std::string> read(const std::string& procRoot, std::uint32_t pid);
};

} // namespace tierscope
