#include "TestSupport.h"
#include "collectors/prometheus/PrometheusApi.h"
#include "collectors/prometheus/PrometheusImport.h"
#include "collectors/prometheus/PrometheusTemplate.h"

#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <httplib.h>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>

using namespace tierscope;

namespace {

// What an import writes: per path, its labels and its latest value.
class Capture : public SampleSink {
  public:
    void write(std::int64_t, std::span<const Reading> readings) override {
        std::lock_guard lock(m_mutex);
        for (const auto& r : readings) {
            m_last[r.metric.path] = r.value;
            m_labels[r.metric.path] = r.metric.labels;
        }
    }
    bool has(const std::string& path) {
        std::lock_guard lock(m_mutex);
        return m_last.count(path) > 0;
    }
    double last(const std::string& path) {
        std::lock_guard lock(m_mutex);
        const auto it = m_last.find(path);
        return it == m_last.end() ? NAN : it->second;
    }
    nlohmann::json labels(const std::string& path) {
        std::lock_guard lock(m_mutex);
        return nlohmann::json::parse(m_labels[path], nullptr, false);
    }

  private:
    std::mutex m_mutex;
    std::map<std::string, double> m_last;
    std::map<std::string, std::string> m_labels;
};

double wallNow() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

constexpr double kMiB = 1048576.0;

} // namespace

// The built-in templates against a real Prometheus (Debian's), scraping the exporters' own
// exposition (fixtures in dcgm-exporter's and AMD device-metrics-exporter's formats, with MIG)
// and a node_exporter-style endpoint whose counters grow at known rates.
class TestPrometheusTemplates : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    httplib::Server m_server;
    std::thread m_thread;
    std::unique_ptr<QProcess> m_prometheus = std::make_unique<QProcess>();
    std::string m_url;
    std::int64_t m_startedMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                                   std::chrono::system_clock::now().time_since_epoch())
                                   .count();
    Capture m_capture;
    PrometheusImport::Summary m_summary;

    // node_exporter's diskstats families for one NVMe namespace: 100 reads/s of 10 kB taking
    // 5 ms each, 50 writes/s taking 1 ms, 2 I/Os in flight on average.
    // Each sample carries its own timestamp (the text format allows one, and Prometheus keeps
    // it), the moment its value stands for: the rates Prometheus computes are then exact, not
    // moved by how late a busy machine answered a scrape.
    std::string nodeText() const {
        const auto nowMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
        const double t = static_cast<double>(nowMs - m_startedMs) / 1000.0 + 1000;
        std::string out;
        auto counter = [&](const char* name, double perSecond) {
            char value[32]; // node_exporter's counters are floats: all their digits
            std::snprintf(value, sizeof value, "%.17g", perSecond * t);
            out += std::string("# TYPE ") + name + " counter\n" + name + "{device=\"nvme0n1\"} " +
                   value + " " + std::to_string(nowMs) + "\n";
        };
        counter("node_disk_reads_completed_total", 100);
        counter("node_disk_read_time_seconds_total", 0.5);
        counter("node_disk_read_bytes_total", 1e6);
        counter("node_disk_writes_completed_total", 50);
        counter("node_disk_write_time_seconds_total", 0.05);
        counter("node_disk_written_bytes_total", 2e5);
        counter("node_disk_io_time_seconds_total", 0.9);
        counter("node_disk_io_time_weighted_seconds_total", 2.0);
        out += "# TYPE node_disk_info gauge\n"
               "node_disk_info{device=\"nvme0n1\",major=\"259\",minor=\"0\",model=\"SAMSUNG "
               "MZWLR3T8HBLS-00007\",path=\"pci-0000:41:00.0-nvme-1\",revision=\"MPK7525Q\","
               "serial=\"S6EXNA0T500123\",wwn=\"eui.36344830525001230025384500000001\"} 1\n";
        return out;
    }

    void serveFixture(const std::string& path, const QString& fixture) {
        const std::string body = test::fixture(fixture);
        m_server.Get(path, [body](const httplib::Request&, httplib::Response& response) {
            response.set_content(body, "text/plain; version=0.0.4");
        });
    }

    const std::string gpuA = "@gpu-a:9400/", gpuB = "@gpu-b:9400/";

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const QString prometheus = QStandardPaths::findExecutable("prometheus");
        QVERIFY2(!prometheus.isEmpty(), "install prometheus (scripts/install-deps.sh)");
        serveFixture("/dcgm-a", "prometheus/dcgm-exporter-3.3-mig.txt");
        serveFixture("/dcgm-b", "prometheus/dcgm-exporter-4.1-profiling-only.txt");
        serveFixture("/amd-a", "prometheus/amd-device-metrics-exporter-1.2.txt");
        serveFixture("/amd-b", "prometheus/amd-device-metrics-exporter-1.2-amd-prefix.txt");
        m_server.Get("/node", [this](const httplib::Request&, httplib::Response& response) {
            response.set_content(nodeText(), "text/plain; version=0.0.4");
        });
        const int port = m_server.bind_to_any_port("127.0.0.1");
        QVERIFY(port > 0);
        m_thread = std::thread([this] { m_server.listen_after_bind(); });

        QString jobs;
        for (const auto& [job, node] :
             std::vector<std::pair<QString, QString>>{{"dcgm-a", "gpu-a:9400"},
                                                      {"dcgm-b", "gpu-b:9400"},
                                                      {"amd-a", "amd-a:5000"},
                                                      {"amd-b", "amd-b:5000"},
                                                      {"node", "node-a:9100"}})
            jobs += QString("  - job_name: %1\n    metrics_path: /%1\n    static_configs: "
                            "[{targets: [\"127.0.0.1:%2\"], labels: {instance: \"%3\"}}]\n")
                        .arg(job)
                        .arg(port)
                        .arg(node);
        test::writeFile(m_dir.filePath("prom.yml"),
                        ("global:\n  scrape_interval: 1s\nscrape_configs:\n" + jobs).toUtf8());
        const int promPort = test::freePort();
        m_prometheus->setProcessChannelMode(QProcess::MergedChannels);
        m_prometheus->setStandardOutputFile(m_dir.filePath("prometheus.log"));
        m_prometheus->start(prometheus, {"--config.file=" + m_dir.filePath("prom.yml"),
                                         QString("--web.listen-address=127.0.0.1:%1").arg(promPort),
                                         "--storage.tsdb.path=" + m_dir.filePath("tsdb")});
        QVERIFY(m_prometheus->waitForStarted(10000));
        m_url = "http://127.0.0.1:" + std::to_string(promPort);
        // Every target scraped at least five times: the 5 s rate window has its samples.
        const PrometheusApi api(m_url, std::chrono::seconds(5));
        auto scrapes = [&] {
            const auto r = api.query("min(count_over_time(up[1m])) and count(up == 1) == 5");
            return r.series.size() == 1 && !r.series[0].points.empty()
                       ? r.series[0].points[0].second
                       : 0.0;
        };
        QTRY_VERIFY_WITH_TIMEOUT(scrapes() >= 6, 60000);

        PrometheusImport::Options options;
        options.url = m_url;
        options.stepS = 1;
        const double end = wallNow() - 1;
        m_summary = PrometheusImport::run(options, end - 2, end, m_capture);
        QVERIFY2(m_summary.errors.empty(),
                 m_summary.errors.empty() ? "" : m_summary.errors.front().c_str());
    }

    void cleanupTestCase() {
        if (m_prometheus->state() != QProcess::NotRunning) {
            m_prometheus->terminate();
            if (!m_prometheus->waitForFinished(10000))
                m_prometheus->kill();
            m_prometheus->waitForFinished(5000);
        }
        m_server.stop();
        if (m_thread.joinable())
            m_thread.join();
    }

    void dcgmBusyFromUtilThenEngineActive() {
        QCOMPARE(m_capture.last("gpu/1" + gpuA + "busy_pct"), 87.0); // GPU_UTIL wins
        // Profiling-only deployment: no GPU_UTIL, the graphics engine active ratio instead.
        QCOMPARE(m_capture.last("gpu/0" + gpuB + "busy_pct"), 25.0);
    }

    // MIG GPU 0: instances 1 (3g.40gb), 5 and 6 (2g.20gb), each its own series, and the GPU's
    // busy weighted by compute slices: (0.8 * 3 + 0.5 * 2 + 0 * 2) / 7.
    void dcgmMigInstancesAndPerGpuFigures() {
        QCOMPARE(m_capture.last("gpu/0" + gpuA + "mig/1/busy_pct"), 80.0);
        QCOMPARE(m_capture.last("gpu/0" + gpuA + "mig/5/busy_pct"), 50.0);
        QCOMPARE(m_capture.last("gpu/0" + gpuA + "mig/6/busy_pct"), 0.0); // a real zero
        QCOMPARE(m_capture.last("gpu/0" + gpuA + "busy_pct"), 100 * 3.4 / 7);
        QCOMPARE(m_capture.last("gpu/0" + gpuA + "mig/1/vram_used_bytes"), 30000 * kMiB);
        QCOMPARE(m_capture.last("gpu/0" + gpuA + "mig/6/vram_total_bytes"), 20224 * kMiB);
        QCOMPARE(m_capture.last("gpu/0" + gpuA + "vram_used_bytes"), 42010 * kMiB);
        QCOMPARE(m_capture.last("gpu/0" + gpuA + "vram_total_bytes"), 80896 * kMiB);
        QCOMPARE(m_capture.labels("gpu/0" + gpuA + "mig/5/busy_pct").value("GPU_I_PROFILE", ""),
                 std::string("2g.20gb"));
        QVERIFY(!m_capture.has("gpu/1" + gpuA + "mig/1/busy_pct")); // GPU 1 is not partitioned
    }

    void dcgmMemoryPowerTemperaturePcie() {
        QCOMPARE(m_capture.last("gpu/1" + gpuA + "vram_used_bytes"), 70000 * kMiB);
        QCOMPARE(m_capture.last("gpu/1" + gpuA + "vram_total_bytes"), 81226 * kMiB);
        // Used + free + reserved, where the exporter has the reserved field.
        QCOMPARE(m_capture.last("gpu/0" + gpuB + "vram_total_bytes"), 45545 * kMiB);
        // Device-level fields, repeated per MIG instance by the exporter, once per GPU.
        QCOMPARE(m_capture.last("gpu/0" + gpuA + "power_w"), 215.5);
        QCOMPARE(m_capture.last("gpu/1" + gpuA + "power_w"), 390.123);
        QCOMPARE(m_capture.last("gpu/0" + gpuA + "temp_c"), 33.0);
        QCOMPARE(m_capture.last("gpu/0" + gpuA + "pcie_rx_bytes_per_s"), 104857600.0);
        QCOMPARE(m_capture.last("gpu/1" + gpuA + "pcie_tx_bytes_per_s"), 123456789.0);
        QVERIFY(!m_capture.has("gpu/0" + gpuB + "power_w")); // not exported there: absent
    }

    void amdDeviceMetricsExporter() {
        const std::string a = "@amd-a:5000/";
        QCOMPARE(m_capture.last("gpu/0" + a + "busy_pct"), 87.0);
        QCOMPARE(m_capture.last("gpu/1" + a + "busy_pct"), 3.0);
        QCOMPARE(m_capture.last("gpu/0" + a + "mem_busy_pct"), 40.0);
        QCOMPARE(m_capture.last("gpu/0" + a + "vram_used_bytes"), 150000 * kMiB);
        QCOMPARE(m_capture.last("gpu/0" + a + "vram_total_bytes"), 196592 * kMiB);
        QCOMPARE(m_capture.last("gpu/1" + a + "power_w"), 140.5);
        QCOMPARE(m_capture.last("gpu/0" + a + "temp_junction_c"), 78.0);
        QCOMPARE(m_capture.last("gpu/0" + a + "temp_memory_c"), 70.0);
        QVERIFY(!m_capture.has("gpu/0" + a + "temp_edge_c")); // MI300X has no edge sensor
        QCOMPARE(m_capture.last("gpu/0" + a + "gtt_used_bytes"), 12 * kMiB);
        QCOMPARE(m_capture.last("gpu/0" + a + "gtt_total_bytes"), 1031560 * kMiB);
        // The same exporter configured with its "amd_" prefix.
        QCOMPARE(m_capture.last("gpu/0@amd-b:5000/busy_pct"), 55.0);
    }

    void nodeExporterIopsAwaitQueue() {
        const std::string d = "block/nvme0n1@node-a:9100/";
        // The counters grow exactly linearly in their own timestamps, so a late scrape moves
        // no rate; what is left is Prometheus' extrapolation to the window's edges when
        // scrapes come unevenly: within 10 %. Await is a ratio of two increases over the same
        // samples, so it is exact.
        auto near = [&](const std::string& path, double expected) {
            const double got = m_capture.last(d + path);
            return std::abs(got - expected) <= 0.1 * expected;
        };
        QVERIFY2(near("read_iops", 100),
                 qPrintable(QString::number(m_capture.last(d + "read_iops"))));
        QVERIFY(near("write_iops", 50));
        QVERIFY(near("queue_depth", 2));
        QVERIFY(std::abs(m_capture.last(d + "read_await_s") - 0.005) <= 1e-9);
        QVERIFY(std::abs(m_capture.last(d + "write_await_s") - 0.001) <= 1e-9);
        QVERIFY(near("util_pct", 90));
        const auto labels = m_capture.labels(d + "read_bytes_per_s");
        QCOMPARE(labels.value("model", ""), std::string("SAMSUNG MZWLR3T8HBLS-00007"));
        QCOMPARE(labels.value("serial", ""), std::string("S6EXNA0T500123"));
        QCOMPARE(labels.value("major", ""), std::string("259"));
        QVERIFY(near("read_bytes_per_s", 1e6));
    }

    // A template whose family is there but whose path names a label it lacks, and one whose
    // path cannot tell MIG instances apart: both are said in the summary, not dropped silently.
    void unmappedFamiliesAreReported() {
        QVERIFY2(m_summary.unmapped.empty(),
                 m_summary.unmapped.empty() ? "" : m_summary.unmapped.front().c_str());
        PrometheusImport::Options options;
        options.url = m_url;
        options.templates = PrometheusTemplate::parse(R"([[template]]
exporter = "dcgm-exporter"
query = 'DCGM_FI_DEV_GPU_TEMP{instance=~"{nodes}"}'
path = "gpu/{gpu_index}@{instance}/temp_c"
unit = "degC"

[[template]]
exporter = "dcgm-exporter"
query = 'DCGM_FI_DEV_GPU_TEMP{instance=~"{nodes}"}'
path = "gpu/{gpu}@{instance}/temp_c"
unit = "degC"
)");
        Capture capture;
        const double end = wallNow() - 1;
        const auto summary = PrometheusImport::run(options, end - 2, end, capture);
        QCOMPARE(summary.unmapped.size(), std::size_t(2));
        QCOMPARE(summary.unmapped[0],
                 std::string("dcgm-exporter gpu/{gpu_index}@{instance}/temp_c: 4 series mapped "
                             "to nothing, they lack the label(s) gpu_index"));
        // GPU 0's three MIG instances share gpu="0": one is kept, two are reported.
        QCOMPARE(summary.unmapped[1],
                 std::string("dcgm-exporter gpu/{gpu}@{instance}/temp_c: 2 series left out: the "
                             "path does not tell them apart from another series of the same "
                             "query"));
        QCOMPARE(summary.series, std::size_t(2));
    }
};

QTEST_GUILESS_MAIN(TestPrometheusTemplates)
#include "tst_prometheustemplates.moc"
