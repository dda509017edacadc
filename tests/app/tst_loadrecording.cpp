#include "SseTestServer.h"
#include "collectors/engine/EngineMetricsMapper.h"
#include "core/store/Store.h"
#include "simulator/EngineSimulator.h"

#include <QProcess>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

using namespace tierscope;

// `tierscope load` records this machine and the engine's /metrics into its own session, for
// the length of the load, beside its requests: run end to end against the simulator.
class TestLoadRecording : public QObject {
    Q_OBJECT
  private:
    struct Result {
        int code = -1;
        QByteArray out, err;
        nlohmann::json json; // the --out file
    };

    Result load(const QString& url, const QStringList& extra, int requests = 10) {
        QProcess p;
        p.start(TIERSCOPE_BINARY,
                QStringList{"--db", m_dir.filePath("w.db"), "load", "--url", url, "--model",
                            "tierscope-sim", "--concurrency", "2", "--requests",
                            QString::number(requests), "--output-len", "4", "--out",
                            m_dir.filePath("r.json")} +
                    extra);
        p.waitForFinished(180000);
        Result r{p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError(), nullptr};
        QFile file(m_dir.filePath("r.json"));
        if (file.open(QIODevice::ReadOnly))
            r.json = nlohmann::json::parse(file.readAll().toStdString(), nullptr, false);
        QFile::remove(m_dir.filePath("r.json"));
        return r;
    }

    static std::string endpoint(int port) {
        return EngineMetricsMapper::endpointIdFromUrl("http://127.0.0.1:" + std::to_string(port) +
                                                      "/metrics");
    }

    // The session's series whose path starts with `prefix`.
    static std::vector<MetricInfo> series(Store& store, std::int64_t session,
                                          const std::string& prefix) {
        std::vector<MetricInfo> out;
        for (auto& m : store.metrics(session))
            if (m.descriptor.path.starts_with(prefix))
                out.push_back(std::move(m));
        return out;
    }

    // The sum of a series' samples in [t0, t1] (each is an increase over one scrape interval).
    static double increase(Store& store, std::int64_t session, const std::string& path,
                           std::int64_t t0 = 0, std::int64_t t1 = INT64_MAX) {
        double total = 0;
        for (const auto& m : store.metrics(session))
            if (m.descriptor.path == path)
                for (const auto& s : store.readRaw(m.id, t0, t1))
                    total += s.value;
        return total;
    }

    QTemporaryDir m_dir;

  private slots:
    // The engine's series and this machine's in the load's session, the same one as its
    // requests; the engine's TTFT observations over the run are its requests, because the
    // run's span holds the scrape after its last request; and analyze reads the engine's
    // figures from it.
    void recordsTheMachineAndTheEngineInTheLoadSession() {
        EngineSimulator::Options options;
        options.decodeTokensPerS = 1000;
        EngineSimulator sim(options);
        const int port = sim.start();
        const auto r = load(QString("http://127.0.0.1:%1").arg(port), {"--interval", "250ms"});
        QVERIFY2(r.code == 0, r.err.constData());
        QVERIFY2(r.json.is_object(), r.out.constData());
        const auto session = r.json["session_id"].get<std::int64_t>();
        Store store(m_dir.filePath("w.db").toStdString(), Store::Mode::ReadOnly);
        const auto runs = store.runsOfSession(session);
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].id, r.json["run_id"].get<std::int64_t>());
        QCOMPARE(store.requestCount(runs[0].id), std::int64_t(10));
        const auto info = store.session(session);
        QVERIFY(info && info->endNs);
        QCOMPARE(info->tags, std::string("load"));

        const std::string engine = "engine/" + endpoint(port) + "/";
        const auto engineSeries = series(store, session, engine);
        const auto hostSeries = series(store, session, "host/");
        qInfo("%zu series in the session of a 10-request load: %zu of the engine, %zu host/",
              store.metrics(session).size(), engineSeries.size(), hostSeries.size());
        QVERIFY2(hostSeries.size() > 0, r.out.constData());
        QVERIFY2(engineSeries.size() > 5, r.out.constData());
        QCOMPARE(increase(store, session, engine + "ttft_count"), 10.0);
        QCOMPARE(increase(store, session, engine + "ttft_count", runs[0].startNs, *runs[0].endNs),
                 10.0);
        QVERIFY2(r.out.contains("series of this machine and 1 engine /metrics endpoint"),
                 r.out.constData());
        QVERIFY2(!r.err.contains("does not answer"), r.err.constData());

        QProcess analyze;
        analyze.start(TIERSCOPE_BINARY, {"--db", m_dir.filePath("w.db"), "analyze", "--session",
                                         QString::number(session), "--format", "json"});
        QVERIFY(analyze.waitForFinished(60000));
        QCOMPARE(analyze.exitCode(), 0);
        const auto a = nlohmann::json::parse(analyze.readAllStandardOutput().toStdString());
        QCOMPARE(a["ttft_breakdown"]["requests"].get<double>(), 10.0);
        QVERIFY(a["ttft_breakdown"]["prefill_mean_s"].is_number());
        QVERIFY(a["engine_roles"].contains(endpoint(port)));
        QVERIFY2(a.dump().find("no engine data") == std::string::npos, a.dump().c_str());
    }

    // cold-recovery: the populate phase is recorded too, and each phase's span holds its own
    // observations: the documents' in the populate run, the questions' in the measured one.
    void eachPhaseHoldsItsOwnObservations() {
        QTemporaryDir kv(QDir::currentPath() + "/kv-XXXXXX");
        EngineSimulator::Options options;
        options.kvDir = kv.path().toStdString();
        options.kvBytesPerToken = 1024;
        options.decodeTokensPerS = 1000;
        EngineSimulator sim(options);
        const int port = sim.start();
        const auto r =
            load(QString("http://127.0.0.1:%1").arg(port),
                 {"--interval", "200ms", "--dataset", "cold-recovery", "--documents", "3",
                  "--document-tokens", "600", "--questions", "2", "--reset-prefix-cache"},
                 6);
        QVERIFY2(r.code == 0, r.err.constData());
        const auto session = r.json["session_id"].get<std::int64_t>();
        Store store(m_dir.filePath("w.db").toStdString(), Store::Mode::ReadOnly);
        const auto runs = store.runsOfSession(session);
        QCOMPARE(runs.size(), std::size_t(2));
        QCOMPARE(runs[0].status, std::string("populate"));
        const std::string ttft = "engine/" + endpoint(port) + "/ttft_count";
        QCOMPARE(increase(store, session, ttft, runs[0].startNs, *runs[0].endNs), 3.0);
        QCOMPARE(increase(store, session, ttft, runs[1].startNs, *runs[1].endNs), 6.0);
        QCOMPARE(increase(store, session, ttft), 9.0);
    }

    // --no-record: the session holds the requests and nothing else, as before.
    void noRecordStoresNoSeries() {
        EngineSimulator sim({});
        const auto r = load(QString("http://127.0.0.1:%1").arg(sim.start()), {"--no-record"}, 4);
        QVERIFY2(r.code == 0, r.err.constData());
        const auto session = r.json["session_id"].get<std::int64_t>();
        Store store(m_dir.filePath("w.db").toStdString(), Store::Mode::ReadOnly);
        QCOMPARE(store.metrics(session).size(), std::size_t(0));
        QCOMPARE(store.requestCount(r.json["run_id"].get<std::int64_t>()), std::int64_t(4));
        QVERIFY(store.session(session)->endNs);
        QVERIFY(!r.out.contains("series of this machine"));
    }

    // --no-engine-metrics: this machine, no engine.
    void noEngineMetricsRecordsTheMachineOnly() {
        EngineSimulator sim({});
        const auto r = load(QString("http://127.0.0.1:%1").arg(sim.start()),
                            {"--no-engine-metrics", "--interval", "200ms"}, 4);
        QVERIFY2(r.code == 0, r.err.constData());
        const auto session = r.json["session_id"].get<std::int64_t>();
        Store store(m_dir.filePath("w.db").toStdString(), Store::Mode::ReadOnly);
        QVERIFY(series(store, session, "host/").size() > 0);
        QCOMPARE(series(store, session, "engine/").size(), std::size_t(0));
    }

    // --metrics-url adds an endpoint: here the LMCache server's own /metrics beside the
    // engine's.
    void metricsUrlAddsAnEndpoint() {
        QTemporaryDir kv(QDir::currentPath() + "/kv-XXXXXX");
        EngineSimulator::Options options;
        options.kvDir = kv.path().toStdString();
        options.kvConnector = "lmcache-mp";
        EngineSimulator sim(options);
        const int port = sim.start();
        const int mp = sim.lmcacheMpPort();
        QVERIFY(mp > 0);
        const auto r = load(QString("http://127.0.0.1:%1").arg(port),
                            {"--metrics-url", QString("http://127.0.0.1:%1/metrics").arg(mp),
                             "--interval", "200ms"},
                            4);
        QVERIFY2(r.code == 0, r.err.constData());
        const auto session = r.json["session_id"].get<std::int64_t>();
        Store store(m_dir.filePath("w.db").toStdString(), Store::Mode::ReadOnly);
        QVERIFY(series(store, session, "engine/" + endpoint(port) + "/").size() > 0);
        // Its scrapes answered, and it served more than the scrape's own series.
        const std::string lmcache = "engine/" + endpoint(mp) + "/";
        const auto mpSeries = series(store, session, lmcache);
        QVERIFY2(mpSeries.size() > 3, std::to_string(mpSeries.size()).c_str());
        for (const auto& m : mpSeries)
            if (m.descriptor.path == lmcache + "scrape_ok")
                for (const auto& s : store.readRaw(m.id, 0, INT64_MAX))
                    QCOMPARE(s.value, 1.0);
        QVERIFY2(r.out.contains("and 2 engine /metrics endpoints"), r.out.constData());
    }

    // An engine whose /metrics answers 404: the load completes, says so once on stderr, and
    // the session holds the machine and no engine figure (its scrapes are recorded as failed).
    void anEngineWithoutMetricsStillCompletesTheLoad() {
        test::SseTestServer server([](const std::string&) {
            test::SseTestServer::Reply reply;
            reply.events = {{0, test::SseTestServer::textChunk("hi")},
                            {0, test::SseTestServer::usageChunk(3, 1)},
                            {0, test::SseTestServer::done()}};
            return reply;
        });
        const auto r = load(QString::fromStdString(server.url()), {"--interval", "200ms"}, 4);
        QVERIFY2(r.code == 0, r.err.constData());
        QCOMPARE(server.requests(), 4); // the scrapes are not completions
        const QByteArray said = "does not answer (HTTP 404)";
        QVERIFY2(r.err.count(said) == 1, r.err.constData());
        QVERIFY(r.err.contains(QByteArray::fromStdString(server.url() + "/metrics")));
        const auto session = r.json["session_id"].get<std::int64_t>();
        Store store(m_dir.filePath("w.db").toStdString(), Store::Mode::ReadOnly);
        QVERIFY(series(store, session, "host/").size() > 0);
        const std::string engine = "engine/" + endpoint(server.port()) + "/";
        for (const auto& m : series(store, session, "engine/")) {
            const auto& path = m.descriptor.path;
            QVERIFY2(path == engine + "scrape_ok" || path == engine + "scrape_duration_s",
                     path.c_str());
            if (path == engine + "scrape_ok") {
                const auto samples = store.readRaw(m.id, 0, INT64_MAX);
                QVERIFY(!samples.empty());
                for (const auto& s : samples)
                    QCOMPARE(s.value, 0.0);
            }
        }
    }

    // The recording's options are checked before anything is written.
    void usageErrors() {
        QTemporaryDir dir;
        auto run = [&](const QStringList& extra) {
            QProcess p;
            p.start(TIERSCOPE_BINARY,
                    QStringList{"--db", dir.filePath("u.db"), "load", "--url", "http://127.0.0.1:1",
                                "--model", "m", "--concurrency", "1", "--requests", "1"} +
                        extra);
            p.waitForFinished(60000);
            return std::pair{p.exitCode(), p.readAllStandardError()};
        };
        const auto file = run({"--metrics-url", "file:///etc/passwd"});
        QCOMPARE(file.first, 2);
        QVERIFY2(file.second.contains("--metrics-url must be an http:// or https:// URL"),
                 file.second.constData());
        const auto fast = run({"--interval", "10ms"});
        QCOMPARE(fast.first, 2);
        QVERIFY2(fast.second.contains("--interval must be between 100ms and 10s"),
                 fast.second.constData());
        QCOMPARE(run({"--no-record", "--metrics-url", "http://127.0.0.1:1/metrics"}).first, 2);
        QVERIFY(!QFile::exists(dir.filePath("u.db")));
    }
};

QTEST_GUILESS_MAIN(TestLoadRecording)
#include "tst_loadrecording.moc"
