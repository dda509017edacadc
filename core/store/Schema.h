#pragma once

#include "core/store/SqliteDb.h"

#include <cstdint>

namespace tierscope {

// Owns the workspace layout: PRAGMA application_id marks a file as ours, PRAGMA user_version
// holds the schema version, and migrations only ever move forward.
class Schema {
  public:
    static constexpr std::int32_t kApplicationId = 0x54534350; // "TSCP"
    static constexpr int kVersion = 3;
    // The oldest version a read-only open accepts as it is: version 3 only added the
    // session_writer table, which readers of a version 2 file find absent (no session has a
    // known writer), so `sessions` or `compare` need not wait for a writer to upgrade it.
    static constexpr int kReadableFrom = 2;

    // Validates and, if needed, creates or migrates. Throws StoreError for a foreign file or a
    // newer schema.
    static void prepare(SqliteDb& db, bool writable);
};

} // namespace tierscope
