#pragma once

#include <string>

namespace tierscope {

// What `tierscope --version` prints: the version, the source it was built from and the
// libraries it runs with, for bug reports and for telling two builds' numbers apart.
class BuildInfo {
  public:
    static std::string versionText();
};

} // namespace tierscope
