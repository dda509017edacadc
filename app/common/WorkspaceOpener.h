#pragma once

#include "core/store/Store.h"

#include <memory>
#include <string>

namespace tierscope {

// Opens an existing workspace for the read-only subcommands: a missing file is "not found",
// not an empty database silently created.
class WorkspaceOpener {
  public:
    static std::unique_ptr<Store> openExisting(const std::string& path);
};

} // namespace tierscope
