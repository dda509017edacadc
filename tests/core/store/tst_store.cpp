#include "TestSupport.h"
#include "core/store/ChunkCodec.h"
#include "core/store/RollupLevels.h"
#include "core/store/SessionState.h"
#include "core/store/SqliteTransaction.h"
#include "core/store/Store.h"
#include "core/store/StoreError.h"
#include "core/store/StoreWriter.h"
#include "core/store/WriterRegistry.h"

#include <QTemporaryDir>
#include <cmath>
#include <map>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tierscope;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t kT0 = 1'790'000'000'000'000'000; // 2026-09, a round-ish epoch
constexpr std::int64_t kStep = 100'000'000;             // 10 Hz

double valueAt(int metric, int i) {
    return std::sin(i * 0.01 + metric) * 100.0 + metric * 1000.0 + (i % 97 == 0 ? 5000.0 : 0.0);
}

StoreError::Code openError(const std::string& path, Store::Mode mode = Store::Mode::ReadWrite) {
    try {
        Store store(path, mode);
    } catch (const StoreError& e) {
        return e.code();
    }
    qFatal("opening %s unexpectedly succeeded", path.c_str());
}

void rawSql(const std::string& path, const char* sql) {
    sqlite3* db = nullptr;
    sqlite3_open(path.c_str(), &db);
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK)
        qFatal("%s", err);
    sqlite3_close(db);
}

} // namespace

class TestStore : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;
    std::string path(const char* name) const { return m_dir.path().toStdString() + "/" + name; }

    // Writes `seconds` of 10 Hz data for `metrics` series; returns the session id.
    std::int64_t record(const std::string& db, int metrics, int seconds, bool stop,
                        StoreWriter::Options options = {}) {
        std::int64_t session = 0;
        {
            Store store(db, Store::Mode::ReadWrite);
            session = store.createSession(
                {0, "test", "local-nvme", "host", kT0, std::nullopt, "", "", "0"});
        }
        auto* writer = new StoreWriter(db, options);
        std::vector<int> handles;
        for (int m = 0; m < metrics; ++m)
            handles.push_back(
                writer->defineMetric(session, {"test/m" + std::to_string(m), "bytes/s"}));
        for (int i = 0; i < seconds * 10; ++i)
            for (int m = 0; m < metrics; ++m)
                writer->append(handles[static_cast<std::size_t>(m)], kT0 + i * kStep,
                               valueAt(m, i));
        if (stop) {
            writer->stop();
        } else {
            writer->flush();
            m_unsealed.reset(writer); // keep it alive: its rows stay in staging
            return session;
        }
        delete writer;
        return session;
    }

    std::unique_ptr<StoreWriter> m_unsealed;

  private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void roundTripAfterSeal() {
        const auto db = path("roundtrip.db");
        const auto session = record(db, 3, 180, true);
        Store store(db, Store::Mode::ReadOnly);
        const auto metrics = store.metrics(session);
        QCOMPARE(metrics.size(), std::size_t(3));
        QCOMPARE(metrics[1].descriptor.path, std::string("test/m1"));
        QCOMPARE(metrics[1].descriptor.unit, std::string("bytes/s"));
        const auto raw = store.readRaw(metrics[1].id, kT0, kT0 + 180 * 1'000'000'000LL);
        QCOMPARE(raw.size(), std::size_t(1800));
        for (int i = 0; i < 1800; ++i) {
            QCOMPARE(raw[static_cast<std::size_t>(i)].tNs, kT0 + i * kStep);
            QCOMPARE(raw[static_cast<std::size_t>(i)].value, valueAt(1, i));
        }
        QCOMPARE(store.db().queryInt("SELECT count(*) FROM sample_recent"), 0);
        QVERIFY(store.db().queryInt("SELECT count(*) FROM sample_chunk") >= 3);
        QCOMPARE(store.sampleCount(session), 5400);
        // A sub-range cuts exactly at its bounds.
        const auto part = store.readRaw(metrics[0].id, kT0 + 10 * kStep, kT0 + 19 * kStep);
        QCOMPARE(part.size(), std::size_t(10));
        QCOMPARE(part.front().value, valueAt(0, 10));
    }

    // Deleting a session takes every row recorded in it and nothing of any other session.
    void deleteSessionTakesOnlyItsRows() {
        const auto db = path("delete.db");
        const auto keep = record(db, 2, 20, true);
        const auto gone = record(db, 3, 20, false); // some rows still staged
        {
            Store store(db, Store::Mode::ReadWrite);
            const auto run = store.createRun(gone, "load", "{}", kT0);
            RequestRecord r;
            r.httpStatus = 200;
            store.addRequests(run, {r});
            store.addEvent(gone, kT0, "marker", "x");
            store.addDevices(gone, {{"gpu", "gpu0", "{}"}});
        }
        Store store(db, Store::Mode::ReadWrite);
        QVERIFY(store.db().queryInt("SELECT count(*) FROM sample_recent") > 0);
        const auto before = store.sampleCount(keep);
        const auto rollups = store.db().queryInt("SELECT count(*) FROM rollup");
        store.describeSession(keep, "baseline", "NVMe firmware 2.1");
        QCOMPARE(store.session(keep)->label, std::string("baseline"));
        QCOMPARE(store.session(keep)->notes, std::string("NVMe firmware 2.1"));
        store.deleteSession(gone);
        QVERIFY(!store.session(gone));
        QCOMPARE(store.sampleCount(keep), before);
        QCOMPARE(store.metrics(keep).size(), std::size_t(2));
        for (const char* sql :
             {"SELECT count(*) FROM metric WHERE session_id NOT IN (SELECT id FROM session)",
              "SELECT count(*) FROM run", "SELECT count(*) FROM request",
              "SELECT count(*) FROM event", "SELECT count(*) FROM device",
              "SELECT count(*) FROM sample_recent WHERE metric_id NOT IN (SELECT id FROM metric)",
              "SELECT count(*) FROM sample_chunk WHERE metric_id NOT IN (SELECT id FROM metric)",
              "SELECT count(*) FROM rollup WHERE metric_id NOT IN (SELECT id FROM metric)"})
            QVERIFY2(store.db().queryInt(sql) == 0, sql);
        QCOMPARE(store.db().queryInt("SELECT count(*) FROM rollup"), rollups); // all keep's
        QVERIFY(rollups > 0);
        QVERIFY_THROWS_EXCEPTION(StoreError, store.deleteSession(gone));
        QVERIFY_THROWS_EXCEPTION(StoreError, store.describeSession(gone, "x", ""));
        m_unsealed.reset(); // its staged rows went with the session: sealing finds none of them
        QCOMPARE(store.sampleCount(keep), before);
    }

    void roundTripWhileStillStaged() {
        const auto db = path("staged.db");
        const auto session = record(db, 2, 20, false); // flushed, not sealed
        Store store(db, Store::Mode::ReadWrite);
        QCOMPARE(store.db().queryInt("SELECT sum(n) FROM sample_recent"), 400);
        const auto metrics = store.metrics(session);
        const auto raw = store.readRaw(metrics[0].id, kT0, kT0 + 20 * 1'000'000'000LL);
        QCOMPARE(raw.size(), std::size_t(200));
        QCOMPARE(raw[57].value, valueAt(0, 57));
        QCOMPARE(store.summarize(metrics[0].id).count, std::int64_t(200));
        m_unsealed->stop();
        m_unsealed.reset();
        QCOMPARE(store.db().queryInt("SELECT count(*) FROM sample_recent"), 0);
        QCOMPARE(store.readRaw(metrics[0].id, kT0, kT0 + 20 * 1'000'000'000LL).size(),
                 std::size_t(200));
    }

    void rollupsEqualAggregatesOfRawData() {
        const auto db = path("rollups.db");
        // A tiny seal interval splits buckets across seals, exercising the upsert merge.
        StoreWriter::Options options;
        options.sealRows = 777;
        const auto session = record(db, 2, 150, true, options);
        Store store(db, Store::Mode::ReadOnly);
        for (const auto& m : store.metrics(session)) {
            const auto raw = store.readRaw(m.id, kT0, kT0 + 150 * 1'000'000'000LL);
            for (const std::int64_t level : kRollupLevelsS) {
                std::map<std::int64_t, Bucket> expected;
                for (const auto& s : raw)
                    expected[bucketStart(s.tNs, level)].add(s.value);
                auto q =
                    store.db().prepare("SELECT t_bucket, min, max, sum, count FROM rollup "
                                       "WHERE metric_id = ? AND level_s = ? ORDER BY t_bucket");
                q.bind(1, m.id).bind(2, level);
                std::size_t rows = 0;
                while (q.step()) {
                    ++rows;
                    const auto& e = expected.at(q.columnInt(0));
                    QCOMPARE(q.columnDouble(1), e.min);
                    QCOMPARE(q.columnDouble(2), e.max);
                    QVERIFY(std::fabs(q.columnDouble(3) - e.sum) < 1e-6 * std::fabs(e.sum) + 1e-9);
                    QCOMPARE(q.columnInt(4), e.count);
                }
                QCOMPARE(rows, expected.size());
            }
        }
    }

    void decimatedReadsComeFromRollupsOverLongRanges() {
        const auto db = path("hour.db");
        const auto session = record(db, 1, 3600, true);
        Store store(db, Store::Mode::ReadOnly);
        const auto id = store.metrics(session)[0].id;
        const std::int64_t t1 = kT0 + 3600 * 1'000'000'000LL - 1;
        const auto buckets = store.readDecimated(id, kT0, t1, 2000);
        QVERIFY(buckets.size() <= 1000);
        QVERIFY(buckets.size() >= 990);
        std::int64_t count = 0;
        double max = -1e300;
        for (const auto& b : buckets) {
            count += b.count;
            max = std::max(max, b.max);
        }
        QCOMPARE(count, std::int64_t(36000));
        const auto raw = store.readRaw(id, kT0, t1);
        double rawMax = -1e300;
        for (const auto& s : raw)
            rawMax = std::max(rawMax, s.value);
        QCOMPARE(max, rawMax); // spikes survive the overview

        // Ten seconds fit in 2000 points: raw samples come back one per bucket.
        const auto shortRange = store.readDecimated(id, kT0, kT0 + 10 * 1'000'000'000LL - 1, 2000);
        QCOMPARE(shortRange.size(), std::size_t(100));
        QCOMPARE(shortRange[3].count, std::int64_t(1));
        QCOMPARE(shortRange[3].max, valueAt(0, 3));
        // 10 minutes into 400 points: raw decimation, every sample counted once.
        const auto mid = store.readDecimated(id, kT0, kT0 + 600 * 1'000'000'000LL - 1, 400);
        QVERIFY(mid.size() <= 200);
        std::int64_t midCount = 0;
        for (const auto& b : mid)
            midCount += b.count;
        QCOMPARE(midCount, std::int64_t(6000));
    }

    void longRangesNeverDecodeRawChunks() {
        const auto db = path("sixhours.db");
        const auto session = record(db, 1, 6 * 3600, true);
        Store store(db, Store::Mode::ReadWrite);
        const auto id = store.metrics(session)[0].id;
        const std::int64_t t1 = kT0 + 6 * 3600 * 1'000'000'000LL - 1;
        const auto expected = store.readDecimated(id, kT0, t1, 2000);
        // Make every raw chunk undecodable: only a rollup-backed read can still answer.
        store.db().exec("UPDATE sample_chunk SET data = x'ff'");
        QVERIFY_THROWS_EXCEPTION(StoreError, store.readRaw(id, kT0, t1));
        const auto buckets = store.readDecimated(id, kT0, t1, 2000);
        QCOMPARE(buckets.size(), expected.size());
        std::int64_t count = 0;
        for (const auto& b : buckets)
            count += b.count;
        QCOMPARE(count, std::int64_t(216'000));
        // A short range of the same series does decode chunks (cheaper there), and so fails.
        QVERIFY_THROWS_EXCEPTION(StoreError,
                                 store.readDecimated(id, kT0, kT0 + 600'000'000'000LL, 2000));
    }

    void sessionsDevicesAndEvents() {
        const auto db = path("meta.db");
        Store store(db, Store::Mode::ReadWrite);
        const auto a =
            store.createSession({0, "a", "nfs", "h1", kT0, std::nullopt, "n", "t", "0.1.0"});
        const auto b = store.createSession(
            {0, "b", "local-nvme", "h2", kT0 + 5, std::nullopt, "", "", "0.1.0"});
        store.finishSession(a, kT0 + 30'000'000'000);
        store.addDevices(
            b, {{"block", "nvme0n1", R"({"transport":"tcp"})"}, {"backend", "amd", "{}"}});
        store.addEvent(b, kT0 + 7, "note", "switch to B");
        // Whether a session stored requests: a run with one, against a run with none.
        RequestRecord request;
        request.httpStatus = 200;
        store.addRequests(store.createRun(a, "load", "{}", kT0), {request});
        store.createRun(b, "storage/model-load", "{}", kT0);
        const auto sessions = store.sessions();
        QCOMPARE(sessions.size(), std::size_t(2));
        QVERIFY(sessions[0].hasRequests);
        QVERIFY(!sessions[1].hasRequests);
        QVERIFY(store.session(a)->hasRequests);
        QCOMPARE(sessions[0].storageProfile, std::string("nfs"));
        QCOMPARE(*sessions[0].endNs, kT0 + 30'000'000'000);
        QVERIFY(!sessions[1].endNs);
        const auto devices = store.devices(b);
        QCOMPARE(devices.size(), std::size_t(2));
        QCOMPARE(devices[0].attrs, std::string(R"({"transport":"tcp"})"));
        store.addEvent(b, kT0 + 3, "marker", "before");
        const auto events = store.events(b); // in time order, not in the order written
        QCOMPARE(events.size(), std::size_t(2));
        QCOMPARE(events[0].tNs, kT0 + 3);
        QCOMPARE(events[0].text, std::string("before"));
        QCOMPARE(events[1].kind, std::string("note"));
        QCOMPARE(events[1].text, std::string("switch to B"));
        QVERIFY(store.events(a).empty());
        QVERIFY(!store.session(999));
        QCOMPARE(store.summarize(12345).count, std::int64_t(0));
    }

    // A store call inside a caller's transaction joins it: the caller's rollback takes the
    // call's rows too. A full database (max_page_count) reports the full disk, whether or not
    // SQLite already rolled back, never "cannot rollback - no transaction is active".
    void aTransactionJoinsTheCallersAndSurvivesAFullDisk() {
        const auto db = path("transaction.db");
        Store store(db, Store::Mode::ReadWrite);
        const auto session = store.createSession({0, "t", "", "h", kT0, std::nullopt, "", "", "0"});
        std::vector<RequestRecord> rows(50);
        for (auto& r : rows)
            r.httpStatus = 200;
        {
            SqliteTransaction outer(store.db());
            QVERIFY(!outer.joined());
            store.addRequests(store.createRun(session, "load", "{}", kT0), rows);
            QCOMPARE(store.db().queryInt("SELECT count(*) FROM request"), 50);
        } // not committed
        QCOMPARE(store.db().queryInt("SELECT count(*) FROM request"), 0);
        QCOMPARE(store.db().queryInt("SELECT count(*) FROM run"), 0);
        {
            SqliteTransaction outer(store.db());
            SqliteTransaction inner(store.db());
            QVERIFY(inner.joined());
            inner.commit(); // the outer one decides
            store.createRun(session, "load", "{}", kT0);
            outer.commit();
        }
        QCOMPARE(store.db().queryInt("SELECT count(*) FROM run"), 1);

        const auto run = store.createRun(session, "load", "{}", kT0);
        store.db().exec("PRAGMA max_page_count = " +
                        std::to_string(store.db().queryInt("PRAGMA page_count") + 2));
        std::vector<RequestRecord> many(20000);
        for (auto& r : many) {
            r.httpStatus = 500;
            r.error = std::string(200, 'e');
        }
        try {
            store.addRequests(run, many);
            QFAIL("20,000 rows fitted in two pages");
        } catch (const StoreError& e) {
            QCOMPARE(e.code(), StoreError::Code::CannotWrite);
            QVERIFY2(std::string(e.what()).find("full") != std::string::npos, e.what());
        }
        QCOMPARE(store.requestCount(run), std::int64_t(0));
    }

    void newFileIsPrivateAndVersioned() {
        const auto db = path("private.db");
        { Store store(db, Store::Mode::ReadWrite); }
        struct stat st {};
        QCOMPARE(::stat(db.c_str(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0600u);
        Store store(db, Store::Mode::ReadOnly);
        QCOMPARE(store.db().queryInt("PRAGMA user_version"), 3);
        QCOMPARE(store.db().queryInt("PRAGMA application_id"), 0x54534350);
        QCOMPARE(store.db().queryInt("PRAGMA journal_mode = WAL") >= 0, true);
    }

    void refusesFilesThatAreNotOurs() {
        const auto text = path("notes.txt");
        test::writeFile(QString::fromStdString(text),
                        QByteArray("this is not a database\n").repeated(300));
        QCOMPARE(openError(text), StoreError::Code::NotADatabase);

        const auto foreign = path("foreign.db");
        rawSql(foreign, "CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT)");
        QCOMPARE(openError(foreign), StoreError::Code::NotADatabase);

        const auto newer = path("newer.db");
        { Store store(newer, Store::Mode::ReadWrite); }
        rawSql(newer, "PRAGMA user_version = 99");
        QCOMPARE(openError(newer), StoreError::Code::NewerSchema);
        QCOMPARE(openError(newer, Store::Mode::ReadOnly), StoreError::Code::NewerSchema);
        try {
            Store store(newer, Store::Mode::ReadWrite);
        } catch (const StoreError& e) {
            QVERIFY(std::string(e.what()).find("newer tierscope (schema 99") != std::string::npos);
            QCOMPARE(e.exitCode(), 4);
        }
    }

    void refusesLocationsThatCannotBeWritten() {
        QCOMPARE(openError(m_dir.path().toStdString()),
                 StoreError::Code::CannotWrite); // a directory
        QCOMPARE(openError("/proc/tierscope-test.db"), StoreError::Code::CannotWrite);
        QCOMPARE(openError(path("missing-dir/x.db")), StoreError::Code::CannotWrite);
        QCOMPARE(openError(path("absent.db"), Store::Mode::ReadOnly),
                 StoreError::Code::CannotWrite);
    }

    void recoversStagingLeftByACrash() {
        const auto db = path("recover.db");
        std::int64_t metric = 0;
        {
            // What a SIGKILLed writer leaves: committed rows in staging, no chunks, no rollups.
            Store store(db, Store::Mode::ReadWrite);
            const auto session =
                store.createSession({0, "crashed", "", "h", kT0, std::nullopt, "", "", "0"});
            metric = store.defineMetric(session, {"test/crashed", "1"});
            // No writer id: what a version 1 writer left, sealed by the next writer as before.
            auto insert = store.db().prepare(
                "INSERT INTO sample_recent(metric_id, t_start, t_end, n, data) VALUES (?, ?, ?, "
                "?, ?)");
            // Three commits' worth of rows, deliberately out of time order.
            for (int commit : {2, 0, 1}) {
                std::vector<Sample> samples;
                for (int i = commit * 100 + 99; i >= commit * 100; --i)
                    samples.push_back({kT0 + i * kStep, valueAt(0, i)});
                const auto blob = ChunkCodec::encode(samples);
                insert.bind(1, metric)
                    .bind(2, samples.back().tNs)
                    .bind(3, samples.front().tNs)
                    .bind(4, std::int64_t(100))
                    .bind(5, std::span<const unsigned char>(blob))
                    .run();
            }
        }
        StoreWriter recovery(db);
        recovery.stop();
        Store store(db, Store::Mode::ReadOnly);
        QCOMPARE(store.db().queryInt("SELECT count(*) FROM sample_recent"), 0);
        const auto raw = store.readRaw(metric, kT0, kT0 + 30'000'000'000LL);
        QCOMPARE(raw.size(), std::size_t(300));
        QCOMPARE(raw[42].value, valueAt(0, 42));
        QCOMPARE(store.db().queryInt("SELECT sum(count) FROM rollup WHERE level_s = 60"), 300);
    }

    // A writer that starts while another one still has rows in staging must leave them alone:
    // they are not crash leftovers, and the owner seals them itself.
    void aNewWriterLeavesALiveWritersRowsAlone() {
        const auto db = path("two-writers.db");
        const auto first = record(db, 2, 20, false); // flushed, staged, not sealed
        const auto second = record(db, 2, 30, true); // a whole second writer, start to stop
        Store store(db, Store::Mode::ReadOnly);
        QCOMPARE(store.db().queryInt("SELECT sum(n) FROM sample_recent"), 400);
        m_unsealed->stop();
        m_unsealed.reset();
        QCOMPARE(store.db().queryInt("SELECT count(*) FROM sample_recent"), 0);
        QCOMPARE(store.sampleCount(first), 400);
        QCOMPARE(store.sampleCount(second), 600);
        for (const auto& m : store.metrics(first))
            QCOMPARE(store.summarize(m.id).count, std::int64_t(200)); // rollups counted once
        QCOMPARE(store.db().queryInt("SELECT count(*) FROM writer"), 0);
    }

    // A run whose process ended without finishing it is "interrupted" once the next writer
    // starts; a run of a live process stays "running".
    void runsOfAGoneProcessBecomeInterrupted() {
        const auto db = path("runs.db");
        std::int64_t session = 0;
        std::int64_t liveRun = 0;
        {
            // Closed before the fork: SQLite connections must not cross one.
            Store store(db, Store::Mode::ReadWrite);
            session = store.createSession({0, "runs", "", "h", kT0, std::nullopt, "", "", "0"});
            liveRun = store.createRun(session, "load", "{}", kT0);
        }
        const pid_t child = ::fork();
        if (child == 0) {
            Store own(db, Store::Mode::ReadWrite);
            own.createRun(session, "load", "{}", kT0 + 1);
            ::_exit(0); // no finishRun, no destructor: as a SIGKILL would leave it
        }
        int status = 0;
        QCOMPARE(::waitpid(child, &status, 0), child);
        QVERIFY(WIFEXITED(status) && WEXITSTATUS(status) == 0);
        Store store(db, Store::Mode::ReadWrite);
        const auto runs = store.runsOfSession(session);
        QCOMPARE(runs.size(), std::size_t(2));
        QCOMPARE(runs[1].status, std::string("running"));
        StoreWriter(db).stop();
        QCOMPARE(store.run(runs[1].id)->status, std::string("interrupted"));
        QCOMPARE(store.run(liveRun)->status, std::string("running"));
        store.finishRun(liveRun, kT0 + 5, "done", "{}");
        QCOMPARE(store.run(liveRun)->status, std::string("done"));
    }

    // A version 1 workspace (no writer table) is upgraded in place; its staged rows and
    // unfinished runs are leftovers of a version 1 writer and recovered by the first writer.
    void upgradesAVersion1Workspace() {
        const auto db = path("v1.db");
        std::int64_t metric = 0;
        std::int64_t run = 0;
        {
            Store store(db, Store::Mode::ReadWrite);
            const auto session =
                store.createSession({0, "old", "", "h", kT0, std::nullopt, "", "", "0"});
            metric = store.defineMetric(session, {"test/old", "1"});
            run = store.createRun(session, "load", "{}", kT0);
        }
        rawSql(db, "DROP TABLE writer; ALTER TABLE sample_recent DROP COLUMN writer_id; "
                   "ALTER TABLE run DROP COLUMN writer_id; PRAGMA user_version = 1");
        {
            std::vector<Sample> samples;
            for (int i = 0; i < 50; ++i)
                samples.push_back({kT0 + i * kStep, valueAt(0, i)});
            const auto blob = ChunkCodec::encode(samples);
            sqlite3* raw = nullptr;
            sqlite3_open(db.c_str(), &raw);
            sqlite3_stmt* insert = nullptr;
            sqlite3_prepare_v2(raw, "INSERT INTO sample_recent VALUES (?, ?, ?, 50, ?)", -1,
                               &insert, nullptr);
            sqlite3_bind_int64(insert, 1, metric);
            sqlite3_bind_int64(insert, 2, samples.front().tNs);
            sqlite3_bind_int64(insert, 3, samples.back().tNs);
            sqlite3_bind_blob(insert, 4, blob.data(), static_cast<int>(blob.size()),
                              SQLITE_TRANSIENT);
            QCOMPARE(sqlite3_step(insert), SQLITE_DONE);
            sqlite3_finalize(insert);
            sqlite3_close(raw);
        }
        QCOMPARE(openError(db, Store::Mode::ReadOnly), StoreError::Code::CannotWrite);
        StoreWriter(db).stop();
        Store store(db, Store::Mode::ReadOnly);
        QCOMPARE(store.db().queryInt("PRAGMA user_version"), 3);
        QCOMPARE(store.db().queryInt("SELECT count(*) FROM sample_recent"), 0);
        QCOMPARE(store.readRaw(metric, kT0, kT0 + 10'000'000'000LL).size(), std::size_t(50));
        QCOMPARE(store.run(run)->status, std::string("interrupted"));
    }

    // A version 2 workspace opens read-only as it is (its sessions listed, an open one judged
    // by its samples, none written) and is upgraded by the first writer.
    void readsAVersion2WorkspaceWithoutUpgradingIt() {
        const auto db = path("v2.db");
        std::int64_t open = 0;
        {
            Store store(db, Store::Mode::ReadWrite);
            store.createSession({0, "done", "", "h", kT0, kT0 + 1, "", "", "0"});
            open = store.createSession({0, "open", "", "h", kT0, std::nullopt, "", "", "0"});
        }
        rawSql(db, "DROP TABLE session_writer; PRAGMA user_version = 2");
        {
            Store store(db, Store::Mode::ReadOnly);
            QCOMPARE(store.sessions().size(), std::size_t(2));
            QCOMPARE(WriterRegistry::sessionOwner(store.db(), open),
                     WriterRegistry::Owner::Unknown);
            QCOMPARE(SessionState::of(store, *store.session(open), {}, kT0 + 100),
                     std::string("interrupted"));
            QCOMPARE(store.db().queryInt("PRAGMA user_version"), 2);
        }
        StoreWriter(db).stop();
        Store store(db, Store::Mode::ReadOnly);
        QCOMPARE(store.db().queryInt("PRAGMA user_version"), 3);
        QCOMPARE(WriterRegistry::sessionOwner(store.db(), open), WriterRegistry::Owner::None);
    }
};

QTEST_GUILESS_MAIN(TestStore)
#include "tst_store.moc"
