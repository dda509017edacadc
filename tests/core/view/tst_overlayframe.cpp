// The A/B overlay's model: two sides' ranges aligned at their own starts, B shifted by an
// offset, per-request dots, and both sides' TTFT histograms on one set of bins.
#include "core/view/OverlayFrame.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <numeric>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1000000000LL;
const std::string kGpu = "gpu/0/busy_pct";

// Raw samples (width 0), one a second from `startS` for `n` seconds, `value(i)` each.
std::vector<Bucket> perSecond(std::int64_t startS, int n, double (*value)(int)) {
    std::vector<Bucket> out;
    for (int i = 0; i < n; ++i) {
        const double v = value(i);
        out.push_back({(startS + i) * kSecond, 0, v, v, v, 1});
    }
    return out;
}

StoredRequest request(std::int64_t sendNs, double ttftS) {
    StoredRequest r;
    r.sendNs = sendNs;
    r.ttftS = ttftS;
    r.ok = true;
    return r;
}

OverlayFrame::Range range(std::int64_t startS, int seconds, double (*value)(int)) {
    OverlayFrame::Range r;
    r.label = "run at " + std::to_string(startS);
    r.t0Ns = startS * kSecond;
    r.t1Ns = (startS + seconds) * kSecond;
    r.series[kGpu] = perSecond(startS, seconds, value);
    return r;
}

const OverlayFrame::Series kGpuSeries{kGpu, "GPU busy", "GPU 0", ChartCatalog::Unit::Percent, 1};
const OverlayFrame::Series kTtftSeries{OverlayFrame::kTtft, "Client TTFT per request", "TTFT",
                                       ChartCatalog::Unit::Seconds, 0};

double busy(int i) {
    return 50.0 + i;
}

} // namespace

class TestOverlayFrame : public QObject {
    Q_OBJECT

  private slots:
    // A run that started at t = 100 s draws its first sample at x = 0, and one that started at
    // t = 5,000 s beside it at x = 0 too: each range is aligned at its own start.
    void eachRangeStartsAtZero() {
        OverlayFrame::Side a{"A", {range(100, 10, busy)}};
        OverlayFrame::Side b{"B", {range(5000, 20, busy), range(9000, 5, busy)}};
        const auto frame = OverlayFrame::build(a, b, {kGpuSeries}, 0.0);
        QCOMPARE(frame.charts.size(), std::size_t(1));
        const auto& lines = frame.charts[0].lines;
        QCOMPARE(lines.size(), std::size_t(3)); // one per run: A's, then B's two
        QCOMPARE(lines[0].side, 0);
        QCOMPARE(lines[1].side, 1);
        QCOMPARE(lines[2].side, 1);
        QCOMPARE(lines[2].range, std::size_t(1));
        for (const auto& line : lines) {
            QCOMPARE(line.points.front().x, 0.0);
            QCOMPARE(line.points.front().y, 50.0);
        }
        QCOMPARE(lines[0].points.back().x, 9.0);
        QCOMPARE(lines[1].points.back().x, 19.0);
        QCOMPARE(frame.x0, 0.0);
        QCOMPARE(frame.x1, 20.0); // the longest range
    }

    // The offset moves B's lines and dots and nothing of A's; the histogram does not move.
    void theOffsetShiftsBOnly() {
        OverlayFrame::Side a{"A", {range(100, 10, busy)}};
        OverlayFrame::Side b{"B", {range(500, 10, busy)}};
        a.ranges[0].requests = {request(102 * kSecond, 0.2)};
        b.ranges[0].requests = {request(503 * kSecond, 0.4)};
        const auto still = OverlayFrame::build(a, b, {kGpuSeries, kTtftSeries}, 0.0);
        const auto moved = OverlayFrame::build(a, b, {kGpuSeries, kTtftSeries}, 7.5);
        const auto& s = still.charts[0].lines;
        const auto& m = moved.charts[0].lines;
        QCOMPARE(s[0].points.size(), m[0].points.size());
        for (std::size_t i = 0; i < s[0].points.size(); ++i) {
            QCOMPARE(m[0].points[i].x, s[0].points[i].x);       // A stays
            QCOMPARE(m[1].points[i].x, s[1].points[i].x + 7.5); // B moves
            QCOMPARE(m[1].points[i].y, s[1].points[i].y);
        }
        QCOMPARE(still.dots[0].front().x, 2.0);
        QCOMPARE(moved.dots[0].front().x, 2.0);
        QCOMPARE(still.dots[1].front().x, 3.0);
        QCOMPARE(moved.dots[1].front().x, 10.5);
        QCOMPARE(moved.dots[1].front().y, 400.0); // TTFT in ms
        const auto& dotsChart = moved.charts[1];
        QVERIFY(dotsChart.dots);
        QCOMPARE(dotsChart.lines.size(), std::size_t(2));
        QCOMPARE(dotsChart.lines[1].points.front().x, 10.5);
        QCOMPARE(moved.x0, 0.0);
        QCOMPARE(moved.x1, 17.5);
        QCOMPARE(moved.ttft.edgesMs, still.ttft.edgesMs);
        QCOMPARE(moved.ttft.counts, still.ttft.counts);
        // A negative offset draws B earlier: the axis starts where B does.
        QCOMPARE(OverlayFrame::build(a, b, {kGpuSeries}, -4.0).x0, -4.0);
    }

    // One set of bins over both sides: the first edge at the fastest request of either side,
    // the last at the slowest; each side's counts add up to its requests, its fractions to 1.
    void sharedBinsCoverBothSides() {
        OverlayFrame::Side a{"A", {range(0, 60, busy), range(100, 60, busy)}};
        OverlayFrame::Side b{"B", {range(1000, 60, busy)}};
        for (int i = 0; i < 40; ++i)
            a.ranges[i % 2].requests.push_back(
                request(a.ranges[i % 2].t0Ns + i * kSecond, 0.05 + 0.01 * i));
        for (int i = 0; i < 25; ++i)
            b.ranges[0].requests.push_back(request(b.ranges[0].t0Ns + i * kSecond, 2.0 + 0.5 * i));
        StoredRequest failed = request(1010 * kSecond, 0.001);
        failed.ok = false; // a failed request has no place in a TTFT distribution
        b.ranges[0].requests.push_back(failed);
        const auto h = OverlayFrame::build(a, b, {}, 3.0).ttft;
        QVERIFY(h.edgesMs.size() >= 6); // at least five bins
        QVERIFY(std::is_sorted(h.edgesMs.begin(), h.edgesMs.end()));
        QCOMPARE(h.edgesMs.front(), 50.0);
        QCOMPARE(h.edgesMs.back(), 14000.0);
        const std::size_t bins = h.edgesMs.size() - 1;
        for (int s = 0; s < 2; ++s) {
            QCOMPARE(h.counts[s].size(), bins);
            QCOMPARE(h.fractions[s].size(), bins);
        }
        QCOMPARE(std::accumulate(h.counts[0].begin(), h.counts[0].end(), std::size_t(0)),
                 std::size_t(40));
        QCOMPARE(std::accumulate(h.counts[1].begin(), h.counts[1].end(), std::size_t(0)),
                 std::size_t(25));
        QCOMPARE(h.total[0], std::size_t(40));
        QCOMPARE(h.total[1], std::size_t(25));
        for (int s = 0; s < 2; ++s)
            QVERIFY(std::abs(std::accumulate(h.fractions[s].begin(), h.fractions[s].end(), 0.0) -
                             1.0) < 1e-9);
        // Log-spaced: every bin spans the same ratio.
        const double ratio = h.edgesMs[1] / h.edgesMs[0];
        for (std::size_t i = 1; i < bins; ++i)
            QVERIFY(std::abs(h.edgesMs[i + 1] / h.edgesMs[i] - ratio) < 1e-6 * ratio);
        // A is all fast, B all slow: they share no bin.
        for (std::size_t i = 0; i < bins; ++i)
            QVERIFY(h.counts[0][i] == 0 || h.counts[1][i] == 0);
    }

    void oneValueIsOneBinAndNoRequestsNoBins() {
        const auto one = OverlayFrame::histogram({300.0, 300.0}, {300.0});
        QCOMPARE(one.edgesMs.size(), std::size_t(2));
        QCOMPARE(one.counts[0], std::vector<std::size_t>({2}));
        QCOMPARE(one.counts[1], std::vector<std::size_t>({1}));
        const auto none = OverlayFrame::histogram({}, {});
        QVERIFY(none.edgesMs.empty());
        QCOMPARE(none.total[0], std::size_t(0));
    }

    // Ten seconds of samples, twenty with none, ten more: the line breaks (a NaN point) across
    // the silence and draws nothing inside it, never a zero.
    void absentSamplesStayGaps() {
        OverlayFrame::Range r;
        r.t0Ns = 100 * kSecond;
        r.t1Ns = 140 * kSecond;
        auto first = perSecond(100, 10, busy);
        const auto second = perSecond(130, 10, busy);
        first.insert(first.end(), second.begin(), second.end());
        first.push_back({141 * kSecond, kSecond, 0, 0, 0, 0}); // an empty bucket: no point
        r.series[kGpu] = first;
        const auto frame = OverlayFrame::build({"A", {r}}, {"B", {}}, {kGpuSeries}, 0.0);
        const auto& points = frame.charts[0].lines.at(0).points;
        QCOMPARE(points.size(), std::size_t(21)); // 20 samples and one break
        int breaks = 0;
        for (const auto& p : points) {
            if (std::isnan(p.y)) {
                ++breaks;
                QCOMPARE(p.x, 30.0); // where the data resumes
                continue;
            }
            QVERIFY(p.y >= 50.0); // never a zero
            QVERIFY(p.x < 10.0 || p.x >= 30.0);
        }
        QCOMPARE(breaks, 1);
        // A side that lacks the series draws no line for it, rather than a flat one.
        QCOMPARE(frame.charts[0].lines.size(), std::size_t(1));
    }

    // The store's buckets lie on its own grid: a run that starts 0.7 s into a 2 s bucket still
    // starts at 0 s, never before (a short run drew from -0.5 s).
    void aBucketBeginningBeforeTheRunIsDrawnAtItsStart() {
        OverlayFrame::Range r;
        r.t0Ns = 100 * kSecond + 700'000'000;
        r.t1Ns = 103 * kSecond;
        r.series[kGpu] = {{100 * kSecond, 2 * kSecond, 50, 50, 50, 1},
                          {102 * kSecond, 2 * kSecond, 60, 60, 60, 1}};
        const auto frame = OverlayFrame::build({"A", {r}}, {"B", {}}, {kGpuSeries}, 0.0);
        const auto& points = frame.charts[0].lines.at(0).points;
        QCOMPARE(points.size(), std::size_t(2));
        QCOMPARE(points[0].x, 0.3); // the bucket's middle, 101 s, is 0.3 s into the run
        QCOMPARE(points[1].x, 2.3);
        r.series[kGpu].front().widthNs = 1 * kSecond; // middle at 100.5 s: before the start
        const auto early = OverlayFrame::build({"A", {r}}, {"B", {}}, {kGpuSeries}, 0.0);
        QCOMPARE(early.charts[0].lines.at(0).points.front().x, 0.0);
    }

    // What a session offers: its requests first (as the timeline puts them), then its
    // charts' readings matched by metric path, without the references (VRAM total).
    void theCatalogNamesSeriesByPath() {
        std::vector<MetricInfo> metrics = {
            {7, 1, {"gpu/0/vram_used_bytes", "bytes"}},
            {8, 1, {"gpu/0/vram_total_bytes", "bytes"}},
            {9, 1, {"gpu/0/busy_pct", "percent"}},
            {10, 1, {"block/nvme0n1/read_bytes_per_s", "bytes/s", "rate"}},
        };
        const auto all = OverlayFrame::catalog(metrics, {}, true);
        QStringList keys;
        for (const auto& s : all)
            keys << QString::fromStdString(s.key);
        QCOMPARE(keys, QStringList({"request/ttft", "request/tokens", "gpu/0/busy_pct",
                                    "gpu/0/vram_used_bytes", "block/nvme0n1/read_bytes_per_s"}));
        QCOMPARE(all[2].metricId, std::int64_t(9));
        QCOMPARE(all[2].chart, std::string("GPU busy"));
        QCOMPARE(all[4].unit, ChartCatalog::Unit::BytesPerSecond);
        QCOMPARE(OverlayFrame::catalog(metrics, {}, false).size(), std::size_t(3));
    }

    // The tokens series comes from the requests: per second of completion.
    void requestSeriesFromRequests() {
        OverlayFrame::Range r;
        r.t0Ns = 10 * kSecond;
        r.t1Ns = 20 * kSecond;
        for (int i = 0; i < 3; ++i) {
            auto q = request((10 + i) * kSecond, 0.1);
            q.e2eS = 0.5;
            q.outputTokens = 100;
            r.requests.push_back(q);
        }
        OverlayFrame::addRequestSeries(r);
        QCOMPARE(r.series.at(OverlayFrame::kTokens).size(), std::size_t(3));
        QCOMPARE(r.series.at(OverlayFrame::kTokens).front().mean(), 100.0);
    }
};

QTEST_GUILESS_MAIN(TestOverlayFrame)
#include "tst_overlayframe.moc"
