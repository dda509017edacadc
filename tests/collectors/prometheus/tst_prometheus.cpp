#include "FaultServer.h"
#include "TestSupport.h"
#include "agent/AgentExposition.h"
#include "collectors/prometheus/PrometheusApi.h"
#include "collectors/prometheus/PrometheusImport.h"
#include "collectors/prometheus/PrometheusTemplate.h"
#include "core/store/Store.h"
#include "core/util/TimeSpec.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <cstring>
#include <curl/curl.h>
#include <fcntl.h>
#include <memory>
#include <thread>
#include <unistd.h>

using namespace tierscope;

namespace {

std::size_t collect(char* data, std::size_t size, std::size_t n, void* out) {
    static_cast<std::string*>(out)->append(data, size * n);
    return size * n;
}

std::string httpGet(const std::string& url) {
    std::string body;
    CURL* curl = curl_easy_init();
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 5000L);
    const bool ok = curl_easy_perform(curl) == CURLE_OK;
    curl_easy_cleanup(curl);
    return ok ? body : std::string();
}

// A server process on loopback, stopped with the test.
struct Server {
    std::unique_ptr<QProcess> process = std::make_unique<QProcess>();
    ~Server() {
        if (process->state() != QProcess::NotRunning) {
            process->terminate();
            if (!process->waitForFinished(5000))
                process->kill();
            process->waitForFinished(5000);
        }
    }
};

// Mean of a session's series over [t0, t1] (unix seconds), or NaN when nothing is there.
double meanOf(Store& store, std::int64_t session, const std::string& path, double t0, double t1) {
    for (const auto& m : store.metrics(session))
        if (m.descriptor.path == path) {
            double sum = 0;
            int n = 0;
            for (const auto& s : store.readRaw(m.id, static_cast<std::int64_t>(t0 * 1e9),
                                               static_cast<std::int64_t>(t1 * 1e9))) {
                sum += s.value;
                ++n;
            }
            return n ? sum / n : NAN;
        }
    return NAN;
}

double now() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// A directory whose filesystem takes O_DIRECT: the build tree's (a real disk), else /tmp's.
QString directIoDir() {
    for (const QString& dir : {QDir::currentPath(), QDir::tempPath()}) {
        const std::string probe = (dir + "/.tierscope-odirect-probe").toStdString();
        const int fd = ::open(probe.c_str(), O_RDWR | O_CREAT | O_DIRECT, 0600);
        if (fd >= 0) {
            ::close(fd);
            ::unlink(probe.c_str());
            return dir;
        }
    }
    return QDir::tempPath();
}

} // namespace

class TestPrometheus : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_prometheus, m_promtool, m_nodeExporter;

    bool start(Server& s, const QString& program, const QStringList& args, const QString& log) {
        s.process->setProcessChannelMode(QProcess::MergedChannels);
        s.process->setStandardOutputFile(m_dir.filePath(log));
        s.process->start(program, args);
        return s.process->waitForStarted(10000);
    }

    bool waitForHttp(const std::string& url, int ms = 20000) {
        for (int waited = 0; waited < ms; waited += 100) {
            if (!httpGet(url).empty())
                return true;
            QTest::qWait(100);
        }
        return false;
    }

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        // .ci/run and scripts/install-deps.sh install these from Debian.
        m_prometheus = QStandardPaths::findExecutable("prometheus");
        m_promtool = QStandardPaths::findExecutable("promtool");
        m_nodeExporter = QStandardPaths::findExecutable("prometheus-node-exporter");
        QVERIFY2(!m_prometheus.isEmpty() && !m_promtool.isEmpty() && !m_nodeExporter.isEmpty(),
                 "install prometheus and prometheus-node-exporter (scripts/install-deps.sh)");
    }

    void parsesApiAnswers() {
        const auto range = PrometheusApi::parse(test::fixture("prometheus/query_range-2.42.0.txt"));
        QVERIFY(range.error.empty());
        QCOMPARE(range.series.size(), std::size_t(1));
        QCOMPARE(range.series[0].labels.at("device"), std::string("vda"));
        QCOMPARE(range.series[0].points.size(), std::size_t(5));
        QCOMPARE(range.series[0].points[1].first, 1796038210.0);
        QCOMPARE(range.series[0].points[1].second, 130048.0);
        const auto error = PrometheusApi::parse(test::fixture("prometheus/query_error-2.42.0.txt"));
        QVERIFY(error.error.find("bad_data: invalid parameter") == 0);
        const auto vector =
            PrometheusApi::parse(test::fixture("prometheus/query_vector-2.42.0.txt"));
        QVERIFY(vector.error.empty());
        QCOMPARE(vector.series.size(), std::size_t(3));
        QCOMPARE(vector.series[0].points.size(), std::size_t(1));
        QVERIFY(!PrometheusApi::parse("<html>").error.empty());
        // Found by the fuzzer: a status that is not a string threw from json::value().
        QCOMPARE(
            PrometheusApi::parse(test::fixture("prometheus/crash-status-not-a-string.txt")).error,
            std::string("error: unknown error"));
        QVERIFY(PrometheusApi::parse(R"({"status":"success","data":{"resultType":7,"result":[]}})")
                    .series.empty());
        // NaN is no value: absent, never zero.
        const auto nan = PrometheusApi::parse(
            R"({"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1,"NaN"]}]}})");
        QCOMPARE(nan.series.at(0).points.size(), std::size_t(0));
        QCOMPARE(PrometheusApi::urlEncode("rate(x{a=~\"b\"}[5s])"),
                 std::string("rate%28x%7Ba%3D~%22b%22%7D%5B5s%5D%29"));
    }

    void templatesAndTimes() {
        const auto& builtin = PrometheusTemplate::builtin();
        QVERIFY(builtin.size() >= 15);
        std::set<std::string> exporters;
        for (const auto& t : builtin)
            exporters.insert(t.exporter);
        for (const char* e : {"tierscope-agent", "node_exporter", "amd-device-metrics-exporter",
                              "dcgm-exporter", "vllm", "lmcache"})
            QVERIFY2(exporters.count(e), e);
        PrometheusTemplate t{"x", "rate(a{instance=~\"{nodes}\"}[{window}])",
                             "block/{device}@{instance}/read_bytes_per_s", "bytes/s", 1};
        QCOMPARE(t.expandQuery("gpu[0-9]+\"", "8s"),
                 std::string("rate(a{instance=~\"gpu[0-9]+\\\"\"}[8s])"));
        QCOMPARE(*t.expandPath({{"device", "nvme0n1"}, {"instance", "n1:9100"}}),
                 std::string("block/nvme0n1@n1:9100/read_bytes_per_s"));
        QVERIFY(!t.expandPath({{"instance", "n1:9100"}})); // no device: skipped
        QCOMPARE(*t.expandPath({{"device", "mapper/a"}, {"instance", "n"}}),
                 std::string("block/mapper_a@n/read_bytes_per_s"));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                                 PrometheusTemplate::parse("[[template]]\nquery = \"up\"\n"));
        const auto merged = PrometheusTemplate::merged(
            PrometheusTemplate::parse("[[template]]\nexporter = \"vllm\"\nquery = \"q\"\npath = "
                                      "\"engine/{instance}/ttft_p50_s\"\nunit = \"s\"\n"));
        QCOMPARE(merged.size(), builtin.size()); // replaced, not added
        QCOMPARE(PrometheusImport::window(1), std::string("5s"));
        QCOMPARE(PrometheusImport::window(15), std::string("60s"));

        QCOMPARE(*TimeSpec::parse("now", 1000), 1000.0);
        QCOMPARE(*TimeSpec::parse("-15m", 1000), 100.0);
        QCOMPARE(*TimeSpec::parse("1764500000.5", 0), 1764500000.5);
        QCOMPARE(*TimeSpec::parse("2026-11-30T11:00:00Z", 0), 1796036400.0);
        QCOMPARE(*TimeSpec::parse("2026-11-30T11:00:00.25Z", 0), 1796036400.25);
        QVERIFY(!TimeSpec::parse("yesterday", 0));
        QVERIFY(!TimeSpec::parse("2026-11-30T11:00:00+01:00", 0));
    }

    void exposition() {
        AgentSnapshot s;
        DiskStat d;
        d.name = "nvme1n1";
        d.sectorsRead = 10;
        d.sectorsWritten = 2;
        d.ioMs = 1500;
        s.disks = {d};
        s.transports = {{"nvme1n1", "rdma"}};
        s.nqns = {{"nvme1n1", "nqn.2014-08.org:fx\"100"}};
        s.gpu = {
            {{"gpu/0/busy_pct", "percent", "gauge", R"({"model":"MI300X","vendor":"amd"})"}, 87.5}};
        s.host = {{{"host/mem/dirty_bytes", "bytes", "gauge", "{}"}, 4096}};
        s.version = "t";
        const std::string text = AgentExposition::render(s);
        QVERIFY(text.find("# TYPE tierscope_block_read_bytes_total counter\n") !=
                std::string::npos);
        QVERIFY(
            text.find("tierscope_block_read_bytes_total{device=\"nvme1n1\",transport=\"rdma\",nqn="
                      "\"nqn.2014-08.org:fx\\\"100\"} 5120\n") != std::string::npos);
        QVERIFY(text.find("tierscope_block_io_time_seconds_total{") != std::string::npos);
        QVERIFY(text.find("tierscope_gpu_busy_ratio{gpu=\"0\",model=\"MI300X\",vendor=\"amd\"} "
                          "0.875\n") != std::string::npos);
        QVERIFY(text.find("tierscope_host_memory_bytes{kind=\"dirty\"} 4096\n") !=
                std::string::npos);
        QVERIFY(text.find("tierscope_gpu_vram_used_bytes") == std::string::npos); // not measured
    }

    void agentOutputPassesPromtool() {
        const int port = test::freePort();
        Server agent;
        QVERIFY(start(agent, TIERSCOPE_BINARY,
                      {"agent", "--listen", QString("127.0.0.1:%1").arg(port)}, "agent.log"));
        const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/metrics";
        QVERIFY(waitForHttp(url));
        // One sampling interval and the host gauges are there, however late on a busy machine.
        std::string text;
        QTRY_VERIFY_WITH_TIMEOUT((text = httpGet(url)).find("tierscope_host_cpu_busy_ratio ") !=
                                     std::string::npos,
                                 30000);
        QVERIFY(text.find("# TYPE tierscope_block_read_bytes_total counter") != std::string::npos);
        QVERIFY(text.find("tierscope_host_cpu_busy_ratio ") != std::string::npos);
        QProcess check;
        check.start(m_promtool, {"check", "metrics"});
        QVERIFY(check.waitForStarted());
        check.write(QByteArray::fromStdString(text));
        check.closeWriteChannel();
        QVERIFY(check.waitForFinished(30000));
        QVERIFY2(check.exitCode() == 0, check.readAll().constData());

        // Anything but loopback must be asked for, and is warned about.
        QProcess open;
        open.start(TIERSCOPE_BINARY, {"agent", "--listen", "0.0.0.0:0"});
        QVERIFY(open.waitForStarted());
        QByteArray warning;
        QTRY_VERIFY_WITH_TIMEOUT(
            (warning += open.readAllStandardError()).contains("reachable from the network"), 10000);
        open.terminate();
        QVERIFY(open.waitForFinished(10000));
    }

    // node_exporter, the agent and the engine simulator, scraped every second by a real
    // Prometheus while a disk reader, a disk writer and a load run; the same window recorded
    // directly. Imported through Prometheus, disk bandwidth and TTFT agree within 10 %.
    void importAgreesWithDirectCollection() {
        const int nodePort = test::freePort(), agentPort = test::freePort(),
                  simPort = test::freePort(), promPort = test::freePort();
        Server node, agent, sim, prometheus;
        QVERIFY(start(node, m_nodeExporter,
                      {QString("--web.listen-address=127.0.0.1:%1").arg(nodePort),
                       "--collector.disable-defaults", "--collector.diskstats"},
                      "node.log"));
        QVERIFY(start(agent, TIERSCOPE_BINARY,
                      {"agent", "--listen", QString("127.0.0.1:%1").arg(agentPort)}, "agent2.log"));
        QVERIFY(start(sim, TIERSCOPE_BINARY, {"sim-engine", "--port", QString::number(simPort)},
                      "sim.log"));
        const QString config = QString(R"(global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: node
    static_configs: [{targets: ["127.0.0.1:%1"]}]
  - job_name: agent
    static_configs: [{targets: ["127.0.0.1:%2"]}]
  - job_name: engine
    static_configs: [{targets: ["127.0.0.1:%3"]}]
)")
                                   .arg(nodePort)
                                   .arg(agentPort)
                                   .arg(simPort);
        test::writeFile(m_dir.filePath("prom.yml"), config.toUtf8());
        QVERIFY(start(prometheus, m_prometheus,
                      {"--config.file=" + m_dir.filePath("prom.yml"),
                       QString("--web.listen-address=127.0.0.1:%1").arg(promPort),
                       "--storage.tsdb.path=" + m_dir.filePath("tsdb")},
                      "prometheus.log"));
        const std::string promUrl = "http://127.0.0.1:" + std::to_string(promPort);
        // Wait until all three targets are scraped.
        PrometheusApi api(promUrl);
        QTRY_VERIFY_WITH_TIMEOUT(api.query("count(up == 1)").series.size() == 1 &&
                                     api.query("count(up == 1)").series[0].points.size() == 1 &&
                                     api.query("count(up == 1)").series[0].points[0].second == 3,
                                 30000);

        const QString direct = m_dir.filePath("direct.db");
        QProcess record;
        record.start(TIERSCOPE_BINARY,
                     {"--db", direct, "record", "--duration", "26s", "-q", "--engine",
                      QString("http://127.0.0.1:%1/metrics").arg(simPort)});
        QVERIFY(record.waitForStarted());
        const double t0 = now();
        // Steady traffic for the whole window: O_DIRECT reads and writes on a real disk: the
        // build tree's, or /tmp's where the build tree's filesystem refuses O_DIRECT.
        QTemporaryDir scratch(directIoDir() + "/tierscope-traffic-XXXXXX");
        const std::string file = scratch.filePath("traffic.bin").toStdString();
        std::atomic<bool> stop{false};
        std::thread disk([&] {
            void* aligned = nullptr;
            if (posix_memalign(&aligned, 4096, 1 << 20) != 0)
                return;
            std::memset(aligned, 7, 1 << 20);
            const int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_DIRECT, 0600);
            for (long i = 0; fd >= 0 && !stop; ++i) {
                const off_t at = (i % 64) * (1 << 20);
                const bool write = i < 64 || i % 4 == 0; // the file's 64 MiB first
                const ssize_t n =
                    write ? ::pwrite(fd, aligned, 1 << 20, at) : ::pread(fd, aligned, 1 << 20, at);
                if (n < 0)
                    break;
                std::this_thread::sleep_for(std::chrono::milliseconds(4)); // steady, not flat out
            }
            if (fd >= 0)
                ::close(fd);
            std::free(aligned);
        });
        QProcess load;
        load.start(TIERSCOPE_BINARY, {"--db", m_dir.filePath("load.db"), "load", "--url",
                                      QString("http://127.0.0.1:%1").arg(simPort), "--model",
                                      "tierscope-sim", "--concurrency", "6", "--duration", "24s"});
        QVERIFY(load.waitForFinished(60000));
        QVERIFY(record.waitForFinished(60000));
        stop = true;
        disk.join();
        const double t1 = now();
        QCOMPARE(record.exitCode(), 0);
        QTest::qWait(2500); // the last scrapes land in Prometheus

        const QString imported = m_dir.filePath("imported.db");
        QProcess import;
        import.start(TIERSCOPE_BINARY,
                     {"--db", imported, "import", "prometheus", "--url",
                      QString::fromStdString(promUrl), "--start", QString::number(t0, 'f', 3),
                      "--end", QString::number(t1, 'f', 3), "--step", "1s"});
        QVERIFY(import.waitForFinished(60000));
        const QByteArray err = import.readAllStandardError();
        QVERIFY2(import.exitCode() == 0, err.constData());
        QVERIFY2(err.contains("from 3 node(s)"),
                 qPrintable(QString("%1(node_exporter :%2, agent :%3, sim-engine :%4)")
                                .arg(QString::fromUtf8(err))
                                .arg(nodePort)
                                .arg(agentPort)
                                .arg(simPort)));

        Store d(direct.toStdString(), Store::Mode::ReadOnly);
        Store p(imported.toStdString(), Store::Mode::ReadOnly);
        // The middle of the window: the rate window (5 s) needs its first seconds.
        const double a = t0 + 8, b = t1 - 3;
        std::string device;
        for (const auto& m : d.metrics(1))
            if (m.descriptor.path.rfind("block/", 0) == 0 &&
                m.descriptor.path.find("/read_bytes_per_s") != std::string::npos &&
                m.descriptor.path != "block/total/read_bytes_per_s" &&
                meanOf(d, 1, m.descriptor.path, a, b) > 1e6)
                device = m.descriptor.path.substr(6, m.descriptor.path.find('/', 6) - 6);
        QVERIFY2(!device.empty(), "no block device carried the traffic");
        const std::string nodeName = "127.0.0.1:" + std::to_string(nodePort);
        const std::string agentName = "127.0.0.1:" + std::to_string(agentPort);
        const std::string simName = "127.0.0.1:" + std::to_string(simPort);
        // The two readings sample the same counters at different moments and over different
        // windows (Prometheus' 5 s rate against the recorder's own interval), so a busy machine
        // moves them apart by several per cent. What this guards against is a definition that
        // differs (sectors of 4096 bytes, a multipath disk counted twice, another unit): a
        // factor of 2 or more.
        constexpr double kAgreement = 0.25;
        for (const char* what : {"read_bytes_per_s", "write_bytes_per_s"}) {
            // An imported value at t is the rate over [t - 5 s, t]: its mean over [a, b] is
            // centred 2.5 s earlier, and writes are bursty enough (journal commits) for the
            // shift to matter.
            const double direct = meanOf(d, 1, "block/" + device + "/" + what, a - 2.5, b - 2.5);
            for (const auto& source : {nodeName, agentName}) {
                const double viaProm =
                    meanOf(p, 1, "block/" + device + "@" + source + "/" + what, a, b);
                const QString detail = QString("%1 %2: direct %3, via Prometheus %4")
                                           .arg(QString::fromStdString(source), what)
                                           .arg(direct)
                                           .arg(viaProm);
                qInfo("%s", qPrintable(detail));
                QVERIFY2(std::abs(viaProm - direct) <= kAgreement * direct, qPrintable(detail));
            }
        }
        // node_exporter's IOPS, as iostat counts them, agree too; its byte rates carry
        // node_disk_info's labels.
        {
            const double direct = meanOf(d, 1, "block/" + device + "/read_iops", a - 2.5, b - 2.5);
            const double viaProm =
                meanOf(p, 1, "block/" + device + "@" + nodeName + "/read_iops", a, b);
            const QString detail =
                QString("read_iops: direct %1, via Prometheus %2").arg(direct).arg(viaProm);
            qInfo("%s", qPrintable(detail));
            QVERIFY2(direct > 0 && std::abs(viaProm - direct) <= kAgreement * direct,
                     qPrintable(detail));
            bool labelled = false;
            for (const auto& m : p.metrics(1))
                if (m.descriptor.path == "block/" + device + "@" + nodeName + "/read_bytes_per_s")
                    labelled = m.descriptor.labels.find("\"major\"") != std::string::npos;
            QVERIFY2(labelled, "node_disk_info's labels are missing");
        }
        // A p99 over a window of a few dozen requests is its slowest one or two: on a busy
        // machine (a full parallel suite) one late request moved it by 41 % between the two
        // windows. A wrong definition (seconds for milliseconds, another quantile) is a factor
        // of 2 or more still.
        for (const auto& [q, agreement] :
             {std::pair{"ttft_p50_s", kAgreement}, std::pair{"ttft_p99_s", 0.5}}) {
            const double direct = meanOf(
                d, 1, "engine/127.0.0.1:" + std::to_string(simPort) + "/" + std::string(q), a, b);
            const double viaProm = meanOf(p, 1, "engine/" + simName + "/" + std::string(q), a, b);
            const QString detail =
                QString("%1: direct %2, via Prometheus %3").arg(q).arg(direct).arg(viaProm);
            qInfo("%s", qPrintable(detail));
            QVERIFY2(direct > 0 && std::abs(viaProm - direct) <= agreement * direct,
                     qPrintable(detail));
        }

        // A query that fails is reported; the other series are kept.
        test::writeFile(m_dir.filePath("broken.toml"),
                        "[[template]]\nexporter = \"x\"\nquery = \"rate(up[\"\npath = "
                        "\"x/{instance}/y\"\nunit = \"1\"\n");
        import.start(TIERSCOPE_BINARY,
                     {"--db", m_dir.filePath("partial.db"), "import", "prometheus", "--url",
                      QString::fromStdString(promUrl), "--start", QString::number(t0, 'f', 3),
                      "--end", QString::number(t1, 'f', 3), "--templates",
                      m_dir.filePath("broken.toml")});
        QVERIFY(import.waitForFinished(60000));
        const QByteArray partial = import.readAllStandardError();
        QCOMPARE(import.exitCode(), 0);
        QVERIFY2(
            partial.contains("query failed, kept the rest: x x/{instance}/y: HTTP 400, bad_data"),
            partial.constData());

        // More points than Prometheus allows in one query: split, all kept.
        const double end = now();
        const auto many = api.queryRange("vector(1)", end - 6000, end, 0.5);
        QVERIFY2(many.error.empty(), many.error.c_str());
        QCOMPARE(many.series.size(), std::size_t(1));
        QCOMPARE(many.series[0].points.size(), std::size_t(12001));
    }

    void errorsAreClear() {
        test::writeFile(m_dir.filePath("one.toml"),
                        "[[template]]\nexporter = \"vllm\"\nquery = \"up\"\npath = "
                        "\"engine/{instance}/ttft_p50_s\"\nunit = \"s\"\n");
        const int port = test::freePort(); // nobody listens
        QProcess p;
        p.start(TIERSCOPE_BINARY, {"--db", m_dir.filePath("e.db"), "import", "prometheus", "--url",
                                   QString("http://127.0.0.1:%1").arg(port), "--start", "-1m"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        QVERIFY(p.readAllStandardError().contains("Couldn't connect to server"));
        p.start(TIERSCOPE_BINARY, {"--db", m_dir.filePath("e.db"), "import", "prometheus", "--url",
                                   "http://127.0.0.1:1", "--start", "yesterday"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(p.readAllStandardError().contains("--start and --end are now, -15m"));
        p.start(TIERSCOPE_BINARY, {"--db", m_dir.filePath("e.db"), "import", "prometheus", "--url",
                                   "127.0.0.1:9090", "--start", "-1m"});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 2);
    }
};

QTEST_GUILESS_MAIN(TestPrometheus)
#include "tst_prometheus.moc"
