#include "TestSupport.h"
#include "core/store/RequestWriter.h"
#include "core/store/Store.h"

#include <QTemporaryDir>
#include <thread>

using namespace tierscope;

namespace {

RequestRecord request(std::int64_t index) {
    RequestRecord r;
    r.index = index;
    r.httpStatus = 200;
    r.ttftS = 0.001 * static_cast<double>(index);
    r.e2eS = 0.5;
    r.itlS = {0.01, 0.02};
    r.outputText = "kept out of the store";
    return r;
}

std::int64_t newRun(const std::string& db) {
    Store store(db, Store::Mode::ReadWrite);
    const auto session = store.createSession({0, "t", "", "h", 1, std::nullopt, "", "load", "0"});
    return store.createRun(session, "load", "{}", 1);
}

} // namespace

// The load command's requests reach the store while the run goes on, not at its end.
class TestRequestWriter : public QObject {
    Q_OBJECT
  private slots:
    void commitsWhileRunningAndEverythingAtStop() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("w.db").toStdString();
        const auto run = newRun(db);
        RequestWriter writer(db, run, std::chrono::milliseconds(50));
        for (int i = 0; i < 100; ++i)
            writer.push(request(i));
        // Another connection sees them within a few commit intervals, with the writer running.
        Store reader(db, Store::Mode::ReadOnly);
        for (int i = 0; i < 100 && reader.requestCount(run) < 100; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        QCOMPARE(reader.requestCount(run), std::int64_t(100));
        QCOMPARE(writer.committed(), std::int64_t(100));
        for (int i = 100; i < 250; ++i)
            writer.push(request(i));
        writer.stop();
        writer.stop(); // idempotent
        QCOMPARE(reader.requestCount(run), std::int64_t(250));
        QCOMPARE(writer.committed(), std::int64_t(250));
        QCOMPARE(writer.dropped(), std::int64_t(0));
        QVERIFY(!writer.error());
    }

    // `load` is the next writer too: a run whose process is gone (here: its writer row is
    // from another boot) is marked interrupted when a RequestWriter opens the workspace.
    void startingMarksRunsOfGoneWritersInterrupted() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("w.db").toStdString();
        const auto stale = newRun(db);
        {
            Store store(db, Store::Mode::ReadWrite);
            store.db().exec("INSERT INTO writer(id, boot_id, pid_ns, pid, start_ticks, started_ns) "
                            "VALUES (77, 'a-boot-before-the-last-reboot', '', 1, 1, 1)");
            store.db().exec("UPDATE run SET writer_id = 77 WHERE id = " + std::to_string(stale));
        }
        const auto run = newRun(db);
        RequestWriter writer(db, run, std::chrono::milliseconds(50));
        writer.stop();
        Store store(db, Store::Mode::ReadOnly);
        QCOMPARE(store.run(stale)->status, std::string("interrupted"));
        QCOMPARE(store.run(run)->status, std::string("running")); // its process is this one
        QCOMPARE(store.db().queryInt("SELECT count(*) FROM writer WHERE id = 77"), 0);
    }

    // A failed commit (here: the run row is gone, so the foreign key refuses) is reported, and
    // what follows is counted as dropped instead of queueing forever.
    void aFailedCommitIsReportedAndLaterRequestsCounted() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("w.db").toStdString();
        RequestWriter writer(db, 999'999, std::chrono::milliseconds(20));
        writer.push(request(1));
        for (int i = 0; i < 200 && !writer.error(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        QVERIFY(writer.error());
        writer.push(request(2));
        writer.stop();
        QCOMPARE(writer.committed(), std::int64_t(0));
        QCOMPARE(writer.dropped(), std::int64_t(2));
    }
};

QTEST_GUILESS_MAIN(TestRequestWriter)
#include "tst_requestwriter.moc"
