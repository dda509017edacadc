#include "core/store/WorkspaceMerge.h"

#include "core/store/SqliteTransaction.h"
#include "core/store/SqliteUri.h"
#include "core/store/Store.h"
#include "core/store/StoreError.h"
#include "core/util/WallClock.h"

#include <filesystem>

namespace tierscope {

namespace {

std::string quoteSql(const std::string& text) {
    std::string out = "'";
    for (const char c : text)
        out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

// The columns of `table` in the main database, in order.
std::vector<std::string> columns(SqliteDb& db, const std::string& table) {
    std::vector<std::string> out;
    auto st = db.prepare("SELECT name FROM pragma_table_info(" + quoteSql(table) + ")");
    while (st.step())
        out.push_back(st.columnText(0));
    return out;
}

// "INSERT INTO main.T(cols) SELECT exprs FROM src.T WHERE ...", every column copied as is
// except `id` (dropped, so it gets a new one, unless `keepId`) and those in `replace`.
void copy(SqliteDb& db, const std::string& table, const std::string& where,
          const std::vector<std::pair<std::string, std::string>>& replace, bool keepId = false) {
    std::string into, select;
    for (const auto& c : columns(db, table)) {
        std::string expr = "src." + table + "." + c;
        bool skip = c == "id" && !keepId;
        for (const auto& [name, value] : replace)
            if (name == c) {
                expr = value;
                skip = false;
            }
        if (skip)
            continue;
        into += (into.empty() ? "" : ",") + c;
        select += (select.empty() ? "" : ",") + expr;
    }
    db.exec("INSERT INTO main." + table + "(" + into + ") SELECT " + select + " FROM src." + table +
            " WHERE " + where);
}

struct Attached {
    SqliteDb& db;
    Attached(SqliteDb& d, const std::string& path) : db(d) {
        try {
            db.exec("ATTACH DATABASE " + quoteSql(path) + " AS src");
            db.queryInt("SELECT count(*) FROM src.sqlite_master"); // opens it, and its -shm
        } catch (const StoreError&) {
            // A workspace on read-only media (a snapshot's source on a server): read as
            // SqliteDb reads it, without a -shm, where its -wal holds nothing.
            if (!SqliteUri::immutableUsable(path))
                throw;
            try {
                db.exec("DETACH DATABASE src");
            } catch (const StoreError&) { // it never attached
            }
            db.exec("ATTACH DATABASE " + quoteSql(SqliteUri::immutable(path)) + " AS src");
        }
    }
    ~Attached() {
        try {
            db.exec("DETACH DATABASE src");
        } catch (const std::exception&) {
        }
    }
};

} // namespace

std::string WorkspaceMerge::originKey(const std::string& origin, std::int64_t session,
                                      std::int64_t startNs) {
    return origin + " session " + std::to_string(session) + " started " + std::to_string(startNs);
}

std::size_t WorkspaceMerge::extract(const std::string& sourceDb, const std::string& outDb,
                                    const Selection& selection) {
    { Store check(sourceDb, Store::Mode::ReadOnly); } // a clear error for a foreign file
    std::filesystem::remove(outDb);
    Store out(outDb, Store::Mode::ReadWrite);
    auto& db = out.db();
    Attached attached(db, sourceDb);
    std::string sessions = "SELECT id FROM src.session";
    if (selection.session)
        sessions += " WHERE id = " + std::to_string(*selection.session);
    else if (!selection.experiment.empty())
        // A plan's runs are stored under "<plan name>/<workload>": the plan's name selects
        // them all, a full "<name>/<workload>" one workload's.
        sessions += " WHERE id IN (SELECT session_id FROM src.run WHERE experiment = " +
                    quoteSql(selection.experiment) + " OR substr(experiment, 1, " +
                    std::to_string(selection.experiment.size() + 1) +
                    ") = " + quoteSql(selection.experiment + "/") + ")";
    SqliteTransaction transaction(db);
    const std::string in = " IN (" + sessions + ")";
    copy(db, "session", "id" + in, {}, true);
    copy(db, "metric", "session_id" + in, {}, true);
    const std::string metrics = "metric_id IN (SELECT id FROM main.metric)";
    copy(db, "sample_chunk", metrics, {}, true);
    copy(db, "sample_recent", metrics, {}, true);
    copy(db, "rollup", metrics, {}, true);
    copy(db, "device", "session_id" + in, {}, true);
    copy(db, "run", "session_id" + in, {}, true);
    copy(db, "request", "run_id IN (SELECT id FROM main.run)", {}, true);
    copy(db, "event", "session_id" + in, {}, true);
    transaction.commit();
    return static_cast<std::size_t>(db.queryInt("SELECT count(*) FROM main.session"));
}

std::vector<WorkspaceMerge::Merged> WorkspaceMerge::merge(Store& local, const std::string& pulledDb,
                                                          const std::string& origin) {
    { Store check(pulledDb, Store::Mode::ReadOnly); } // tierscope's, and this schema version
    auto& db = local.db();
    db.exec("PRAGMA trusted_schema = OFF");
    Attached attached(db, pulledDb);
    if (db.queryInt("SELECT count(*) FROM src.sqlite_master WHERE type IN ('view', 'trigger')") > 0)
        throw StoreError(StoreError::Code::NotADatabase,
                         "the pulled workspace holds views or triggers; refused");
    std::vector<Merged> out;
    SqliteTransaction transaction(db, SqliteTransaction::Kind::Immediate);
    auto sessions = db.prepare("SELECT id, start_ns, label FROM src.session ORDER BY id");
    std::vector<std::tuple<std::int64_t, std::int64_t, std::string>> pulled;
    while (sessions.step())
        pulled.emplace_back(sessions.columnInt(0), sessions.columnInt(1), sessions.columnText(2));
    for (const auto& [id, startNs, label] : pulled) {
        const std::string key = originKey(origin, id, startNs);
        auto seen =
            db.prepare("SELECT count(*) FROM main.event WHERE kind = 'pulled-from' AND text = ?");
        seen.bind(1, key);
        seen.step();
        if (seen.columnInt(0) > 0) {
            out.push_back({id, 0, label});
            continue;
        }
        const std::string old = std::to_string(id);
        copy(db, "session", "id = " + old,
             {{"tags", "CASE WHEN src.session.tags = '' THEN 'pulled' ELSE "
                       "src.session.tags || ',pulled' END"}});
        const std::int64_t to = db.lastInsertRowid();
        const std::string now = std::to_string(to);
        // New ids for metrics and runs by a fixed offset, so rows that refer to them map
        // by arithmetic.
        const std::int64_t metricOffset =
            db.queryInt("SELECT coalesce(max(id), 0) FROM main.metric") + 1 -
            db.queryInt("SELECT coalesce(min(id), 0) FROM src.metric WHERE session_id = " + old);
        const std::string mo = std::to_string(metricOffset);
        copy(db, "metric", "session_id = " + old,
             {{"id", "src.metric.id + " + mo}, {"session_id", now}});
        const std::string metrics =
            "metric_id IN (SELECT id FROM src.metric WHERE session_id = " + old + ")";
        copy(db, "sample_chunk", metrics, {{"metric_id", "src.sample_chunk.metric_id + " + mo}});
        copy(db, "sample_recent", metrics, {{"metric_id", "src.sample_recent.metric_id + " + mo}},
             true);
        copy(db, "rollup", metrics, {{"metric_id", "src.rollup.metric_id + " + mo}}, true);
        copy(db, "device", "session_id = " + old, {{"session_id", now}});
        const std::int64_t runOffset =
            db.queryInt("SELECT coalesce(max(id), 0) FROM main.run") + 1 -
            db.queryInt("SELECT coalesce(min(id), 0) FROM src.run WHERE session_id = " + old);
        const std::string ro = std::to_string(runOffset);
        copy(db, "run", "session_id = " + old, {{"id", "src.run.id + " + ro}, {"session_id", now}});
        copy(db, "request", "run_id IN (SELECT id FROM src.run WHERE session_id = " + old + ")",
             {{"run_id", "src.request.run_id + " + ro}});
        copy(db, "event", "session_id = " + old, {{"session_id", now}});
        auto mark = db.prepare("INSERT INTO main.event(session_id, t_ns, kind, text) VALUES "
                               "(?, ?, 'pulled-from', ?)");
        mark.bind(1, to).bind(2, WallClock::systemNowNs()).bind(3, key);
        mark.run();
        out.push_back({id, to, label});
    }
    transaction.commit();
    return out;
}

} // namespace tierscope
