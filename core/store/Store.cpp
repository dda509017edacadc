#include "core/store/Store.h"

#include "core/store/ChunkCodec.h"
#include "core/store/Decimator.h"
#include "core/store/RollupLevels.h"
#include "core/store/Schema.h"
#include "core/store/SealWriter.h"
#include "core/store/SqliteTransaction.h"
#include "core/store/StoreError.h"
#include "core/store/WriterRegistry.h"
#include "core/util/ProcessIdentity.h"
#include "core/util/WallClock.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <map>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

namespace tierscope {

namespace {

SqliteDb::Mode sqliteMode(Store::Mode mode) {
    return mode == Store::Mode::ReadOnly ? SqliteDb::Mode::ReadOnly : SqliteDb::Mode::ReadWrite;
}

// Creates the file with mode 0600 before SQLite does, so recordings of a shared machine are
// not world-readable by default (SQLite would use 0644 under the usual umask).
const std::string& createPrivately(const std::string& path, Store::Mode mode) {
    struct stat st {};
    if (mode == Store::Mode::ReadOnly || stat(path.c_str(), &st) == 0)
        return path;
    const int fd = ::open(path.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ::close(fd);
        return path;
    }
    if (errno != EEXIST)
        throw StoreError(StoreError::Code::CannotWrite,
                         "cannot create " + path + ": " + std::strerror(errno));
    return path;
}

SessionInfo readSession(const SqliteStatement& q) {
    SessionInfo s;
    s.id = q.columnInt(0);
    s.label = q.columnText(1);
    s.storageProfile = q.columnText(2);
    s.host = q.columnText(3);
    s.startNs = q.columnInt(4);
    s.endNs = q.columnOptionalInt(5);
    s.notes = q.columnText(6);
    s.tags = q.columnText(7);
    s.toolVersion = q.columnText(8);
    s.hasRequests = q.columnInt(9) != 0;
    return s;
}

std::vector<Sample> decodeOrThrow(std::span<const unsigned char> blob, std::int64_t metricId) {
    auto samples = ChunkCodec::decode(blob);
    if (!samples)
        throw StoreError(StoreError::Code::NotADatabase,
                         "corrupt sample chunk for metric " + std::to_string(metricId));
    return std::move(*samples);
}

// hasRequests probes request_run once per run of the session: cheap for the session list's
// poll, where a count of millions of requests would not be.
constexpr const char* kSessionColumns =
    "SELECT id, label, storage_profile, host, start_ns, end_ns, notes, tags, tool_version, "
    "EXISTS (SELECT 1 FROM run u JOIN request q ON q.run_id = u.id "
    "WHERE u.session_id = session.id) "
    "FROM session ";

} // namespace

Store::Store(const std::string& path, Mode mode)
    : m_db(createPrivately(path, mode), sqliteMode(mode)) {
    const bool writable = mode == Mode::ReadWrite;
    if (writable && sqlite3_db_readonly(m_db.handle(), "main") == 1)
        throw StoreError(StoreError::Code::CannotWrite, path + " is read-only");
    Schema::prepare(m_db, writable);
    if (writable) {
        m_db.exec("PRAGMA journal_mode = WAL");
        m_db.exec("PRAGMA synchronous = NORMAL");
    }
    m_db.exec("PRAGMA foreign_keys = ON");
}

Store::~Store() {
    if (!m_runOwner)
        return;
    try {
        WriterRegistry::releaseSessions(m_db, *m_runOwner);
        unregisterWriter(*m_runOwner); // kept while one of its runs is unfinished
    } catch (const StoreError&) {
        // The next writer forgets it once this process is gone.
    }
}

std::int64_t Store::createSession(const SessionInfo& info) {
    auto q = m_db.prepare("INSERT INTO session(label, storage_profile, host, start_ns, end_ns, "
                          "notes, tags, tool_version) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    q.bind(1, info.label)
        .bind(2, info.storageProfile)
        .bind(3, info.host)
        .bind(4, info.startNs)
        .bindOptional(5, info.endNs)
        .bind(6, info.notes)
        .bind(7, info.tags)
        .bind(8, info.toolVersion)
        .run();
    const std::int64_t id = m_db.lastInsertRowid();
    if (!info.endNs)
        WriterRegistry::claimSession(m_db, id, runOwner());
    return id;
}

void Store::finishSession(std::int64_t sessionId, std::int64_t endNs) {
    m_db.prepare("UPDATE session SET end_ns = ? WHERE id = ?")
        .bind(1, endNs)
        .bind(2, sessionId)
        .run();
}

void Store::describeSession(std::int64_t sessionId, const std::string& label,
                            const std::string& notes) {
    m_db.prepare("UPDATE session SET label = ?, notes = ? WHERE id = ?")
        .bind(1, label)
        .bind(2, notes)
        .bind(3, sessionId)
        .run();
    if (sqlite3_changes(m_db.handle()) == 0)
        throw StoreError(StoreError::Code::NotFound, "no session " + std::to_string(sessionId));
}

void Store::deleteSession(std::int64_t sessionId) {
    SqliteTransaction transaction(m_db, SqliteTransaction::Kind::Immediate);
    // Samples and rollups name their metric, not the session, and carry no foreign key.
    for (const char* table : {"sample_recent", "sample_chunk", "rollup"})
        m_db.prepare(std::string("DELETE FROM ") + table +
                     " WHERE metric_id IN (SELECT id FROM metric WHERE session_id = ?)")
            .bind(1, sessionId)
            .run();
    m_db.prepare("DELETE FROM session WHERE id = ?").bind(1, sessionId).run();
    if (sqlite3_changes(m_db.handle()) == 0)
        throw StoreError(StoreError::Code::NotFound, "no session " + std::to_string(sessionId));
    transaction.commit(); // metric, device, run, request, event: ON DELETE CASCADE
}

std::vector<SessionInfo> Store::sessions() {
    auto q = m_db.prepare(std::string(kSessionColumns) + "ORDER BY start_ns, id");
    std::vector<SessionInfo> out;
    while (q.step())
        out.push_back(readSession(q));
    return out;
}

std::optional<SessionInfo> Store::session(std::int64_t sessionId) {
    auto q = m_db.prepare(std::string(kSessionColumns) + "WHERE id = ?");
    q.bind(1, sessionId);
    if (!q.step())
        return std::nullopt;
    return readSession(q);
}

std::int64_t Store::defineMetric(std::int64_t sessionId, const MetricDescriptor& metric) {
    m_db.prepare("INSERT INTO metric(session_id, path, unit, kind, labels) VALUES (?, ?, ?, ?, ?) "
                 "ON CONFLICT(session_id, path) DO NOTHING")
        .bind(1, sessionId)
        .bind(2, metric.path)
        .bind(3, metric.unit)
        .bind(4, metric.kind)
        .bind(5, metric.labels)
        .run();
    auto q = m_db.prepare("SELECT id FROM metric WHERE session_id = ? AND path = ?");
    q.bind(1, sessionId).bind(2, metric.path);
    if (!q.step())
        throw StoreError(StoreError::Code::Io, "metric " + metric.path + " vanished after insert");
    return q.columnInt(0);
}

std::vector<MetricInfo> Store::metrics(std::int64_t sessionId) {
    auto q = m_db.prepare(
        "SELECT id, path, unit, kind, labels FROM metric WHERE session_id = ? ORDER BY path");
    q.bind(1, sessionId);
    std::vector<MetricInfo> out;
    while (q.step())
        out.push_back({q.columnInt(0),
                       sessionId,
                       {q.columnText(1), q.columnText(2), q.columnText(3), q.columnText(4)}});
    return out;
}

void Store::addDevices(std::int64_t sessionId, const std::vector<DeviceRecord>& devices) {
    auto q = m_db.prepare("INSERT INTO device(session_id, kind, name, attrs) VALUES (?, ?, ?, ?)");
    SqliteTransaction transaction(m_db);
    for (const auto& d : devices)
        q.bind(1, sessionId).bind(2, d.kind).bind(3, d.name).bind(4, d.attrs).run();
    transaction.commit();
}

std::vector<DeviceRecord> Store::devices(std::int64_t sessionId) {
    auto q = m_db.prepare("SELECT kind, name, attrs FROM device WHERE session_id = ? ORDER BY id");
    q.bind(1, sessionId);
    std::vector<DeviceRecord> out;
    while (q.step())
        out.push_back({q.columnText(0), q.columnText(1), q.columnText(2)});
    return out;
}

void Store::addEvent(std::int64_t sessionId, std::int64_t tNs, const std::string& kind,
                     const std::string& text) {
    m_db.prepare("INSERT INTO event(session_id, t_ns, kind, text) VALUES (?, ?, ?, ?)")
        .bind(1, sessionId)
        .bind(2, tNs)
        .bind(3, kind)
        .bind(4, text)
        .run();
}

std::optional<std::string> Store::eventText(std::int64_t sessionId, const std::string& kind) {
    auto q = m_db.prepare(
        "SELECT text FROM event WHERE session_id = ? AND kind = ? ORDER BY t_ns, id LIMIT 1");
    q.bind(1, sessionId).bind(2, kind);
    if (!q.step())
        return std::nullopt;
    return q.columnText(0);
}

std::vector<StoredEvent> Store::events(std::int64_t sessionId) {
    auto q =
        m_db.prepare("SELECT t_ns, kind, text FROM event WHERE session_id = ? ORDER BY t_ns, id");
    q.bind(1, sessionId);
    std::vector<StoredEvent> out;
    while (q.step())
        out.push_back({q.columnInt(0), q.columnText(1), q.columnText(2)});
    return out;
}

std::int64_t Store::createRun(std::int64_t sessionId, const std::string& workload,
                              const std::string& paramsJson, std::int64_t startNs,
                              const std::string& experiment, const std::string& arm,
                              int repetition) {
    m_db.prepare(
            "INSERT INTO run(session_id, experiment, arm, workload, params, repetition, start_ns, "
            "writer_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        .bind(1, sessionId)
        .bind(2, experiment)
        .bind(3, arm)
        .bind(4, workload)
        .bind(5, paramsJson)
        .bind(6, static_cast<std::int64_t>(repetition))
        .bind(7, startNs)
        .bind(8, runOwner())
        .run();
    return m_db.lastInsertRowid();
}

std::int64_t Store::runOwner() {
    if (!m_runOwner)
        m_runOwner = registerWriter();
    return *m_runOwner;
}

void Store::finishRun(std::int64_t runId, std::int64_t endNs, const std::string& status,
                      const std::string& summaryJson) {
    m_db.prepare("UPDATE run SET end_ns = ?, status = ?, summary = ? WHERE id = ?")
        .bind(1, endNs)
        .bind(2, status)
        .bind(3, summaryJson)
        .bind(4, runId)
        .run();
}

void Store::addRequests(std::int64_t runId, const std::vector<RequestRecord>& requests) {
    auto q = m_db.prepare(
        "INSERT INTO request(run_id, scheduled_ns, start_ns, ttft_s, itl_summary, e2e_s, "
        "prompt_tokens, output_tokens, status, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    SqliteTransaction transaction(m_db);
    for (const auto& r : requests) {
        q.bind(1, runId).bind(2, r.scheduledNs).bind(3, r.sendNs);
        r.ttftS ? q.bind(4, *r.ttftS) : q.bindNull(4);
        if (r.itlS.empty()) {
            q.bindNull(5);
        } else {
            double sum = 0, max = 0;
            for (const double g : r.itlS) {
                sum += g;
                max = std::max(max, g);
            }
            q.bind(5, "{\"count\":" + std::to_string(r.itlS.size()) + ",\"mean_s\":" +
                          std::to_string(sum / static_cast<double>(r.itlS.size())) +
                          ",\"max_s\":" + std::to_string(max) + "}");
        }
        r.e2eS ? q.bind(6, *r.e2eS) : q.bindNull(6);
        r.promptTokens ? q.bind(7, static_cast<std::int64_t>(*r.promptTokens)) : q.bindNull(7);
        r.outputTokens ? q.bind(8, static_cast<std::int64_t>(*r.outputTokens)) : q.bindNull(8);
        q.bind(9, static_cast<std::int64_t>(r.httpStatus));
        r.error.empty() ? q.bindNull(10) : q.bind(10, r.error);
        q.run();
    }
    transaction.commit();
}

namespace {

constexpr const char* kRunColumns =
    "SELECT id, session_id, experiment, arm, workload, params, repetition, start_ns, end_ns, "
    "status, summary FROM run ";

RunInfo readRun(const SqliteStatement& q) {
    RunInfo r;
    r.id = q.columnInt(0);
    r.sessionId = q.columnInt(1);
    r.experiment = q.columnText(2);
    r.arm = q.columnText(3);
    r.workload = q.columnText(4);
    r.paramsJson = q.columnText(5);
    r.repetition = static_cast<int>(q.columnInt(6));
    r.startNs = q.columnInt(7);
    r.endNs = q.columnOptionalInt(8);
    r.status = q.columnText(9);
    r.summaryJson = q.columnText(10);
    return r;
}

std::vector<RunInfo> readRuns(SqliteStatement& q) {
    std::vector<RunInfo> out;
    while (q.step())
        out.push_back(readRun(q));
    return out;
}

std::optional<double> optionalDouble(const SqliteStatement& q, int col) {
    return q.columnIsNull(col) ? std::nullopt : std::optional<double>(q.columnDouble(col));
}

} // namespace

std::optional<RunInfo> Store::run(std::int64_t runId) {
    auto q = m_db.prepare(std::string(kRunColumns) + "WHERE id = ?");
    q.bind(1, runId);
    return q.step() ? std::optional<RunInfo>(readRun(q)) : std::nullopt;
}

std::vector<RunInfo> Store::runsOfSession(std::int64_t sessionId) {
    auto q = m_db.prepare(std::string(kRunColumns) + "WHERE session_id = ? ORDER BY id");
    q.bind(1, sessionId);
    return readRuns(q);
}

std::vector<RunInfo> Store::runsOfArm(const std::string& experiment, const std::string& arm) {
    auto q =
        m_db.prepare(std::string(kRunColumns) + "WHERE experiment = ? AND arm = ? ORDER BY id");
    q.bind(1, experiment).bind(2, arm);
    return readRuns(q);
}

std::vector<std::pair<std::string, std::string>> Store::arms() {
    auto q = m_db.prepare("SELECT experiment, arm FROM run WHERE experiment != '' "
                          "GROUP BY experiment, arm ORDER BY MIN(id)");
    std::vector<std::pair<std::string, std::string>> out;
    while (q.step())
        out.emplace_back(q.columnText(0), q.columnText(1));
    return out;
}

std::vector<StoredRequest> Store::requests(std::int64_t runId) {
    auto q = m_db.prepare("SELECT ttft_s, e2e_s, json_extract(itl_summary, '$.mean_s'), "
                          "output_tokens, status, error, json_extract(itl_summary, '$.count'), "
                          "scheduled_ns, start_ns FROM request WHERE run_id = ? ORDER BY id");
    q.bind(1, runId);
    std::vector<StoredRequest> out;
    while (q.step()) {
        StoredRequest r;
        r.ttftS = optionalDouble(q, 0);
        r.e2eS = optionalDouble(q, 1);
        r.itlMeanS = optionalDouble(q, 2);
        if (const auto tokens = q.columnOptionalInt(3))
            r.outputTokens = static_cast<int>(*tokens);
        r.ok = q.columnInt(4) == 200 && q.columnIsNull(5);
        if (const auto gaps = q.columnOptionalInt(6))
            r.itlCount = static_cast<long>(*gaps);
        r.scheduledNs = q.columnOptionalInt(7);
        r.sendNs = q.columnInt(8);
        out.push_back(r);
    }
    return out;
}

std::int64_t Store::requestCount(std::int64_t runId) {
    auto q = m_db.prepare("SELECT count(*) FROM request WHERE run_id = ?");
    q.bind(1, runId);
    return q.step() ? q.columnInt(0) : 0;
}

void Store::readStaging(std::int64_t metricId, std::int64_t t0Ns, std::int64_t t1Ns,
                        std::vector<Sample>& out) {
    auto q = m_db.prepare("SELECT data FROM sample_recent WHERE metric_id = ? AND t_end >= ? "
                          "AND t_start <= ?");
    q.bind(1, metricId).bind(2, t0Ns).bind(3, t1Ns);
    while (q.step())
        for (const Sample& s : decodeOrThrow(q.columnBlob(0), metricId))
            if (s.tNs >= t0Ns && s.tNs <= t1Ns)
                out.push_back(s);
}

std::vector<Sample> Store::readRaw(std::int64_t metricId, std::int64_t t0Ns, std::int64_t t1Ns) {
    std::vector<Sample> out;
    // A chunk never spans more than kMaxChunkSpanNs, which bounds how early one can start.
    auto q = m_db.prepare("SELECT data FROM sample_chunk WHERE metric_id = ? AND t_start >= ? "
                          "AND t_start <= ? AND t_end >= ? ORDER BY t_start");
    q.bind(1, metricId).bind(2, t0Ns - SealWriter::kMaxChunkSpanNs).bind(3, t1Ns).bind(4, t0Ns);
    while (q.step())
        for (const Sample& s : decodeOrThrow(q.columnBlob(0), metricId))
            if (s.tNs >= t0Ns && s.tNs <= t1Ns)
                out.push_back(s);
    readStaging(metricId, t0Ns, t1Ns, out);
    if (!std::is_sorted(out.begin(), out.end(), [](auto& a, auto& b) { return a.tNs < b.tNs; }))
        std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.tNs < b.tNs; });
    return out;
}

std::vector<Bucket> Store::readFromRollups(std::int64_t metricId, std::int64_t t0Ns,
                                           std::int64_t t1Ns, int slots, std::int64_t levelS) {
    Decimator decimator(t0Ns, t1Ns, slots);
    auto q = m_db.prepare("SELECT t_bucket, min, max, sum, count FROM rollup WHERE metric_id = ? "
                          "AND level_s = ? AND t_bucket BETWEEN ? AND ?");
    q.bind(1, metricId).bind(2, levelS).bind(3, bucketStart(t0Ns, levelS)).bind(4, t1Ns);
    while (q.step())
        decimator.addBucket(std::max(q.columnInt(0), t0Ns), q.columnDouble(1), q.columnDouble(2),
                            q.columnDouble(3), q.columnInt(4));
    // Staging rows are not in the rollups yet; they are few (one seal interval at most).
    std::vector<Sample> recent;
    readStaging(metricId, t0Ns, t1Ns, recent);
    for (const Sample& s : recent)
        decimator.add(s.tNs, s.value);
    return decimator.result();
}

std::int64_t Store::chunkedSampleCount(std::int64_t metricId, std::int64_t t0Ns,
                                       std::int64_t t1Ns) {
    auto q = m_db.prepare("SELECT coalesce(sum(n), 0) FROM sample_chunk WHERE metric_id = ? AND "
                          "t_start >= ? AND t_start <= ? AND t_end >= ?");
    q.bind(1, metricId).bind(2, t0Ns - SealWriter::kMaxChunkSpanNs).bind(3, t1Ns).bind(4, t0Ns);
    return q.step() ? q.columnInt(0) : 0;
}

std::vector<Bucket> Store::readDecimated(std::int64_t metricId, std::int64_t t0Ns,
                                         std::int64_t t1Ns, int maxPoints) {
    const int slots = std::max(1, maxPoints / 2);
    const std::int64_t width = (t1Ns - t0Ns) / slots;
    std::int64_t level = 0;
    for (const std::int64_t candidate : kRollupLevelsS)
        if (candidate * kNsPerS <= width)
            level = candidate;
    if (level > 0) {
        // Reading a rollup row costs ~20x decoding one packed sample (bench_rangeread), so
        // rollups only pay off once they replace far more samples than that.
        const std::int64_t rollupRows = (t1Ns - t0Ns) / (level * kNsPerS) + 1;
        if (chunkedSampleCount(metricId, t0Ns, t1Ns) > kRollupCostRatio * rollupRows)
            return readFromRollups(metricId, t0Ns, t1Ns, slots, level);
    }

    const auto raw = readRaw(metricId, t0Ns, t1Ns);
    if (raw.size() <= static_cast<std::size_t>(maxPoints)) {
        std::vector<Bucket> out;
        out.reserve(raw.size());
        for (const Sample& s : raw)
            out.push_back({s.tNs, 0, s.value, s.value, s.value, 1});
        return out;
    }
    return Decimator::decimate(raw, t0Ns, t1Ns, slots);
}

Bucket Store::summarize(std::int64_t metricId) {
    Bucket total;
    auto q = m_db.prepare("SELECT min(min), max(max), sum(sum), sum(count) FROM rollup "
                          "WHERE metric_id = ? AND level_s = ?");
    q.bind(1, metricId).bind(2, kRollupLevelsS.back());
    if (q.step() && !q.columnIsNull(0))
        total.merge(q.columnDouble(0), q.columnDouble(1), q.columnDouble(2), q.columnInt(3));
    std::vector<Sample> staged;
    readStaging(metricId, std::numeric_limits<std::int64_t>::min(),
                std::numeric_limits<std::int64_t>::max(), staged);
    for (const Sample& s : staged)
        total.add(s.value);
    return total;
}

std::int64_t Store::sampleCount(std::int64_t sessionId) {
    auto q = m_db.prepare(
        "SELECT (SELECT coalesce(sum(c.n), 0) FROM sample_chunk c JOIN metric m ON m.id = "
        "c.metric_id WHERE m.session_id = ?1) + (SELECT coalesce(sum(r.n), 0) FROM sample_recent r "
        "JOIN metric m ON m.id = r.metric_id WHERE m.session_id = ?1)");
    q.bind(1, sessionId);
    return q.step() ? q.columnInt(0) : 0;
}

std::int64_t Store::registerWriter() {
    const ProcessIdentity self = ProcessIdentity::self();
    m_db.prepare("INSERT INTO writer(boot_id, pid_ns, pid, start_ticks, started_ns) "
                 "VALUES (?, ?, ?, ?, ?)")
        .bind(1, self.bootId)
        .bind(2, self.pidNamespace)
        .bind(3, self.pid)
        .bind(4, self.startTicks)
        .bind(5, WallClock::systemNowNs())
        .run();
    return m_db.lastInsertRowid();
}

void Store::unregisterWriter(std::int64_t writerId) {
    m_db.prepare("DELETE FROM writer WHERE id = ?1 AND NOT EXISTS "
                 "(SELECT 1 FROM sample_recent WHERE writer_id = ?1) AND NOT EXISTS "
                 "(SELECT 1 FROM run WHERE writer_id = ?1 AND status = 'running')")
        .bind(1, writerId)
        .run();
}

Store::Recovery Store::recoverAbandoned() {
    // IMMEDIATE: no other writer can stage, seal or register between the liveness check and
    // the delete, so the rows read here are exactly the rows deleted.
    SqliteTransaction transaction(m_db, SqliteTransaction::Kind::Immediate);
    Recovery done;
    const auto gone = WriterRegistry::goneWriters(m_db);
    std::map<std::int64_t, std::vector<Sample>> byMetric;
    std::vector<std::int64_t> rowids;
    auto collect = [&](SqliteStatement& q) {
        while (q.step()) {
            const std::int64_t metricId = q.columnInt(1);
            auto& samples = byMetric[metricId];
            for (const Sample& s : decodeOrThrow(q.columnBlob(2), metricId)) {
                samples.push_back(s);
                ++done.samples;
            }
            rowids.push_back(q.columnInt(0));
        }
    };
    // Version 1 rows carry no writer; that version sealed them at every start, too.
    auto legacy =
        m_db.prepare("SELECT rowid, metric_id, data FROM sample_recent WHERE writer_id IS NULL");
    collect(legacy);
    auto owned =
        m_db.prepare("SELECT rowid, metric_id, data FROM sample_recent WHERE writer_id = ?");
    for (const std::int64_t id : gone) {
        owned.reset();
        owned.bind(1, id);
        collect(owned);
    }
    SealWriter writer(m_db);
    for (auto& [metricId, samples] : byMetric) {
        std::stable_sort(samples.begin(), samples.end(),
                         [](auto& a, auto& b) { return a.tNs < b.tNs; });
        writer.write(metricId, samples);
    }
    auto del = m_db.prepare("DELETE FROM sample_recent WHERE rowid = ?");
    for (const std::int64_t rowid : rowids)
        del.bind(1, rowid).run();

    auto legacyRuns =
        m_db.prepare("UPDATE run SET status = 'interrupted' WHERE status = 'running' AND "
                     "writer_id IS NULL");
    legacyRuns.run();
    done.runs += m_db.changes();
    auto interrupt = m_db.prepare(
        "UPDATE run SET status = 'interrupted' WHERE status = 'running' AND writer_id = ?");
    auto forget = m_db.prepare("DELETE FROM writer WHERE id = ?");
    for (const std::int64_t id : gone) {
        interrupt.bind(1, id).run();
        done.runs += m_db.changes();
        forget.bind(1, id).run();
        ++done.writers;
    }
    transaction.commit();
    return done;
}

} // namespace tierscope
