#pragma once

#include <optional>
#include <string>

namespace tierscope {

// Versions of the device libraries the collectors link, as the loaded library reports them
// (the package may have been upgraded since the build). nullopt: the library does not say.
class LibraryVersions {
  public:
    static std::optional<std::string> libnvme();
    static std::optional<std::string> rocmSmi();
};

} // namespace tierscope
