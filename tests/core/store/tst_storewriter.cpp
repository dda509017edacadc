#include "TestSupport.h"
#include "core/store/SessionRecorder.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <limits>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <thread>

using namespace tierscope;
using namespace std::chrono_literals;

class TestStoreWriter : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;
    std::string path(const char* name) const { return m_dir.path().toStdString() + "/" + name; }

    static std::int64_t newSession(const std::string& db) {
        Store store(db, Store::Mode::ReadWrite);
        return store.createSession({0, "w", "", "h", 1, std::nullopt, "", "", "0"});
    }

  private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void commitsOnItsOwnWithinAboutOneInterval() {
        const auto db = path("interval.db");
        const auto session = newSession(db);
        StoreWriter writer(db);
        const int h = writer.defineMetric(session, {"a/b", "1"});
        writer.append(h, 1000, 1.0);
        Store reader(db, Store::Mode::ReadOnly);
        // Visible to another connection without flush(): the 250 ms commit does it (a busy
        // machine may wake the writer late, so the wait is long; without periodic commits it
        // would never come).
        QTRY_VERIFY_WITH_TIMEOUT(reader.db().queryInt("SELECT count(*) FROM sample_recent") == 1,
                                 20000);
        // The writer counts a commit after SQLite has made it visible, so the counters may
        // trail the reader by a moment.
        QTRY_VERIFY_WITH_TIMEOUT(writer.stats().commits >= 1, 20000);
        QTRY_COMPARE_WITH_TIMEOUT(writer.stats().committedSamples, std::int64_t(1), 20000);
    }

    void manyProducersLoseNothing() {
        const auto db = path("producers.db");
        const auto session = newSession(db);
        StoreWriter::Options options;
        options.maxQueued = 10'000; // force producers through the backpressure path
        options.sealRows = 50'000;
        std::int64_t metricCount = 0;
        {
            StoreWriter writer(db, options);
            SessionRecorder recorder(writer, session);
            std::vector<std::thread> threads;
            for (int t = 0; t < 4; ++t) {
                threads.emplace_back([&, t] {
                    std::vector<Reading> readings;
                    for (int m = 0; m < 25; ++m)
                        readings.push_back(
                            {{"p" + std::to_string(t) + "/m" + std::to_string(m), "1"}, 0.0});
                    for (int i = 0; i < 1000; ++i) {
                        for (auto& r : readings)
                            r.value = i;
                        recorder.write(1'000'000'000LL + i, readings);
                    }
                });
            }
            for (auto& th : threads)
                th.join();
            metricCount = static_cast<std::int64_t>(recorder.metricCount());
            writer.stop();
            QCOMPARE(writer.stats().committedSamples, std::int64_t(100'000));
            QCOMPARE(writer.stats().droppedSamples, std::int64_t(0));
            QVERIFY(writer.stats().seals >= 2);
        }
        QCOMPARE(metricCount, std::int64_t(100));
        Store store(db, Store::Mode::ReadOnly);
        QCOMPARE(store.sampleCount(session), std::int64_t(100'000));
        for (const auto& m : store.metrics(session)) {
            const auto raw = store.readRaw(m.id, 0, 10'000'000'000LL);
            QCOMPARE(raw.size(), std::size_t(1000));
            QCOMPARE(raw.back().value, 999.0);
        }
    }

    void aProducerThatOutrunsTheWriterHandsTheQueueOver() {
        // The interval never comes: only the hand-over at commitRows commits, and a queue is
        // taken before a span would grow it past commitRows (1,000 here, 500 per append).
        const auto db = path("handover.db");
        const auto session = newSession(db);
        StoreWriter::Options options;
        options.commitInterval = std::chrono::hours(1);
        options.commitRows = 1000;
        StoreWriter writer(db, options);
        const int h = writer.defineMetric(session, {"burst", "1"});
        std::vector<StoreWriter::PendingSample> span(500);
        for (int i = 0; i < 20; ++i) {
            for (int k = 0; k < 500; ++k)
                span[static_cast<std::size_t>(k)] = {h, i * 500 + k, double(i * 500 + k)};
            writer.append(span);
        }
        QTRY_VERIFY_WITH_TIMEOUT(writer.stats().committedSamples == 9000, 20000);
        QCOMPARE(writer.stats().commits, std::int64_t(9));
        writer.stop();
        QCOMPARE(writer.stats().committedSamples, std::int64_t(10'000));
        Store store(db, Store::Mode::ReadOnly);
        const auto raw = store.readRaw(store.metrics(session).at(0).id, 0, 1'000'000);
        QCOMPARE(raw.size(), std::size_t(10'000)); // each sample once
        for (std::size_t i = 0; i < raw.size(); ++i)
            QCOMPARE(raw[i].value, double(i));
    }

    void flushReturnsOnlyWhenCommitted() {
        const auto db = path("flush.db");
        const auto session = newSession(db);
        StoreWriter writer(db);
        const int h = writer.defineMetric(session, {"x", "1"});
        for (int i = 0; i < 5000; ++i)
            writer.append(h, i, i);
        writer.flush();
        Store reader(db, Store::Mode::ReadOnly);
        QCOMPARE(reader.db().queryInt("SELECT sum(n) FROM sample_recent"), 5000);
        // One packed row per series per commit, not one row per sample.
        const auto rows = reader.db().queryInt("SELECT count(*) FROM sample_recent");
        QVERIFY(rows >= 1);
        QVERIFY2(rows <= writer.stats().commits, qPrintable(QString::number(rows)));
    }

    void nonFiniteValuesNeverReachARollup() {
        const auto db = path("nonfinite.db");
        const auto session = newSession(db);
        auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16);
        const auto previous = spdlog::default_logger();
        spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
        {
            StoreWriter writer(db);
            SessionRecorder recorder(writer, session);
            const double nan = std::numeric_limits<double>::quiet_NaN();
            const double inf = std::numeric_limits<double>::infinity();
            const std::pair<std::int64_t, double> values[] = {{1'000, 1.0},  {2'000, nan},
                                                              {3'000, 3.0},  {4'000, inf},
                                                              {5'000, -inf}, {6'000, 5.0}};
            for (const auto& [t, v] : values) {
                const Reading r{{"a/b", "1"}, v};
                recorder.write(t, std::span<const Reading>(&r, 1));
            }
            writer.stop(); // seals: chunks and rollups
            QCOMPARE(writer.stats().committedSamples, std::int64_t(3));
            QCOMPARE(writer.stats().nonFiniteSamples, std::int64_t(3));
            QCOMPARE(writer.stats().droppedSamples, std::int64_t(0));
        }
        spdlog::set_default_logger(previous);
        const auto logged = sink->last_formatted();
        QCOMPARE(logged.size(), std::size_t(1)); // once, not per value
        QVERIFY(logged[0].find("non-finite") != std::string::npos);
        QVERIFY(logged[0].find("a/b") != std::string::npos);

        Store store(db, Store::Mode::ReadOnly);
        const auto metricId = store.metrics(session).at(0).id;
        const auto raw = store.readRaw(metricId, 0, 10'000);
        QCOMPARE(raw.size(), std::size_t(3));
        const Bucket b = store.summarize(metricId);
        QCOMPARE(b.count, std::int64_t(3));
        QCOMPARE(b.min, 1.0);
        QCOMPARE(b.max, 5.0);
        QCOMPARE(b.sum, 9.0);
    }

    void stopIsIdempotentAndLaterSamplesAreCounted() {
        const auto db = path("stop.db");
        const auto session = newSession(db);
        StoreWriter writer(db);
        const int h = writer.defineMetric(session, {"x", "1"});
        writer.append(h, 1, 1.0);
        writer.stop();
        writer.stop();
        writer.append(h, 2, 2.0);
        QCOMPARE(writer.stats().committedSamples, std::int64_t(1));
        QCOMPARE(writer.stats().droppedSamples, std::int64_t(1));
        QVERIFY(!writer.error());
    }
};

QTEST_GUILESS_MAIN(TestStoreWriter)
#include "tst_storewriter.moc"
