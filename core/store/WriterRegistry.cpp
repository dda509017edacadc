#include "core/store/WriterRegistry.h"

#include "core/util/ProcessIdentity.h"

namespace tierscope {

namespace {

ProcessIdentity identityAt(SqliteStatement& q, int first) {
    ProcessIdentity writer;
    writer.bootId = q.columnText(first);
    writer.pidNamespace = q.columnText(first + 1);
    writer.pid = q.columnInt(first + 2);
    writer.startTicks = q.columnInt(first + 3);
    return writer;
}

} // namespace

std::vector<std::int64_t> WriterRegistry::goneWriters(SqliteDb& db) {
    const ProcessIdentity here = ProcessIdentity::self();
    auto q = db.prepare("SELECT id, boot_id, pid_ns, pid, start_ticks FROM writer");
    std::vector<std::int64_t> gone;
    while (q.step())
        if (identityAt(q, 1).provablyGone(here))
            gone.push_back(q.columnInt(0));
    return gone;
}

void WriterRegistry::claimSession(SqliteDb& db, std::int64_t sessionId, std::int64_t writerId) {
    db.prepare("INSERT OR REPLACE INTO session_writer(session_id, writer_id) VALUES (?, ?)")
        .bind(1, sessionId)
        .bind(2, writerId)
        .run();
}

void WriterRegistry::releaseSessions(SqliteDb& db, std::int64_t writerId) {
    db.prepare("DELETE FROM session_writer WHERE writer_id = ?").bind(1, writerId).run();
}

WriterRegistry::Owner WriterRegistry::sessionOwner(SqliteDb& db, std::int64_t sessionId) {
    // A version 2 workspace read as it is (Schema::kReadableFrom) records no session's writer.
    if (db.queryInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND "
                    "name = 'session_writer'") == 0)
        return Owner::Unknown;
    auto q = db.prepare("SELECT w.boot_id, w.pid_ns, w.pid, w.start_ticks FROM session_writer c "
                        "JOIN writer w ON w.id = c.writer_id WHERE c.session_id = ?");
    q.bind(1, sessionId);
    if (!q.step())
        return Owner::None;
    const ProcessIdentity owner = identityAt(q, 0);
    const ProcessIdentity here = ProcessIdentity::self();
    if (owner.provablyGone(here))
        return Owner::Gone;
    // Not provably gone means alive only where its pid could be looked up at all.
    if (owner.pidNamespace == here.pidNamespace && owner.pid > 0)
        return Owner::Alive;
    return Owner::Unknown;
}

} // namespace tierscope
