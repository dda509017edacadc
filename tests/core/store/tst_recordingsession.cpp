#include "core/store/RecordingSession.h"

#include <QTemporaryDir>
#include <QtTest>
#include <mutex>

using namespace tierscope;

// The one recording session every live path uses: it creates the session, feeds the writer
// and the observer, and closes the session once, with the writer drained first.
class TestRecordingSession : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;
    int m_next = 0;

    std::string db() { return m_dir.filePath(QString("ws%1.db").arg(++m_next)).toStdString(); }

    struct Observer : SampleSink {
        std::mutex mutex;
        std::vector<double> values;
        void write(std::int64_t, std::span<const Reading> readings) override {
            std::lock_guard lock(mutex);
            for (const auto& r : readings)
                values.push_back(r.value);
        }
    };

    static SessionInfo info(const std::string& label) {
        SessionInfo i;
        i.label = label;
        i.host = "node-7";
        i.startNs = 1'000;
        i.tags = "test";
        return i;
    }

    static void write(RecordingSession& s, std::int64_t tNs, double value) {
        const Reading r{{"host/x/value", "1"}, value};
        s.sink().write(tNs, std::span<const Reading>(&r, 1));
    }

  private slots:
    void recordsIntoANewSessionAndTheObserver() {
        const auto path = db();
        Observer observer;
        std::int64_t id = 0;
        {
            RecordingSession session({path, {}, &observer}, info("first"));
            id = session.id();
            QVERIFY(id > 0);
            session.store().addEvent(id, 1'500, "record-start", "");
            write(session, 2'000, 1.5);
            write(session, 3'000, 2.5);
            QVERIFY(session.finish(4'000, "record-stop", "why"));
            QVERIFY(session.finished());
            QVERIFY(session.finish(9'000)); // idempotent: the first end stays
            QCOMPARE(session.stats().committedSamples, std::int64_t(2));
        }
        QCOMPARE(observer.values, (std::vector<double>{1.5, 2.5}));
        Store store(path, Store::Mode::ReadOnly);
        const auto s = store.session(id);
        QVERIFY(s);
        QCOMPARE(s->label, std::string("first"));
        QCOMPARE(s->host, std::string("node-7"));
        QCOMPARE(s->endNs.value_or(0), std::int64_t(4'000));
        QCOMPARE(store.eventText(id, "record-stop").value_or(""), std::string("why"));
        const auto metrics = store.metrics(id);
        QCOMPARE(metrics.size(), std::size_t(1));
        const auto samples = store.readRaw(metrics[0].id, 0, 10'000);
        QCOMPARE(samples.size(), std::size_t(2)); // the writer was drained before the end
    }

    void destructionFinishesAnUnfinishedSession() {
        const auto path = db();
        std::int64_t id = 0;
        {
            RecordingSession session({path, {}, nullptr}, info("dropped"));
            id = session.id();
            write(session, 2'000, 1.0);
        }
        Store store(path, Store::Mode::ReadOnly);
        QVERIFY(store.session(id)->endNs.has_value());
        QCOMPARE(store.readRaw(store.metrics(id).at(0).id, 0, 10'000).size(), std::size_t(1));
    }

    void anAbandonedSessionStaysOpenEndedWithItsSamples() {
        const auto path = db();
        std::int64_t id = 0;
        {
            RecordingSession session({path, {}, nullptr}, info("never started"));
            id = session.id();
            write(session, 2'000, 1.0);
            session.abandon();
            QVERIFY(session.finished());
        }
        Store store(path, Store::Mode::ReadOnly);
        QVERIFY(!store.session(id)->endNs.has_value()); // shown as interrupted
        QCOMPARE(store.readRaw(store.metrics(id).at(0).id, 0, 10'000).size(), std::size_t(1));
    }

    void anUnopenableWorkspaceThrows() {
        QVERIFY_THROWS_EXCEPTION(
            StoreError,
            RecordingSession({m_dir.filePath("no/such/dir/ws.db").toStdString(), {}, nullptr},
                             info("x")));
    }
};

QTEST_GUILESS_MAIN(TestRecordingSession)
#include "tst_recordingsession.moc"
