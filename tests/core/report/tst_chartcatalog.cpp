#include "core/report/ChartCatalog.h"
#include "core/store/LiveBuffer.h"

#include <QtTest>

using namespace tierscope;

namespace {

MetricInfo metric(std::int64_t id, const std::string& path, const std::string& labels = "{}") {
    return {id, 1, {path, "", "gauge", labels}};
}

const ChartCatalog::Chart& find(const std::vector<ChartCatalog::Chart>& charts,
                                const std::string& id) {
    for (const auto& c : charts)
        if (c.id == id)
            return c;
    qFatal("no chart %s", id.c_str());
}

} // namespace

class TestChartCatalog : public QObject {
    Q_OBJECT
  private slots:
    void placesEachMetricOnItsChart() {
        const auto charts = ChartCatalog::build(
            {metric(1, "gpu/0/busy_pct", R"({"vendor":"amd","model":"MI300X"})"),
             metric(2, "gpu/0/vram_used_bytes"), metric(3, "gpu/0/vram_total_bytes"),
             metric(4, "block/nvme1n1/read_bytes_per_s", R"({"transport":"rdma"})"),
             metric(5, "block/total/read_bytes_per_s"), metric(6, "block/vda/write_bytes_per_s"),
             metric(7, "host/cpu/busy_pct"), metric(8, "host/cpu/0/busy_pct"),
             metric(9, "engine/gpu1:8000/ttft_p99_s"), metric(10, "engine/gpu1:8000/ttft_p50_s"),
             metric(11, "engine/gpu1:8000/kv_cache_usage_ratio"),
             metric(12, "engine/gpu1:8000/requests_waiting"),
             metric(13, "workload/read_bytes_per_s", R"({"workload":"kv-restore"})"),
             metric(14, "host/mem/dirty_bytes"), metric(15, "host/cpu/steal_pct"),
             metric(16, "engine/gpu1:8000/queue_time_p50_s"),
             metric(17, "engine/gpu1:8000/prefill_time_p50_s")},
            {});
        const auto& busy = find(charts, "gpu-busy");
        QCOMPARE(busy.series.size(), std::size_t(1));
        QCOMPARE(busy.series[0].name, std::string("GPU 0 (MI300X)"));
        QVERIFY(busy.absentReason.empty());
        const auto& vram = find(charts, "gpu-vram");
        QCOMPARE(vram.series.size(), std::size_t(2));
        QCOMPARE(vram.series[0].name, std::string("GPU 0 total")); // drawn dashed, as a limit
        QVERIFY(vram.series[0].reference);
        QVERIFY(!vram.series[1].reference);
        const auto& storage = find(charts, "storage");
        QStringList names;
        for (const auto& s : storage.series)
            names << QString::fromStdString(s.name);
        QCOMPARE(names, QStringList({"kv-restore read", "nvme1n1 read (NVMe/RDMA)", "vda write"}));
        const auto& cpu = find(charts, "host-cpu"); // the total and steal, not per core
        QCOMPARE(cpu.series.size(), std::size_t(2));
        QCOMPARE(cpu.series[1].name, std::string("CPU steal"));
        const auto& ttft = find(charts, "engine-ttft");
        // TTFT's p50 and p99 only: the phases' p50s are as coarse as vLLM's 0.3 s first bucket,
        // and their means are in the breakdown chart instead.
        QCOMPARE(ttft.series.size(), std::size_t(2));
        QCOMPARE(ttft.series[0].name, std::string("gpu1:8000 TTFT p50"));
        QCOMPARE(ttft.series[1].name, std::string("gpu1:8000 TTFT p99"));
        QCOMPARE(find(charts, "kv-cache").series.size(), std::size_t(1));
        QCOMPARE(find(charts, "requests").series[0].metricId, 12);
        QCOMPARE(find(charts, "host-memory").series[0].name, std::string("dirty"));
    }

    // The breakdown of the mean TTFT, from the engine histograms' per-interval means: never
    // their sums and counts, which are no latencies.
    void ttftBreakdownChart() {
        const auto charts = ChartCatalog::build(
            {metric(1, "engine/e/ttft_mean_s"), metric(2, "engine/e/queue_time_mean_s"),
             metric(3, "engine/e/prefill_time_mean_s"),
             metric(4, "engine/e/kv_retrieve_per_request_s"), metric(5, "engine/e/ttft_sum_s"),
             metric(6, "engine/e/ttft_count"), metric(7, "engine/e/lmcache_retrieve_mean_s")},
            {});
        const auto& b = find(charts, "ttft-breakdown");
        QCOMPARE(b.title, std::string("TTFT breakdown"));
        QVERIFY(b.unit == ChartCatalog::Unit::Seconds);
        QStringList names;
        for (const auto& s : b.series)
            names << QString::fromStdString(s.name);
        QCOMPARE(names, QStringList({"e KV retrieve", "e mean TTFT", "e prefill", "e queue"}));
        // Without an engine it says why, as the other engine charts do.
        QVERIFY(find(ChartCatalog::build({}, {}), "ttft-breakdown")
                    .absentReason.starts_with("No inference engine is scraped"));
    }

    void absentSourcesSayWhy() {
        const std::vector<DeviceRecord> devices = {
            {"backend", "amd",
             R"j({"state":"unavailable","reason":"rocm-smi could not initialise (no KFD)"})j"},
            {"backend", "nvidia",
             R"({"state":"unavailable","reason":"libnvidia-ml.so.1 not found"})"},
            {"backend", "nvme", R"({"state":"available"})"}};
        const auto charts = ChartCatalog::build({metric(1, "host/cpu/busy_pct")}, devices);
        QCOMPARE(find(charts, "gpu-busy").absentReason,
                 std::string("No AMD GPU: rocm-smi could not initialise (no KFD)\n"
                             "No NVIDIA GPU: libnvidia-ml.so.1 not found"));
        QVERIFY(find(charts, "engine-ttft").absentReason.find("--engine URL") != std::string::npos);
        QVERIFY(find(charts, "host-cpu").absentReason.empty());
        QVERIFY(!find(charts, "storage").absentReason.empty());
    }

    void gpuChartsWithoutBackendRecordsStillExplain() {
        const auto charts = ChartCatalog::build({}, {});
        QCOMPARE(find(charts, "gpu-busy").absentReason,
                 std::string("No GPU metrics were recorded in this session"));
    }

    void liveBufferKeepsItsWindowAndDecimates() {
        LiveBuffer buffer(10'000'000'000LL); // 10 s
        const MetricDescriptor cpu{"host/cpu/busy_pct", "percent", "gauge", "{}"};
        for (int i = 0; i < 300; ++i) { // 30 s at 10 Hz
            const Reading r{cpu, static_cast<double>(i)};
            buffer.write(i * 100'000'000LL, {&r, 1});
        }
        const auto metrics = buffer.metrics();
        QCOMPARE(metrics.size(), std::size_t(1));
        QCOMPARE(metrics[0].id, 1);
        QCOMPARE(buffer.newestNs(), 29'900'000'000LL);
        QCOMPARE(buffer.oldestNs(), 19'900'000'000LL);
        const auto all = buffer.decimated(1, 0, 30'000'000'000LL, 1000);
        QCOMPARE(all.size(), std::size_t(101)); // only the last 10 s (and its first edge) remain
        QCOMPARE(all.front().min, 199.0);
        const auto few = buffer.decimated(1, 20'000'000'000LL, 30'000'000'000LL, 10);
        QCOMPARE(few.size(), std::size_t(10));
        QCOMPARE(few[0].min, 200.0);
        QVERIFY(few[0].count >= 10 && few[0].count <= 11); // one second of 10 Hz samples
        QVERIFY(buffer.decimated(2, 0, 1, 10).empty());
    }
};

QTEST_APPLESS_MAIN(TestChartCatalog)
#include "tst_chartcatalog.moc"
