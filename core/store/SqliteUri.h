#pragma once

#include <string>

namespace tierscope {

// How a workspace on read-only media is opened: SQLite's file: URI with immutable=1 reads the
// main file without a -shm or a lock. Only right when its -wal holds nothing (immutable would
// hide committed transactions there): immutableUsable() says so.
class SqliteUri {
  public:
    // file:PATH?immutable=1, the path escaped per RFC 3986 ('?', '#', '%' and bytes outside
    // printable ASCII would end or escape it).
    static std::string immutable(const std::string& path);
    // A non-empty main file and no -wal with content.
    static bool immutableUsable(const std::string& path);
};

} // namespace tierscope
