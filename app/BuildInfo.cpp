#include "app/BuildInfo.h"

#include "app/BuildConfig.h"
#include "collectors/LibraryVersions.h"
#include "core/util/Version.h"

#include <CLI/Version.hpp>
#include <QtGlobal>
#include <sqlite3.h>

namespace tierscope {

namespace {

// "3.40.1" when built and running with the same, "3.46.0 (built with 3.40.1)" otherwise.
std::string runtimeAndBuilt(const std::string& runtime, const std::string& built) {
    if (built.empty() || runtime == built)
        return runtime;
    return runtime + " (built with " + built + ")";
}

} // namespace

std::string BuildInfo::versionText() {
    std::string text = std::string("tierscope ") + kToolVersion + "\n";
    text += std::string("source:   ") + TIERSCOPE_GIT_DESCRIBE + "\n";
    text += std::string("build:    ") + TIERSCOPE_BUILD_TYPE + ", " + TIERSCOPE_COMPILER + ", C++" +
            std::to_string(__cplusplus / 100 % 100) +
#ifdef TIERSCOPE_SANITIZED
            ", ASan+UBSan" +
#endif
            "\n";
    text += "Qt:       " + runtimeAndBuilt(qVersion(), QT_VERSION_STR) + "\n";
    text += "SQLite:   " + runtimeAndBuilt(sqlite3_libversion(), SQLITE_VERSION) + "\n";
    text += "libnvme:  " +
            runtimeAndBuilt(LibraryVersions::libnvme().value_or("unknown"),
                            TIERSCOPE_LIBNVME_BUILD_VERSION) +
            "\n";
    text += "rocm-smi: " + LibraryVersions::rocmSmi().value_or("unknown");
    if (*TIERSCOPE_ROCM_SMI_PACKAGE)
        text += std::string(" (built with package ") + TIERSCOPE_ROCM_SMI_PACKAGE + ")";
    text += "\n";
    text += std::string("CLI11:    ") + CLI11_VERSION;
    return text;
}

} // namespace tierscope
