#pragma once

#include "core/store/SqliteDb.h"

#include <cstdint>
#include <vector>

namespace tierscope {

// The workspace's `writer` table read as liveness: which registered writers are provably gone
// (their leftovers may be recovered) and whether the process that opened a session still runs
// (the session is recording, not interrupted). Registration itself is Store's.
class WriterRegistry {
  public:
    enum class Owner {
        None,    // no claim: finished, imported, older files, or its connection closed
        Alive,   // the opening process runs, checked in this pid namespace
        Gone,    // the opening process provably ended without closing the session
        Unknown, // another pid namespace (a container sharing the workspace): not checkable
    };

    // Every registered writer whose process provably no longer runs.
    static std::vector<std::int64_t> goneWriters(SqliteDb& db);

    // The writer (a process's connection) that opened this session and records it.
    static void claimSession(SqliteDb& db, std::int64_t sessionId, std::int64_t writerId);
    // The writer's connection closes: it records none of its sessions any more.
    static void releaseSessions(SqliteDb& db, std::int64_t writerId);
    static Owner sessionOwner(SqliteDb& db, std::int64_t sessionId);
};

} // namespace tierscope
