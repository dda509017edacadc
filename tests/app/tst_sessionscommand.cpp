#include "app/commands/SessionsCommand.h"
#include "core/store/RecordingSession.h"
#include "core/store/SessionState.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "core/util/WallClock.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

using namespace tierscope;

// `tierscope sessions` says "recording" while the process that opened a session runs, even
// when no sample arrived lately (the GUI's recording idles, a feed retries), and "interrupted"
// once that process is gone without closing it.
class TestSessionsCommand : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;
    int m_next = 0;

    std::string db() { return m_dir.filePath(QString("ws%1.db").arg(++m_next)).toStdString(); }

    static std::string state(const std::string& path, std::int64_t id) {
        Store store(path, Store::Mode::ReadOnly);
        const auto info = store.session(id);
        return info ? SessionState::of(store, *info, store.metrics(id), WallClock::systemNowNs())
                    : "missing";
    }

    static SessionInfo open(const std::string& label) {
        SessionInfo info;
        info.label = label;
        info.startNs = WallClock::systemNowNs();
        return info;
    }

  private slots:
    // What the GUI does: a recording session, its writer idle. Before, with no sample in the
    // last 15 s, it read "interrupted".
    void anIdleRecordingOfThisProcessIsRecording() {
        const auto path = db();
        RecordingSession session({path, {}, nullptr}, open("live"));
        QCOMPARE(state(path, session.id()), std::string("recording"));
        QVERIFY(session.finish(WallClock::systemNowNs()));
        QCOMPARE(state(path, session.id()), std::string("finished"));
    }

    // Its connection closed without an end (a full disk at finish): nobody records it.
    void anAbandonedSessionIsInterrupted() {
        const auto path = db();
        std::int64_t id = 0;
        {
            RecordingSession session({path, {}, nullptr}, open("gave up"));
            id = session.id();
            session.abandon();
        }
        QCOMPARE(state(path, id), std::string("interrupted"));
    }

    // Another process records: "recording" while it runs (also through the CLI), and
    // "interrupted" at once after a SIGKILL, without waiting for its samples to age.
    void anotherProcessRecordsUntilKilled() {
        const auto path = db();
        QProcess child;
        child.start(CRASH_WRITER, {QString::fromStdString(path), "0", "10"}); // no metrics: idle
        QVERIFY(child.waitForStarted());
        QVERIFY(child.waitForReadyRead(10000));
        const auto id = child.readLine().trimmed().split(' ').value(1).toLongLong();
        QVERIFY(id > 0);
        QCOMPARE(state(path, id), std::string("recording"));

        QProcess cli;
        cli.start(TIERSCOPE_BINARY, {"--db", QString::fromStdString(path), "sessions", "--json"});
        QVERIFY(cli.waitForFinished(60000));
        QCOMPARE(cli.exitCode(), 0);
        const auto rows = QJsonDocument::fromJson(cli.readAllStandardOutput()).array();
        QCOMPARE(rows.size(), 1);
        QCOMPARE(rows[0].toObject()["state"].toString(), QString("recording"));

        ::kill(static_cast<pid_t>(child.processId()), SIGKILL);
        QVERIFY(child.waitForFinished(5000)); // reaped: its pid no longer names it
        QCOMPARE(state(path, id), std::string("interrupted"));
        StoreWriter(path).stop(); // the next writer forgets the gone one, and its claim
        QCOMPARE(state(path, id), std::string("interrupted"));
    }
};

QTEST_GUILESS_MAIN(TestSessionsCommand)
#include "tst_sessionscommand.moc"
