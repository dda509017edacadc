#include "core/store/Schema.h"

#include "core/store/SqliteTransaction.h"
#include "core/store/StoreError.h"

#include <array>
#include <string>

namespace tierscope {

namespace {

// Index i upgrades version i to i + 1. Append, never edit: shipped files depend on them.
constexpr std::array<const char*, Schema::kVersion> kMigrations{
    R"sql(
CREATE TABLE session(
    id INTEGER PRIMARY KEY,
    label TEXT NOT NULL DEFAULT '',
    storage_profile TEXT NOT NULL DEFAULT '',
    host TEXT NOT NULL DEFAULT '',
    start_ns INTEGER NOT NULL,
    end_ns INTEGER,
    notes TEXT NOT NULL DEFAULT '',
    tags TEXT NOT NULL DEFAULT '',
    tool_version TEXT NOT NULL DEFAULT '');
CREATE TABLE metric(
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    unit TEXT NOT NULL,
    kind TEXT NOT NULL,
    labels TEXT NOT NULL DEFAULT '{}',
    UNIQUE(session_id, path));
-- Append-only landing zone for the last few seconds: one packed row per series per 250 ms
-- commit and no index, so a commit touches only the table's tail pages instead of one page per
-- series. Sealing moves these rows into sample_chunk and rollup.
CREATE TABLE sample_recent(
    metric_id INTEGER NOT NULL,
    t_start INTEGER NOT NULL,
    t_end INTEGER NOT NULL,
    n INTEGER NOT NULL,
    data BLOB NOT NULL);
CREATE TABLE sample_chunk(
    id INTEGER PRIMARY KEY,
    metric_id INTEGER NOT NULL,
    t_start INTEGER NOT NULL,
    t_end INTEGER NOT NULL,
    n INTEGER NOT NULL,
    data BLOB NOT NULL);
CREATE INDEX sample_chunk_metric_t ON sample_chunk(metric_id, t_start);
CREATE TABLE rollup(
    metric_id INTEGER NOT NULL,
    level_s INTEGER NOT NULL,
    t_bucket INTEGER NOT NULL,
    min REAL NOT NULL,
    max REAL NOT NULL,
    sum REAL NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY(metric_id, level_s, t_bucket)) WITHOUT ROWID;
CREATE TABLE device(
    id INTEGER PRIMARY KEY,
    session_id INTEGER REFERENCES session(id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    attrs TEXT NOT NULL DEFAULT '{}');
CREATE TABLE run(
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
    experiment TEXT NOT NULL DEFAULT '',
    arm TEXT NOT NULL DEFAULT '',
    workload TEXT NOT NULL DEFAULT '',
    params TEXT NOT NULL DEFAULT '{}',
    repetition INTEGER NOT NULL DEFAULT 0,
    start_ns INTEGER NOT NULL,
    end_ns INTEGER,
    status TEXT NOT NULL DEFAULT 'running',
    summary TEXT NOT NULL DEFAULT '{}');
CREATE TABLE request(
    id INTEGER PRIMARY KEY,
    run_id INTEGER NOT NULL REFERENCES run(id) ON DELETE CASCADE,
    scheduled_ns INTEGER,
    start_ns INTEGER NOT NULL,
    ttft_s REAL,
    itl_summary TEXT,
    e2e_s REAL,
    prompt_tokens INTEGER,
    output_tokens INTEGER,
    status INTEGER,
    error TEXT);
CREATE INDEX request_run ON request(run_id);
CREATE TABLE event(
    id INTEGER PRIMARY KEY,
    session_id INTEGER NOT NULL REFERENCES session(id) ON DELETE CASCADE,
    t_ns INTEGER NOT NULL,
    kind TEXT NOT NULL,
    text TEXT NOT NULL DEFAULT '');
CREATE INDEX event_session_t ON event(session_id, t_ns);
)sql",
    // Many processes write one workspace (the GUI, record, load, run, storage run): each
    // writer registers here and owns the staging rows and runs it creates, so leftovers are
    // only those of a writer that is provably gone (see ProcessIdentity). Rows without a
    // writer were left by version 1, which sealed everything at start: they stay leftovers.
    R"sql(
CREATE TABLE writer(
    id INTEGER PRIMARY KEY,
    boot_id TEXT NOT NULL,
    pid_ns TEXT NOT NULL,
    pid INTEGER NOT NULL,
    start_ticks INTEGER NOT NULL,
    started_ns INTEGER NOT NULL);
ALTER TABLE sample_recent ADD COLUMN writer_id INTEGER;
ALTER TABLE run ADD COLUMN writer_id INTEGER;
)sql",
    // An open session is "recording" while the process that opened it lives, not while its
    // samples look recent: an idle recording, a feed retrying, or a remote clock behind ours
    // has no recent sample yet still records. The claim goes with its writer (a crash's is
    // forgotten by the next writer's recovery) and when the opening connection closes.
    R"sql(
CREATE TABLE IF NOT EXISTS session_writer(
    session_id INTEGER PRIMARY KEY REFERENCES session(id) ON DELETE CASCADE,
    writer_id INTEGER NOT NULL REFERENCES writer(id) ON DELETE CASCADE);
)sql",
};

} // namespace

void Schema::prepare(SqliteDb& db, bool writable) {
    // The first read of the header is where a non-SQLite file is detected (SQLITE_NOTADB).
    // One statement, so one snapshot: a writer creating the file meanwhile is seen either not
    // at all or complete.
    std::int64_t appId = 0;
    std::int64_t version = 0;
    std::int64_t objects = 0;
    try {
        auto q = db.prepare("SELECT (SELECT application_id FROM pragma_application_id), "
                            "(SELECT user_version FROM pragma_user_version), "
                            "(SELECT count(*) FROM sqlite_master)");
        if (q.step()) {
            appId = q.columnInt(0);
            version = q.columnInt(1);
            objects = q.columnInt(2);
        }
    } catch (const StoreError& e) {
        if (e.code() != StoreError::Code::NotADatabase)
            throw;
        throw StoreError(StoreError::Code::NotADatabase,
                         db.path() + " is not a tierscope workspace (not an SQLite database)");
    }

    const bool empty = appId == 0 && version == 0 && objects == 0;
    if (empty && !writable)
        throw StoreError(StoreError::Code::NotADatabase,
                         db.path() + " is not a tierscope workspace (an empty database)");
    if (!empty && appId != kApplicationId)
        throw StoreError(StoreError::Code::NotADatabase,
                         db.path() + " is an SQLite file but not a tierscope workspace");
    if (version > kVersion)
        throw StoreError(StoreError::Code::NewerSchema,
                         db.path() + " was written by a newer tierscope (schema " +
                             std::to_string(version) + ", this build reads up to " +
                             std::to_string(kVersion) + ")");
    if (version == kVersion || (!writable && version >= kReadableFrom))
        return;
    if (!writable)
        throw StoreError(StoreError::Code::CannotWrite,
                         db.path() + " needs a schema upgrade but was opened read-only");

    SqliteTransaction transaction(db, SqliteTransaction::Kind::Immediate);
    // Another process may have created or upgraded the file since the first look (two
    // writers starting on a new workspace): the write lock makes this second look final.
    const std::int64_t locked = db.queryInt("PRAGMA user_version");
    if (locked > kVersion)
        throw StoreError(StoreError::Code::NewerSchema, db.path() + " was upgraded to schema " +
                                                            std::to_string(locked) +
                                                            " by a newer tierscope meanwhile");
    for (std::int64_t v = locked; v < kVersion; ++v)
        db.exec(kMigrations[static_cast<std::size_t>(v)]);
    db.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
    db.exec("PRAGMA user_version = " + std::to_string(kVersion));
    transaction.commit();
}

} // namespace tierscope
