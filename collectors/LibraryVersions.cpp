#include "collectors/LibraryVersions.h"

#include <cstring>
#include <libnvme.h>
#include <rocm_smi/rocm_smi.h>

namespace tierscope {

std::optional<std::string> LibraryVersions::libnvme() {
    const char* version = nvme_get_version(NVME_VERSION_PROJECT);
    if (!version || !*version || std::strcmp(version, "n/a") == 0)
        return std::nullopt;
    return std::string(version);
}

std::optional<std::string> LibraryVersions::rocmSmi() {
    // rsmi_version_get needs no rsmi_init: it reports the library's own build, not a GPU.
    rsmi_version_t version{};
    if (rsmi_version_get(&version) != RSMI_STATUS_SUCCESS)
        return std::nullopt;
    std::string text = std::to_string(version.major) + "." + std::to_string(version.minor) + "." +
                       std::to_string(version.patch);
    if (version.build && *version.build && std::strcmp(version.build, "0") != 0)
        text += std::string(" build ") + version.build;
    return text;
}

} // namespace tierscope
