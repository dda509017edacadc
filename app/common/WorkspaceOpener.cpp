#include "app/common/WorkspaceOpener.h"

#include "core/store/StoreError.h"

#include <filesystem>

namespace tierscope {

std::unique_ptr<Store> WorkspaceOpener::openExisting(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw StoreError(StoreError::Code::NotFound,
                         "no workspace at " + path + " (record a session first, or pass --db)");
    // Read-only: a read-only command never writes, so an empty file stays an empty file
    // (Schema refuses it) and a copy on read-only media can be read.
    return std::make_unique<Store>(path, Store::Mode::ReadOnly);
}

} // namespace tierscope
