// One timeline frame, from either source: the live view reads the live buffer, an opened session
// the store, and both make their frame with TimelineFrame. The same samples in both give the
// same picture: the same series, the same bottleneck windows and classes.
#include "core/store/LiveBuffer.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "core/view/RequestCharts.h"
#include "core/view/TimelineFrame.h"

#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1000000000LL;
constexpr std::int64_t kT0 = 1'790'000'000LL * kSecond;

const std::vector<MetricDescriptor> kMetrics = {
    {"gpu/0/busy_pct", "%", "gauge", "{}"},
    {"block/nvme0n1/read_bytes_per_s", "bytes/s", "rate", R"({"transport":"tcp"})"},
    {"engine/127.0.0.1:8000/ttft_p50_s", "s", "gauge", "{}"},
};

// A minute: GPU busy and storage idle for 30 s, then the GPU waits on a storage read burst.
double valueAt(std::size_t metric, int second) {
    const bool burst = second >= 30;
    switch (metric) {
    case 0:
        return burst ? 12.0 : 95.0;
    case 1:
        return burst ? 2.9e9 : 1e6;
    default:
        return burst ? 1.8 : 0.2;
    }
}

// A collector's clock is not aligned to the windows: each sample a quarter second into its
// second. (The decimator's slots are a nanosecond wider than span / slots, so a sample exactly
// on a window's edge can land in a slot that starts just before it, in the window before.)
std::int64_t at(int second) {
    return kT0 + second * kSecond + kSecond / 4;
}

} // namespace

class TestTimelineFrame : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

  private slots:
    void theLiveBufferAndTheStoreGiveTheSameFrame() {
        LiveBuffer buffer(3600 * kSecond);
        const std::string db = m_dir.filePath("same.db").toStdString();
        std::int64_t session = 0;
        {
            Store store(db, Store::Mode::ReadWrite);
            session = store.createSession({0, "s", "", "h", kT0, std::nullopt, "", "", "0"});
        }
        {
            StoreWriter writer(db);
            std::vector<int> handles;
            for (const auto& m : kMetrics)
                handles.push_back(writer.defineMetric(session, m));
            for (int s = 0; s < 60; ++s) {
                std::vector<Reading> readings;
                for (std::size_t i = 0; i < kMetrics.size(); ++i) {
                    readings.push_back({kMetrics[i], valueAt(i, s)});
                    writer.append(handles[i], at(s), valueAt(i, s));
                }
                buffer.write(at(s), readings);
            }
            writer.stop();
        }
        Store store(db, Store::Mode::ReadOnly);
        // 200 columns, as the views ask: the buffer in slots, the store in points (a min and a
        // max per slot). The store gives samples that fit as they are, at their own times; the
        // buffer stamps each at its slot's start: no more than one column apart.
        const int columns = 200;
        const std::int64_t column = 60 * kSecond / columns;
        auto request = TimelineFrame::Request::recorded(kT0, kT0 + 60 * kSecond, 2 * columns);
        const auto fromStore = [&store](std::int64_t id, std::int64_t t0, std::int64_t t1,
                                        int points) {
            return store.readDecimated(id, t0, t1, points);
        };
        const auto fromBuffer = [&buffer](std::int64_t id, std::int64_t t0, std::int64_t t1,
                                          int points) {
            return buffer.decimated(id, t0, t1, points);
        };
        const auto storedMetrics = store.metrics(session);
        const auto liveMetrics = buffer.metrics();
        const auto storedCharts = TimelineFrame::charts({storedMetrics}, {});
        const auto liveCharts = TimelineFrame::charts({liveMetrics}, {});
        const auto stored = TimelineFrame::build(storedCharts, storedMetrics, fromStore, request);
        request.points = columns;
        const auto live = TimelineFrame::build(liveCharts, liveMetrics, fromBuffer, request);

        // The same charts, each series with the same values (ids are each source's own).
        QCOMPARE(storedCharts.size(), liveCharts.size());
        int series = 0;
        for (std::size_t c = 0; c < storedCharts.size(); ++c) {
            QCOMPARE(storedCharts[c].id, liveCharts[c].id);
            QCOMPARE(storedCharts[c].series.size(), liveCharts[c].series.size());
            for (std::size_t s = 0; s < storedCharts[c].series.size(); ++s) {
                const auto& a = stored.data.at(storedCharts[c].series[s].metricId);
                const auto& b = live.data.at(liveCharts[c].series[s].metricId);
                QCOMPARE(a.size(), std::size_t(60));
                QCOMPARE(a.size(), b.size());
                for (std::size_t i = 0; i < a.size(); ++i) {
                    QVERIFY(a[i].tNs >= b[i].tNs && a[i].tNs - b[i].tNs < column);
                    QCOMPARE(a[i].min, b[i].min);
                    QCOMPARE(a[i].max, b[i].max);
                }
                ++series;
            }
        }
        QCOMPARE(series, 3);
        // The same bottleneck windows and classes; the burst is not the class of the start.
        QVERIFY(stored.bottlenecks && live.bottlenecks);
        const auto& a = stored.bottlenecks->windows;
        const auto& b = live.bottlenecks->windows;
        QCOMPARE(a.size(), std::size_t(60)); // a minute is under 200 s: one-second windows
        QCOMPARE(a.size(), b.size());
        for (std::size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(a[i].t0Ns, b[i].t0Ns);
            QVERIFY2(a[i].verdict.cls == b[i].verdict.cls,
                     (a[i].verdict.evidence + " / " + b[i].verdict.evidence).c_str());
        }
        QVERIFY(a.front().verdict.cls != a.back().verdict.cls);
    }

    // The live view's windows sit on fixed boundaries (a scroll does not move the bands), a
    // 120th of the view and at least 2 s; a recorded session's start at its start, a 200th of
    // it and at least 1 s. Only a frame asked for its band classifies, and only the live one
    // makes tiles.
    void theBandAndTilesAreMadeWhenAsked() {
        const auto live =
            TimelineFrame::Request::live(kT0 + 7 * kSecond, kT0 + 607 * kSecond, 300, true);
        QCOMPARE(live.bandWindowNs, 5 * kSecond);
        QCOMPARE(live.bandStartNs % live.bandWindowNs, std::int64_t(0));
        QVERIFY(live.bandStartNs <= live.t0Ns && live.t0Ns - live.bandStartNs < 5 * kSecond);
        QCOMPARE(TimelineFrame::Request::live(kT0, kT0 + 60 * kSecond, 300, true).bandWindowNs,
                 2 * kSecond);
        const auto recorded =
            TimelineFrame::Request::recorded(kT0 + 7 * kSecond, kT0 + 4007 * kSecond, 300);
        QCOMPARE(recorded.bandWindowNs, 20 * kSecond);
        QCOMPARE(recorded.bandStartNs, kT0 + 7 * kSecond);

        const std::vector<MetricInfo> metrics = {{1, 1, kMetrics[0]}};
        const auto charts = TimelineFrame::charts({metrics}, {});
        int reads = 0;
        const auto read = [&reads](std::int64_t, std::int64_t t0, std::int64_t t1, int) {
            ++reads;
            std::vector<Bucket> out;
            for (auto t = t0; t < t1; t += kSecond)
                out.push_back({t, kSecond, 50, 50, 50, 1});
            return out;
        };
        auto quiet = TimelineFrame::Request::live(kT0, kT0 + 60 * kSecond, 60, false);
        const auto dataOnly = TimelineFrame::build(charts, metrics, read, quiet);
        QCOMPARE(reads, 1); // one read per series, nothing classified
        QVERIFY(!dataOnly.bottlenecks);
        QVERIFY(dataOnly.tiles.empty());
        QCOMPARE(dataOnly.data.at(1).size(), std::size_t(60));

        quiet.band = true;
        const auto full = TimelineFrame::build(charts, metrics, read, quiet);
        QVERIFY(full.bottlenecks);
        QVERIFY(!full.tiles.empty());
        const auto session = TimelineFrame::build(
            charts, metrics, read, TimelineFrame::Request::recorded(kT0, kT0 + 60 * kSecond, 60));
        QVERIFY(session.bottlenecks);
        QVERIFY(session.tiles.empty());
    }

    // A load session's request charts come first, before the layout applies (it may hide
    // them); an engine chart with nothing recorded names the endpoint that was scraped.
    void chartsComeFromTheCatalogTheRequestsAndTheLayout() {
        StoredRequest request;
        request.ok = true;
        request.sendNs = kT0;
        request.ttftS = 0.25;
        request.e2eS = 1.0;
        request.outputTokens = 40;
        const auto requests = RequestCharts::of({request});
        QCOMPARE(requests.charts.size(), std::size_t(2));
        QCOMPARE(requests.data.at(RequestCharts::kTtft).front().max, 0.25);
        QCOMPARE(requests.data.at(RequestCharts::kTokens).front().max, 40.0);
        QVERIFY(RequestCharts::of({}).charts.empty());

        const std::vector<MetricInfo> metrics = {{1, 1, kMetrics[0]}};
        TimelineFrame::ChartSource source{metrics, {}, {"http://10.0.0.5:8000/metrics"}};
        source.requestCharts = requests.charts;
        const auto charts = TimelineFrame::charts(source, {});
        QCOMPARE(charts.front().id, std::string("load-ttft"));
        QCOMPARE(charts[1].id, std::string("load-throughput"));
        const auto engine = std::find_if(charts.begin(), charts.end(), [](const auto& c) {
            return c.series.empty() && c.absentReason.find("10.0.0.5") != std::string::npos;
        });
        QVERIFY2(engine != charts.end(), "an engine chart names the scraped endpoint");
        QVERIFY(engine->absentReason.find("was scraped") != std::string::npos);

        ChartLayout layout;
        layout.hidden = {"load-ttft"};
        const auto laidOut = TimelineFrame::charts(source, layout);
        QCOMPARE(laidOut.size(), charts.size() - 1);
        QCOMPARE(laidOut.front().id, std::string("load-throughput"));
    }
};

QTEST_GUILESS_MAIN(TestTimelineFrame)
#include "tst_timelineframe.moc"
