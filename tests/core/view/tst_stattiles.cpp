// The first screen's stat tiles: the latest value of each source combined as its reference
// tool would (worst TTFT, summed rates, mean GPU busy), a sparkline, and absent, with the
// reason, when the source is missing or has gone quiet.
#include "collectors/engine/EngineMetricsMapper.h"
#include "core/view/ChartCatalog.h"
#include "core/view/StatTiles.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <map>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1000000000LL;
constexpr std::int64_t kT1 = 1'790'000'060LL * kSecond; // "now"
constexpr std::int64_t kT0 = kT1 - 60 * kSecond;

struct Fixture {
    std::vector<MetricInfo> metrics;
    std::map<std::int64_t, std::vector<Bucket>> samples;

    // One sample a second of `value` over [from, to) seconds of the window.
    void add(const std::string& path, const std::string& labels, double value, int from = 0,
             int to = 60) {
        const auto id = static_cast<std::int64_t>(metrics.size() + 1);
        metrics.push_back({id, 1, {path, "", "gauge", labels}});
        for (int s = from; s < to; ++s)
            samples[id].push_back({kT0 + s * kSecond, kSecond, value, value, value, 1});
    }
    StatTiles::Reader reader() const {
        return [this](std::int64_t id, std::int64_t t0, std::int64_t t1, int) {
            std::vector<Bucket> out;
            const auto it = samples.find(id);
            if (it != samples.end())
                for (const auto& b : it->second)
                    if (b.tNs >= t0 && b.tNs < t1)
                        out.push_back(b);
            return out;
        };
    }
    std::vector<StatTiles::Tile> tiles(const SessionAnalysis::Result* analysis = nullptr,
                                       const std::vector<DeviceRecord>& devices = {}) const {
        return StatTiles::compute(metrics, ChartCatalog::build(metrics, devices), reader(), kT0,
                                  kT1, 30, analysis);
    }
};

const StatTiles::Tile& tile(const std::vector<StatTiles::Tile>& tiles, const std::string& id) {
    for (const auto& t : tiles)
        if (t.id == id)
            return t;
    qFatal("no tile %s", id.c_str());
}

} // namespace

class StatTilesTest : public QObject {
    Q_OBJECT

  private slots:
    void combinesEachSourceAsItsReferenceDoes() {
        Fixture f;
        f.add("engine/a:8000/ttft_p50_s", "{}", 0.20);
        f.add("engine/b:8000/ttft_p50_s", "{}", 0.35); // the worst endpoint is the TTFT now
        f.add("engine/a:8000/ttft_p99_s", "{}", 0.90);
        f.add("engine/b:8000/ttft_p99_s", "{}", 1.40);
        f.add("engine/a:8000/generation_tokens_per_s", "{}", 300);
        f.add("engine/b:8000/generation_tokens_per_s", "{}", 200);
        f.add("gpu/0/busy_pct", "{}", 40);
        f.add("gpu/1/busy_pct", "{}", 80);
        f.add("block/nvme1n1/read_bytes_per_s", R"({"transport":"rdma"})", 2e9);
        f.add("block/nvme2n1/read_bytes_per_s", R"({"transport":"rdma"})", 1e9);
        f.add("block/total/read_bytes_per_s", "{}", 3e9); // the sum again: not added
        f.add("engine/a:8000/kv_cache_usage_ratio", "{}", 0.62);
        f.add("engine/a:8000/prefix_cache_hit_rate", "{}", 0.30);
        f.add("engine/a:8000/lmcache_hit_rate", "{}", 0.75);
        const auto tiles = f.tiles();
        QCOMPARE(tiles.size(), std::size_t(7));
        QCOMPARE(tiles.front().id, std::string("ttft")); // the story's order
        QCOMPARE(*tile(tiles, "tokens").value, 500.0);
        QCOMPARE(*tile(tiles, "gpu").value, 60.0);
        QCOMPARE(tile(tiles, "gpu").detail, std::string("mean of 2 GPUs"));
        QCOMPARE(*tile(tiles, "storage").value, 3e9);
        QCOMPARE(tile(tiles, "storage").detail, std::string("NVMe/RDMA, 2 devices"));
        QCOMPARE(*tile(tiles, "kv").value, 0.62);
        QCOMPARE(*tile(tiles, "hit").value, 0.30);
        QCOMPARE(*tile(tiles, "hit").second, 0.75);
        const auto& spark = tile(tiles, "storage").sparkline;
        QCOMPARE(spark.size(), std::size_t(30));
        for (const auto& v : spark)
            QCOMPARE(v.value_or(-1), 3e9);
        for (const auto& t : tiles)
            if (t.id != "bottleneck" && t.id != "ttft") // both need the window analysis
                QVERIFY2(t.absentReason.empty(), t.absentReason.c_str());
    }

    // The TTFT tile is histogram_quantile over the bucket increases of the complete windows
    // that ended in the last 30 s (the engine TTFT chart's span), both endpoints pooled, with the
    // requests behind it; not the mean of the per-scrape quantiles (0.35 and 1.40 here), nor a
    // window still filling, nor older ones.
    void theTtftTileIsTheQuantileOfTheLastThirtySeconds() {
        Fixture f;
        f.add("engine/a:8000/ttft_p50_s", "{}", 0.20);
        f.add("engine/b:8000/ttft_p50_s", "{}", 0.35);
        f.add("engine/a:8000/ttft_p99_s", "{}", 1.40);
        SessionAnalysis::Result analysis;
        analysis.windowNs = 10 * kSecond;
        auto window = [&](std::int64_t t0, double le05, double le1, double inf) {
            SessionAnalysis::Window w;
            w.t0Ns = t0;
            w.ttft.ttft = TtftBreakdown::Observed{
                0.5 * inf, inf,
                HistogramQuantile::Buckets{{0.1, 0}, {0.5, le05}, {1.0, le1}, {INFINITY, inf}}};
            analysis.windows.push_back(w);
        };
        for (int i = 0; i < 3; ++i) // ended 30 s ago or earlier: not counted
            window(kT0 + i * 10 * kSecond, 0, 0, 50);
        window(kT0 + 30 * kSecond, 30, 50, 50);
        window(kT0 + 40 * kSecond, 30, 50, 50);
        window(kT0 + 50 * kSecond, 0, 0, 0); // a quiet window: a real zero
        window(kT1 - 5 * kSecond, 0, 0, 50); // still filling: not judged
        const auto tiles = f.tiles(&analysis);
        const auto& t = tile(tiles, "ttft");
        // 100 requests: 60 at or under 0.5 s, all under 1 s. p50: rank 50 in (0.1, 0.5];
        // p99: rank 99 in (0.5, 1.0], linear within the bucket as Prometheus interpolates.
        QVERIFY(t.value && t.second);
        QVERIFY(std::abs(*t.value - (0.1 + 0.4 * 50.0 / 60.0)) < 1e-12);
        QVERIFY(std::abs(*t.second - (0.5 + 0.5 * 39.0 / 40.0)) < 1e-12);
        QCOMPARE(t.detail, std::string("100 requests in the last 30 s, 2 endpoints pooled"));
        QCOMPARE(*t.value, *analysis.ttftWithin(kT1 - 30 * kSecond, kT1).ttft->quantile(0.5));
        // The tile's span is the engine TTFT chart's: the two state one figure.
        QCOMPARE(StatTiles::kTtftSpanNs, EngineMetricsMapper::kQuantileSpanNs);
        // The sparkline: each bin's own p50, absent where no window ended.
        QCOMPARE(t.sparkline.size(), std::size_t(30));
        QVERIFY(std::any_of(t.sparkline.begin(), t.sparkline.end(),
                            [](const auto& v) { return v.has_value(); }));
        // An idle engine is absent with its reason, never a TTFT of 0.
        SessionAnalysis::Result idle = analysis;
        for (auto& w : idle.windows)
            if (w.t0Ns >= kT0)
                w.ttft.ttft = TtftBreakdown::Observed{0, 0, HistogramQuantile::Buckets{}};
        const auto quiet = tile(f.tiles(&idle), "ttft");
        QVERIFY(!quiet.value);
        QCOMPARE(quiet.absentReason,
                 std::string("No request reached its first token in the last 30 s"));
    }

    // No engine scraped and no GPU backend: absent with the charts' reasons, never 0.
    void aMissingSourceSaysWhy() {
        Fixture f;
        f.add("block/nvme0n1/read_bytes_per_s", "{}", 1e8);
        const auto tiles = f.tiles(
            nullptr, {{"backend", "amd",
                       R"({"state":"unavailable","reason":"rocm-smi could not initialise"})"}});
        QVERIFY(!tile(tiles, "ttft").value);
        QVERIFY(tile(tiles, "ttft").absentReason.find("No inference engine is scraped") == 0);
        QVERIFY(tile(tiles, "hit").absentReason.find("No inference engine is scraped") == 0);
        QVERIFY(!tile(tiles, "gpu").value);
        QCOMPARE(tile(tiles, "gpu").absentReason,
                 std::string("No AMD GPU: rocm-smi could not initialise"));
        QVERIFY(tile(tiles, "gpu").sparkline.empty());
        QCOMPARE(tile(tiles, "storage").detail, std::string("1 device"));
        QCOMPARE(*tile(tiles, "storage").value, 1e8);
    }

    // A source that stopped 30 s ago has no value now, and its sparkline stops where it did.
    void aQuietSourceIsAbsentNow() {
        Fixture f;
        f.add("gpu/0/busy_pct", "{}", 90, 0, 30);
        const auto tiles = f.tiles();
        const auto& gpu = tile(tiles, "gpu");
        QVERIFY(!gpu.value);
        QCOMPARE(gpu.absentReason, std::string("No GPU sample in the last 10 s"));
        QCOMPARE(gpu.sparkline.front().value_or(-1), 90.0);
        QVERIFY(!gpu.sparkline.back());
    }

    void theBottleneckIsTheLatestClassifiedWindow() {
        Fixture f;
        f.add("gpu/0/busy_pct", "{}", 10);
        SessionAnalysis::Result analysis;
        analysis.windowNs = 10 * kSecond;
        for (int i = 0; i < 6; ++i) {
            SessionAnalysis::Window w;
            w.t0Ns = kT0 + i * 10 * kSecond;
            w.verdict =
                i < 5 ? BottleneckClassifier::Verdict{BottleneckClassifier::Class::StorageBound,
                                                      "storage-bandwidth", "nvme0n1 at 97 %"}
                      : BottleneckClassifier::Verdict{BottleneckClassifier::Class::Unknown,
                                                      "no-data", ""};
            analysis.windows.push_back(w);
        }
        // A window still filling is not judged: its class would flicker as it fills.
        SessionAnalysis::Window filling;
        filling.t0Ns = kT1 - 5 * kSecond;
        filling.verdict = {BottleneckClassifier::Class::GpuComputeBound, "gpu-busy", "GPU 99 %"};
        analysis.windows.push_back(filling);
        const auto tiles = f.tiles(&analysis);
        const auto& b = tile(tiles, "bottleneck");
        QCOMPARE(b.text, std::string("storage-bound"));
        QCOMPARE(b.detail, std::string("nvme0n1 at 97 %"));
        QVERIFY(!b.color.empty());
        // Unknown (missing evidence) is written in the text colour: the band's pale "unknown"
        // colour cannot be read as text.
        analysis.windows.pop_back();
        analysis.windows.back().verdict = {BottleneckClassifier::Class::Unknown, "no-gpu-data",
                                           "no GPU data"};
        const auto unknown = f.tiles(&analysis);
        QCOMPARE(tile(unknown, "bottleneck").text, std::string("unknown"));
        QVERIFY(tile(unknown, "bottleneck").color.empty());
        const auto unclassified = f.tiles();
        QVERIFY(!tile(unclassified, "bottleneck").absentReason.empty());
    }
};

QTEST_MAIN(StatTilesTest)
#include "tst_stattiles.moc"
