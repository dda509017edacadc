#pragma once

#include <string>

namespace tierscope {

struct GlobalOptions {
    std::string db; // empty: WorkspacePaths::defaultDatabase()
    std::string logLevel = "warn";

    std::string dbPath() const;
};

} // namespace tierscope
