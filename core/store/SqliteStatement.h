#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace tierscope {

// RAII prepared statement. step() returns true while a row is available and throws StoreError
// on failure, so callers never forget to check a return code.
class SqliteStatement {
  public:
    SqliteStatement(sqlite3* db, std::string_view sql);
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;
    SqliteStatement(SqliteStatement&& other) noexcept;
    SqliteStatement& operator=(SqliteStatement&& other) noexcept;

    SqliteStatement& bind(int index, std::int64_t value);
    SqliteStatement& bind(int index, double value);
    SqliteStatement& bind(int index, std::string_view value);
    SqliteStatement& bind(int index, std::span<const unsigned char> blob);
    SqliteStatement& bindNull(int index);
    SqliteStatement& bindOptional(int index, const std::optional<std::int64_t>& value);

    bool step();
    void run(); // step once, expect no row
    void reset();

    std::int64_t columnInt(int col) const;
    double columnDouble(int col) const;
    std::string columnText(int col) const;
    bool columnIsNull(int col) const;
    std::span<const unsigned char> columnBlob(int col) const;
    std::optional<std::int64_t> columnOptionalInt(int col) const;

  private:
    sqlite3* m_db = nullptr;
    sqlite3_stmt* m_stmt = nullptr;
};

} // namespace tierscope
