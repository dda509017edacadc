#include "core/store/LiveBuffer.h"
#include "core/view/ChartCatalog.h"
#include "core/view/ChartLayout.h"

#include <QtTest>

using namespace tierscope;

namespace {

MetricInfo metric(std::int64_t id, const std::string& path, const std::string& labels = "{}") {
    return {id, 1, {path, "", "gauge", labels}};
}

MetricInfo unitMetric(std::int64_t id, const std::string& path, const std::string& unit) {
    return {id, 1, {path, unit, "gauge", "{}"}};
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
             metric(17, "engine/gpu1:8000/prefill_time_p50_s"),
             metric(18, "block/nvme1c2n1/read_bytes_per_s",
                    R"({"path_of":"nvme1n1","transport":"rdma"})")},
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
        // A multipath path disk beside its namespace: per-path bandwidth, said whose it is.
        QCOMPARE(names,
                 QStringList({"kv-restore read", "nvme1c2n1 read (NVMe/RDMA, path of nvme1n1)",
                              "nvme1n1 read (NVMe/RDMA)", "vda write"}));
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
             metric(6, "engine/e/ttft_count"), metric(7, "engine/e/lmcache_retrieve_mean_s"),
             metric(8, "engine/e/storage_wait_per_request_s")},
            {});
        const auto& b = find(charts, "ttft-breakdown");
        QCOMPARE(b.title, std::string("TTFT breakdown"));
        QVERIFY(b.unit == ChartCatalog::Unit::Seconds);
        QStringList names;
        for (const auto& s : b.series)
            names << QString::fromStdString(s.name);
        // An older session's LMCache retrieve keeps its line; a newer one records every storage
        // wait as one.
        QCOMPARE(names, QStringList({"e KV retrieve", "e mean TTFT", "e prefill", "e queue",
                                     "e storage wait"}));
        // Without an engine it says why, as the other engine charts do.
        QVERIFY(find(ChartCatalog::build({}, {}), "ttft-breakdown")
                    .absentReason.starts_with("No inference engine is scraped"));
    }

    // With one engine's TTFT parts recorded, the breakdown is their stack from the bottom
    // (queue, storage wait, prefill compute, residual) under the mean TTFT as a reference line;
    // the whole phases' lines, which overlap, go. Two engines' parts do not stack: lines stay.
    void ttftPartsStack() {
        std::vector<MetricInfo> one = {metric(1, "engine/e/ttft_mean_s"),
                                       metric(2, "engine/e/queue_time_mean_s"),
                                       metric(3, "engine/e/ttft_part_s{part=residual}"),
                                       metric(4, "engine/e/ttft_part_s{part=queue}"),
                                       metric(5, "engine/e/ttft_part_s{part=prefill_compute}"),
                                       metric(6, "engine/e/ttft_part_s{part=storage_wait}")};
        const auto charts = ChartCatalog::build(one, {});
        const auto& b = find(charts, "ttft-breakdown");
        QVERIFY(b.stacked);
        QStringList names;
        for (const auto& s : b.series)
            names << QString::fromStdString(s.name) + "/" + QString::number(s.stack) +
                         (s.reference ? "/ref" : "");
        QCOMPARE(names, QStringList({"e queue/1", "e storage wait/2", "e prefill compute/3",
                                     "e residual/4", "e mean TTFT/0/ref"}));
        auto two = one;
        two.push_back(metric(7, "engine/f/ttft_mean_s"));
        two.push_back(metric(8, "engine/f/ttft_part_s{part=queue}"));
        const auto twoCharts = ChartCatalog::build(two, {});
        const auto& lines = find(twoCharts, "ttft-breakdown");
        QVERIFY(!lines.stacked);
        for (const auto& s : lines.series)
            QCOMPARE(s.stack, 0);
        QCOMPARE(lines.series.size(), std::size_t(3)); // e mean, e queue, f mean
    }

    // vLLM's KV route: token sources and the offload tiers on charts of their own, the
    // deferred requests beside the waiting ones; charts that no engine here serves are left out.
    void kvRouteChartsOnlyWhereServed() {
        const auto charts = ChartCatalog::build(
            {metric(1, "engine/e/prompt_tokens_share{source=external_kv_transfer}"),
             metric(2, "engine/e/prompt_tokens_share{source=local_compute}"),
             metric(3, "engine/e/prompt_tokens{source=local_compute}"),
             metric(4, "engine/e/kv_tier_read_bytes_per_s{tier=1:fs}"),
             metric(5, "engine/e/kv_tier_write_bytes_per_s{tier=1:fs}"),
             metric(6, "engine/e/kv_offload_load_bytes_per_s"),
             metric(7, "engine/e/requests_waiting{reason=deferred}"),
             metric(8, "engine/e/requests_waiting{reason=capacity}"),
             metric(9, "engine/e/nixl_transfer_bytes_per_s")},
            {});
        auto names = [&](const char* id) {
            QStringList out;
            for (const auto& s : find(charts, id).series)
                out << QString::fromStdString(s.name);
            return out;
        };
        QCOMPARE(names("kv-token-sources"),
                 QStringList({"e external_kv_transfer", "e local_compute"}));
        QVERIFY(find(charts, "kv-token-sources").unit == ChartCatalog::Unit::Ratio);
        QCOMPARE(names("kv-tiers"),
                 QStringList({"e 1:fs read", "e 1:fs write", "e NIXL transfer (between instances)",
                              "e offload load"}));
        QCOMPARE(names("requests"), QStringList({"e deferred (waiting for KV)"}));
        const auto none = ChartCatalog::build({metric(1, "engine/e/ttft_p50_s")}, {});
        for (const auto& c : none)
            QVERIFY2(c.id != "kv-tiers" && c.id != "kv-token-sources", c.id.c_str());
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

    // A backend names itself: a vendor the catalog has never heard of needs nothing here, and a
    // backend that is not a GPU's (NVMe) never explains a GPU chart.
    void aBackendNamesItself() {
        const std::vector<DeviceRecord> devices = {
            {"backend", "acme",
             R"({"state":"unavailable","reason":"libacme.so not found","display":"Acme XPU"})"},
            {"backend", "nvme", R"({"state":"unavailable","reason":"no libnvme"})"}};
        const auto charts = ChartCatalog::build({}, devices);
        QCOMPARE(find(charts, "gpu-vram").absentReason,
                 std::string("No Acme XPU: libacme.so not found"));
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

    // A layout hides catalog charts and adds charts of picked metrics by path: the series of
    // this session's metrics with those paths, in the layout's order, and an absent chart
    // (saying what it wants) where none was recorded.
    void aLayoutHidesAndAddsCharts() {
        const std::vector<MetricInfo> metrics = {unitMetric(1, "host/cpu/busy_pct", "percent"),
                                                 unitMetric(2, "block/nvme0n1/read_iops", "1/s"),
                                                 unitMetric(3, "block/nvme1n1/read_iops", "1/s"),
                                                 unitMetric(4, "block/nvme0n1/read_await_s", "s")};
        ChartLayout layout;
        layout.hidden = {"host-cpu", "gpu-vram"};
        layout.custom = {{"Read IOPS", {"block/nvme1n1/read_iops", "block/nvme0n1/read_iops"}},
                         {"Network", {"net/eth0/rx_bytes_per_s"}}};
        const auto charts = layout.apply(ChartCatalog::build(metrics, {}), metrics);
        for (const auto& c : charts)
            QVERIFY(c.id != "host-cpu" && c.id != "gpu-vram");
        QVERIFY(std::any_of(charts.begin(), charts.end(),
                            [](const auto& c) { return c.id == "gpu-busy"; }));
        const auto& iops = find(charts, "custom-1");
        QCOMPARE(iops.title, std::string("Read IOPS"));
        QCOMPARE(iops.unit, ChartCatalog::Unit::Count);
        QCOMPARE(iops.series.size(), std::size_t(2));
        QCOMPARE(iops.series[0].metricId, std::int64_t(3));
        QCOMPARE(iops.series[0].name, std::string("block/nvme1n1/read_iops"));
        QCOMPARE(iops.series[1].metricId, std::int64_t(2));
        const auto& net = find(charts, "custom-2");
        QVERIFY(net.series.empty());
        QCOMPARE(net.absentReason, std::string("None of this chart's metrics was recorded "
                                               "here: net/eth0/rx_bytes_per_s"));
        QCOMPARE(charts.back().id, std::string("custom-2")); // after the catalog's
        QCOMPARE(ChartLayout::customIndex(iops.id), std::optional<std::size_t>(0));
        QCOMPARE(ChartLayout::customIndex(net.id), std::optional<std::size_t>(1));
        for (const char* other : {"storage", "custom-", "custom-0", "custom-1x", "custom--1"})
            QVERIFY2(!ChartLayout::customIndex(other), other);
    }

    // Metrics picked together make one chart per unit: seconds and IOPS on one axis would
    // draw the await as a flat line at zero.
    void pickedMetricsSplitByUnit() {
        const auto charts =
            ChartLayout::chartsFor("nvme0n1", {unitMetric(1, "block/nvme0n1/read_iops", "1/s"),
                                               unitMetric(2, "block/nvme0n1/read_await_s", "s"),
                                               unitMetric(3, "block/nvme0n1/write_iops", "1/s")});
        QCOMPARE(charts.size(), std::size_t(2));
        QCOMPARE(charts[0].title, std::string("nvme0n1 (count)"));
        QCOMPARE(charts[0].paths,
                 (std::vector<std::string>{"block/nvme0n1/read_iops", "block/nvme0n1/write_iops"}));
        QCOMPARE(charts[1].title, std::string("nvme0n1 (s)"));
        const auto one =
            ChartLayout::chartsFor("iops", {unitMetric(1, "block/nvme0n1/read_iops", "1/s")});
        QCOMPARE(one.size(), std::size_t(1));
        QCOMPARE(one[0].title, std::string("iops"));
        QCOMPARE(ChartLayout::unitOf({"engine/e/generation_tokens_per_s", "1/s"}),
                 ChartCatalog::Unit::TokensPerSecond);
        QCOMPARE(ChartLayout::unitOf({"gpu/0/busy_pct", "percent"}), ChartCatalog::Unit::Percent);
    }

    // Saved as JSON and read back the same; damaged text is no layout rather than half of one.
    void aLayoutRoundTripsThroughJson() {
        ChartLayout layout;
        layout.hidden = {"host-memory"};
        layout.custom = {{"await", {"block/nvme0n1/read_await_s"}}};
        layout.hiddenSeries = {{"storage", {"vda write"}}};
        const auto back = ChartLayout::fromJson(layout.toJson());
        QVERIFY(back.has_value());
        QVERIFY(*back == layout);
        QVERIFY(ChartLayout::fromJson("{}").has_value()); // the default layout
        for (const char* bad :
             {"", "[]", "{", R"({"hidden": 3})", R"({"custom": [{"title": "x"}]})",
              R"({"custom": [{"title": "x", "paths": []}]})"})
            QVERIFY2(!ChartLayout::fromJson(bad), bad);
    }
};

QTEST_GUILESS_MAIN(TestChartCatalog)
#include "tst_chartcatalog.moc"
