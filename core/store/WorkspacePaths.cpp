#include "core/store/WorkspacePaths.h"

#include <cstdlib>
#include <pwd.h>
#include <unistd.h>

namespace tierscope {

std::string WorkspacePaths::defaultDatabase() {
    std::string base;
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg == '/') {
        base = xdg;
    } else {
        const char* home = std::getenv("HOME");
        if (!home || !*home) {
            const passwd* pw = getpwuid(getuid());
            home = pw ? pw->pw_dir : "/tmp";
        }
        base = std::string(home) + "/.local/share";
    }
    return base + "/tierscope/tierscope.db";
}

} // namespace tierscope
