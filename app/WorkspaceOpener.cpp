#include "app/WorkspaceOpener.h"

#include "core/StoreError.h"

#include <filesystem>

namespace tierscope {

std::unique_ptr<Store> WorkspaceOpener::openExisting(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw StoreError(StoreError::Code::NotFound,
                         "no workspace at " + path + " (record a session first, or pass --db)");
    // Read-write so WAL readers work and interrupted sessions' staging can be read normally;
    // nothing is written by the read-only commands.
    try {
        return std::make_unique<Store>(path, Store::Mode::ReadWrite);
    } catch (const StoreError& e) {
        if (e.code() != StoreError::Code::CannotWrite)
            throw;
        return std::make_unique<Store>(path, Store::Mode::ReadOnly);
    }
}

} // namespace tierscope
