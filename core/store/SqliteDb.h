#pragma once

#include "core/store/SqliteStatement.h"

#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;

namespace tierscope {

// One SQLite connection. Not thread-safe: every thread that touches a workspace opens its own.
class SqliteDb {
  public:
    enum class Mode { ReadOnly, ReadWrite };

    SqliteDb(const std::string& path, Mode mode);
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    void exec(std::string_view sql);
    SqliteStatement prepare(std::string_view sql);
    std::int64_t queryInt(std::string_view sql);
    std::int64_t lastInsertRowid() const;
    // Rows changed by the last INSERT, UPDATE or DELETE that completed.
    std::int64_t changes() const;
    const std::string& path() const { return m_path; }
    sqlite3* handle() const { return m_db; }

    // Maps an SQLite result code to the StoreError a user can act on.
    [[noreturn]] static void throwFor(sqlite3* db, int rc, std::string_view what);

  private:
    static constexpr int kBusyMs = 5000; // how long a busy workspace is waited for

    void open(const std::string& name, int flags);

    sqlite3* m_db = nullptr;
    std::string m_path;
};

} // namespace tierscope
