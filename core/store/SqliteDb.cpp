#include "core/store/SqliteDb.h"

#include "core/store/SqliteUri.h"
#include "core/store/StoreError.h"

#include <chrono>
#include <sqlite3.h>
#include <thread>

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

// The result of the first read, which is when SQLite opens the file and, in WAL mode, its -shm.
int firstRead(sqlite3* db) {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &stmt, nullptr);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(stmt) == SQLITE_ROW ? SQLITE_OK : sqlite3_errcode(db);
    sqlite3_finalize(stmt);
    return rc;
}

} // namespace

SqliteDb::SqliteDb(const std::string& path, Mode mode) : m_path(path) {
    const int flags =
        mode == Mode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    open(path, flags);
    // A WAL workspace on read-only media (a mounted snapshot, a CD, a chmod-ed share) cannot
    // be read the normal way: the reader must create the -shm file beside it. With no WAL
    // content to lose, immutable=1 reads the main file without any -shm or lock. With a -wal
    // that has content and no -shm, immutable would hide its committed transactions, so that
    // stays an error.
    if (mode == Mode::ReadOnly && (firstRead(m_db) & 0xff) == SQLITE_CANTOPEN &&
        SqliteUri::immutableUsable(path)) {
        sqlite3_close_v2(m_db);
        m_db = nullptr;
        open(SqliteUri::immutable(path), flags | SQLITE_OPEN_URI);
    }
}

void SqliteDb::open(const std::string& name, int flags) {
    const int rc = sqlite3_open_v2(name.c_str(), &m_db, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        const std::string message = std::string("cannot open ") + m_path + ": " +
                                    (m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc));
        sqlite3_close(m_db);
        m_db = nullptr;
        throw StoreError(codeFor(rc), message);
    }
    sqlite3_extended_result_codes(m_db, 1);
    // Readers and the writer thread share the file; wait for locks instead of failing.
    sqlite3_busy_timeout(m_db, kBusyMs);
}

SqliteDb::~SqliteDb() {
    sqlite3_close_v2(m_db);
}

void SqliteDb::exec(std::string_view sql) {
    char* error = nullptr;
    const std::string text(sql);
    int rc = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &error);
    // Outside a transaction a busy statement changed nothing, so it can be tried again. SQLite
    // returns SQLITE_BUSY at once, without the busy handler, where waiting could deadlock (for
    // example while other writers of a new workspace switch it to WAL), so wait here instead,
    // as long as the busy timeout.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyMs);
    while (rc == SQLITE_BUSY && sqlite3_get_autocommit(m_db) &&
           std::chrono::steady_clock::now() < deadline) {
        sqlite3_free(error);
        error = nullptr;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        rc = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, &error);
    }
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

std::int64_t SqliteDb::changes() const {
    return sqlite3_changes64(m_db);
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
