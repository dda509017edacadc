#include "core/SqliteDb.h"

#include "core/StoreError.h"

#include <sqlite3.h>

namespace tierscope {

namespace {

StoreError::Code codeFor(int rc) {
    switch (rc & 0xff) {
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
        return StoreError::Code::NotADatabase;
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_FULL:
        return StoreError::Code::CannotWrite;
    default:
        return StoreError::Code::Io;
    }
}

} // namespace

SqliteDb::SqliteDb(const std::string& path, Mode mode) : m_path(path) {
    const int flags =
        mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    const int rc = sqlite3_open_v2(path.c_str(), &m_db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        const std::string message = std::string("cannot open ") + path + ": " +
                                    (m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc));
        sqlite3_close(m_db);
        m_db = nullptr;
        throw StoreError(codeFor(rc), message);
    }
    sqlite3_extended_result_codes(m_db, 1);
    // Readers and the writer thread share the file; wait for locks instead of failing.
    sqlite3_busy_timeout(m_db, 5000);
}

SqliteDb::~SqliteDb() {
    sqlite3_close_v2(m_db);
}

void SqliteDb::exec(std::string_view sql) {
    char* error = nullptr;
    const std::string text(sql);
    const int rc = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &error);
    if (rc != SQLITE_OK) {
        sqlite3_free(error);
        throwFor(m_db, rc, "exec");
    }
}

SqliteStatement SqliteDb::prepare(std::string_view sql) {
    return SqliteStatement(m_db, sql);
}

std::int64_t SqliteDb::queryInt(std::string_view sql) {
    auto stmt = prepare(sql);
    return stmt.step() ? stmt.columnInt(0) : 0;
}

std::int64_t SqliteDb::lastInsertRowid() const {
    return sqlite3_last_insert_rowid(m_db);
}

void SqliteDb::throwFor(sqlite3* db, int rc, std::string_view what) {
    const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;
    std::string message = std::string(what) + " failed";
    if (file && *file)
        message += std::string(" on ") + file;
    message += ": ";
    message += db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    throw StoreError(codeFor(rc), message);
}

} // namespace tierscope
