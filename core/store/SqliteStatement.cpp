#include "core/store/SqliteStatement.h"

#include "core/store/SqliteDb.h"

#include <sqlite3.h>
#include <utility>

namespace tierscope {

SqliteStatement::SqliteStatement(sqlite3* db, std::string_view sql) : m_db(db) {
    const int rc =
        sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &m_stmt, nullptr);
    if (rc != SQLITE_OK)
        SqliteDb::throwFor(db, rc, "prepare");
}

SqliteStatement::~SqliteStatement() {
    sqlite3_finalize(m_stmt);
}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : m_db(std::exchange(other.m_db, nullptr)), m_stmt(std::exchange(other.m_stmt, nullptr)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
    if (this != &other) {
        sqlite3_finalize(m_stmt);
        m_db = std::exchange(other.m_db, nullptr);
        m_stmt = std::exchange(other.m_stmt, nullptr);
    }
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::int64_t value) {
    sqlite3_bind_int64(m_stmt, index, value);
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, double value) {
    sqlite3_bind_double(m_stmt, index, value);
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::string_view value) {
    sqlite3_bind_text(m_stmt, index, value.data(), static_cast<int>(value.size()),
                      SQLITE_TRANSIENT);
    return *this;
}

SqliteStatement& SqliteStatement::bind(int index, std::span<const unsigned char> blob) {
    sqlite3_bind_blob(m_stmt, index, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
    return *this;
}

SqliteStatement& SqliteStatement::bindNull(int index) {
    sqlite3_bind_null(m_stmt, index);
    return *this;
}

SqliteStatement& SqliteStatement::bindOptional(int index,
                                               const std::optional<std::int64_t>& value) {
    return value ? bind(index, *value) : bindNull(index);
}

bool SqliteStatement::step() {
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    sqlite3_reset(m_stmt);
    SqliteDb::throwFor(m_db, rc, "step");
}

void SqliteStatement::run() {
    step();
    reset();
}

void SqliteStatement::reset() {
    sqlite3_reset(m_stmt);
    sqlite3_clear_bindings(m_stmt);
}

std::int64_t SqliteStatement::columnInt(int col) const {
    return sqlite3_column_int64(m_stmt, col);
}

double SqliteStatement::columnDouble(int col) const {
    return sqlite3_column_double(m_stmt, col);
}

std::string SqliteStatement::columnText(int col) const {
    const auto* text = sqlite3_column_text(m_stmt, col);
    return text ? std::string(reinterpret_cast<const char*>(text),
                              static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, col)))
                : std::string();
}

bool SqliteStatement::columnIsNull(int col) const {
    return sqlite3_column_type(m_stmt, col) == SQLITE_NULL;
}

std::span<const unsigned char> SqliteStatement::columnBlob(int col) const {
    const auto* data = static_cast<const unsigned char*>(sqlite3_column_blob(m_stmt, col));
    return {data, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, col))};
}

std::optional<std::int64_t> SqliteStatement::columnOptionalInt(int col) const {
    if (columnIsNull(col))
        return std::nullopt;
    return columnInt(col);
}

} // namespace tierscope
