// The first screen's stat tiles: the latest value of each source combined as its reference
// tool would (worst TTFT, summed rates, mean GPU busy), a sparkline, and absent, with the
// reason, when the source is missing or has gone quiet.
#include "core/report/ChartCatalog.h"
#include "core/report/StatTiles.h"

#include <QtTest>
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
        QCOMPARE(*tile(tiles, "ttft").value, 0.35);
        QCOMPARE(*tile(tiles, "ttft").second, 1.40);
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
            if (t.id != "bottleneck")
                QVERIFY2(t.absentReason.empty(), t.absentReason.c_str());
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
        const auto tiles = f.tiles(&analysis);
        const auto& b = tile(tiles, "bottleneck");
        QCOMPARE(b.text, std::string("storage-bound"));
        QCOMPARE(b.detail, std::string("nvme0n1 at 97 %"));
        QVERIFY(!b.color.empty());
        // Unknown (missing evidence) is written in the text colour: the band's pale "unknown"
        // colour cannot be read as text.
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
