#include "collectors/engine/EngineMetricsMapper.h"
#include "core/model/TeeSink.h"
#include "core/stats/HistogramQuantile.h"
#include "core/store/LiveBuffer.h"
#include "core/store/SessionRecorder.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "core/view/ChartCatalog.h"
#include "core/view/StatTiles.h"
#include "ui/timeline/BottleneckBand.h"

#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <random>

using namespace tierscope;
using Class = BottleneckClassifier::Class;

namespace {

constexpr std::int64_t kSecond = 1000000000LL;

SessionAnalysis::Window window(std::int64_t t0, Class cls, const char* rule, const char* evidence) {
    SessionAnalysis::Window w;
    w.t0Ns = t0;
    w.verdict = {cls, rule, evidence};
    return w;
}

// 60 s in 10 s windows: nothing recorded for 20 s, then unknown, then two storage windows with
// their own numbers, then gpu.
SessionAnalysis::Result analysis() {
    SessionAnalysis::Result r;
    r.windowNs = 10 * kSecond;
    r.windows = {window(0, Class::Unknown, "no-data", "nothing was recorded in this window"),
                 window(10 * kSecond, Class::Unknown, "no-data", "nothing"),
                 window(20 * kSecond, Class::Unknown, "no-gpu-data", "no GPU data"),
                 window(30 * kSecond, Class::StorageBound, "storage-bandwidth", "sda at 91 %"),
                 window(40 * kSecond, Class::StorageBound, "storage-bandwidth", "sda at 97 %"),
                 window(50 * kSecond, Class::GpuComputeBound, "gpu-busy", "GPU 0 busy 95 %")};
    return r;
}

} // namespace

class TestBottleneckBand : public QObject {
    Q_OBJECT
  private slots:
    void nothingBeforeTheFirstSample() {
        const auto spans = BottleneckBand::spansOf(analysis(), 0);
        QCOMPARE(spans.size(), std::size_t(3));
        QCOMPARE(spans[0].x0, 20.0);
        QCOMPARE(spans[0].cls, Class::Unknown);
        QCOMPARE(spans[1].cls, Class::StorageBound);
        QCOMPARE(spans[1].x1, 50.0);
    }

    void tooltipFollowsTheHoveredWindow() {
        BottleneckBand band;
        band.setSpans(BottleneckBand::spansOf(analysis(), 0));
        QVERIFY(band.textAt(5).isEmpty()); // before recording: no verdict at all
        QCOMPARE(band.textAt(25), QString("unknown: no GPU data (rule no-gpu-data)"));
        QCOMPARE(band.textAt(35), QString("storage-bound: sda at 91 % (rule storage-bandwidth)"));
        QCOMPARE(band.textAt(45), QString("storage-bound: sda at 97 % (rule storage-bandwidth)"));
    }

    // The engine's own TTFT breakdown of the hovered window is in its tooltip; a window whose
    // engine exposes no histogram says nothing of TTFT.
    void tooltipCarriesTheWindowsTtftBreakdown() {
        auto r = analysis();
        r.windows[4].ttft.ttft = TtftBreakdown::Observed{2.0, 4};
        r.windows[4].ttft.queue = TtftBreakdown::Observed{0.4, 4};
        r.windows[4].ttft.prefill = TtftBreakdown::Observed{1.6, 4};
        r.windows[4].ttft.retrieve = TtftBreakdown::Observed{1.0, 4};
        BottleneckBand band;
        band.setSpans(BottleneckBand::spansOf(r, 0));
        const QString hovered = band.textAt(45);
        QVERIFY2(hovered.startsWith("storage-bound: sda at 97 % (rule storage-bandwidth)\nTTFT: "),
                 qPrintable(hovered));
        QVERIFY2(hovered.contains(QString::fromStdString(r.windows[4].ttft.text())),
                 qPrintable(hovered));
        QVERIFY2(hovered.contains("50 %"), qPrintable(hovered)); // 1.0 s of 2.0 s is KV retrieve
        QVERIFY(!band.textAt(35).contains("TTFT"));
        QVERIFY2(!hovered.contains("p50"), qPrintable(hovered)); // no buckets, no quantiles
        // With the window's buckets (4 requests, 2 under 0.25 s, 2 under 1 s), its own p50 and
        // p99 stand on the next line.
        r.windows[4].ttft.ttft->buckets =
            HistogramQuantile::Buckets{{0.25, 2}, {1.0, 4}, {INFINITY, 4}};
        band.setSpans(BottleneckBand::spansOf(r, 0));
        QVERIFY2(band.textAt(45).endsWith("\np50 / p99: TTFT <= 250.0 ms / 985.0 ms"),
                 qPrintable(band.textAt(45)));
    }

    // The panel beside the lane: shares of the time in view that has a verdict, then the TTFT
    // breakdown of the windows in view, in words.
    void theRangeInViewIsSummedUpInWords() {
        auto r = analysis();
        r.windows[4].ttft.ttft = TtftBreakdown::Observed{2.0, 4};
        r.windows[4].ttft.queue = TtftBreakdown::Observed{0.4, 4};
        r.windows[4].ttft.prefill = TtftBreakdown::Observed{1.6, 4};
        r.windows[4].ttft.retrieve = TtftBreakdown::Observed{1.0, 4};
        const auto spans = BottleneckBand::spansOf(r, 0);
        const QString all = BottleneckBand::rangeSummary(spans, 0, 60);
        QVERIFY2(all.startsWith("In view: storage-bound 50 %, gpu-compute-bound 25 %, unknown "
                                "25 %. From the engine's histograms: mean TTFT 500.0 ms "
                                "over 4 requests"),
                 qPrintable(all));
        QVERIFY2(all.contains(QString::fromStdString(r.windows[4].ttft.text())), qPrintable(all));
        // Window 4's middle (45 s) is out of view: its breakdown is not counted.
        QCOMPARE(BottleneckBand::rangeSummary(spans, 20, 40),
                 QString("In view: storage-bound 50 %, unknown 50 %. No TTFT breakdown: the "
                         "engine's histograms are absent."));
        QVERIFY(BottleneckBand::rangeSummary(spans, 0, 15).isEmpty()); // nothing recorded yet
        BottleneckBand band;
        QSignalSpy changed(&band, &BottleneckBand::rangeTextChanged);
        band.setSpans(spans); // the default range [0, 1] s holds nothing: still empty
        QCOMPARE(changed.count(), 0);
        band.setTimeRange(30, 50);
        QCOMPARE(changed.count(), 1);
        QVERIFY(changed.last().first().toString().startsWith("In view: storage-bound 100 %."));
        band.setTimeRange(30, 50); // the same text: no signal
        QCOMPARE(changed.count(), 1);
    }

    // One engine, scraped once a second through the real mapper into the live buffer and the
    // store at once, as a recording does. The TTFT tile, the engine TTFT chart's last point,
    // the In-view line over the same 30 s and `analyze` on the stored session state one
    // figure: the exact histogram_quantile of those 30 s of requests.
    void liveFiguresAgreeOnOneSpan() {
        QTemporaryDir dir;
        const std::string db = dir.filePath("live.db").toStdString();
        // On a 2.5 s window boundary, so that the tile's windows are exactly the last 30 s.
        const std::int64_t t1 = 1'790'000'000LL * kSecond;
        const std::int64_t t0 = t1 - 300 * kSecond;
        std::int64_t session = 0;
        {
            Store store(db, Store::Mode::ReadWrite);
            SessionInfo info;
            info.startNs = t0;
            session = store.createSession(info);
            store.finishSession(session, t1);
        }
        const std::vector<double> bounds = {0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
        std::vector<double> cumulative(bounds.size() + 1, 0.0);
        double sum = 0, count = 0;
        std::vector<double> span(bounds.size() + 1, 0.0); // the last 30 s, bucket by bucket
        LiveBuffer buffer(3600 * kSecond);
        EngineMetricsMapper mapper("e:8000", false);
        std::mt19937 random(7);
        std::uniform_int_distribution<int> requests(0, 8);
        std::lognormal_distribution<double> ttft(std::log(0.4), 0.8);
        std::vector<double> lastP99; // the chart's points
        {
            StoreWriter writer(db);
            SessionRecorder recorder(writer, session);
            TeeSink sink(recorder, buffer);
            // Scrapes half-way between the whole seconds, none on a window edge.
            for (std::int64_t t = t0 + kSecond / 2; t < t1; t += kSecond) {
                const int n = requests(random);
                for (int i = 0; i < n; ++i) {
                    const double v = ttft(random);
                    sum += v;
                    ++count;
                    for (std::size_t b = 0; b <= bounds.size(); ++b)
                        if (b == bounds.size() || v <= bounds[b]) {
                            cumulative[b] += 1;
                            if (t > t1 - 30 * kSecond)
                                span[b] += 1;
                        }
                }
                std::string text = "# TYPE vllm:time_to_first_token_seconds histogram\n";
                for (std::size_t b = 0; b <= bounds.size(); ++b) {
                    char line[160];
                    std::snprintf(line, sizeof line,
                                  "vllm:time_to_first_token_seconds_bucket{le=\"%s\"} %.0f\n",
                                  b == bounds.size() ? "+Inf"
                                                     : QByteArray::number(bounds[b]).constData(),
                                  cumulative[b]);
                    text += line;
                }
                text += "vllm:time_to_first_token_seconds_sum " + std::to_string(sum) + "\n";
                text += "vllm:time_to_first_token_seconds_count " + std::to_string(count) + "\n";
                const auto readings = mapper.update(PrometheusTextParser::parse(text), t);
                sink.write(t, readings);
                for (const auto& r : readings)
                    if (r.metric.path == "engine/e:8000/ttft_p99_s")
                        lastP99 = {static_cast<double>(t), r.value};
            }
            writer.stop();
        }
        HistogramQuantile::Buckets exact;
        for (std::size_t b = 0; b <= bounds.size(); ++b)
            exact.emplace_back(b == bounds.size() ? INFINITY : bounds[b], span[b]);
        const double p50 = HistogramQuantile::compute(0.5, exact);
        const double p99 = HistogramQuantile::compute(0.99, exact);

        // The live view, as MainWindow::refreshLiveBand computes it from the buffer.
        const auto metrics = buffer.metrics();
        const std::int64_t window = std::max<std::int64_t>(2 * kSecond, (t1 - t0) / 120);
        auto read = [&](std::int64_t id, std::int64_t from, std::int64_t to, int points) {
            return buffer.decimated(id, from, to, points);
        };
        const auto live =
            SessionAnalysis::analyzeSeries(metrics, read, t0 / window * window, t1, window);
        const auto tiles =
            StatTiles::compute(metrics, ChartCatalog::build(metrics, {}), read, t0, t1, 60, &live);
        const auto& tile =
            *std::find_if(tiles.begin(), tiles.end(), [](const auto& t) { return t.id == "ttft"; });
        QVERIFY2(tile.value && tile.second, tile.absentReason.c_str());
        QVERIFY(std::abs(*tile.value - p50) < 1e-9);
        QVERIFY(std::abs(*tile.second - p99) < 1e-9);
        QCOMPARE(tile.detail,
                 std::to_string(static_cast<long>(span.back())) + " requests in the last 30 s");
        // The chart's last point pools the same 30 scrapes.
        QCOMPARE(lastP99.size(), std::size_t(2));
        QVERIFY(std::abs(lastP99[1] - p99) < 1e-9);
        // The In-view line over those 30 s, and `analyze` on the stored session.
        Store store(db, Store::Mode::ReadOnly);
        const auto stored =
            SessionAnalysis::analyzeRange(store, session, t1 - 30 * kSecond, t1, window);
        QVERIFY(stored.ttft.ttft);
        QVERIFY(std::abs(*stored.ttft.ttft->quantile(0.5) - p50) < 1e-9);
        QVERIFY(std::abs(*stored.ttft.ttft->quantile(0.99) - p99) < 1e-9);
        const QString inView =
            BottleneckBand::rangeSummary(BottleneckBand::spansOf(live, t1), -30, 0);
        QVERIFY2(inView.contains(QString::fromStdString(stored.ttft.quantileText())),
                 qPrintable(inView + "\n" + QString::fromStdString(stored.ttft.quantileText())));
    }

    void paintsOnlyRecordedTimeAndHatchesUnknown() {
        BottleneckBand band;
        band.resize(600, band.height());
        band.setPlotArea(0, 600);
        band.setTimeRange(0, 60);
        band.setSpans(BottleneckBand::spansOf(analysis(), 0));
        QImage image(band.size(), QImage::Format_ARGB32);
        image.fill(Qt::white);
        band.render(&image);
        const int y = 8; // inside the lane
        const QColor background = band.palette().color(QPalette::AlternateBase);
        const QColor idle(BottleneckClassifier::color(Class::Idle));
        for (int x = 0; x < 190; x += 10) {
            QCOMPARE(image.pixelColor(x, y), background);
            QVERIFY(image.pixelColor(x, y) != idle);
        }
        QCOMPARE(image.pixelColor(350, y),
                 QColor(BottleneckClassifier::color(Class::StorageBound)));
        // The unknown span shows both its pale colour and the hatch.
        QSet<QRgb> colours;
        for (int x = 205; x < 295; ++x)
            for (int yy = 3; yy < 15; ++yy)
                colours.insert(image.pixel(x, yy));
        QVERIFY(colours.contains(QColor(BottleneckClassifier::color(Class::Unknown)).rgb()));
        QVERIFY(colours.contains(QColor(110, 110, 110).rgb()));
    }
};

QTEST_MAIN(TestBottleneckBand)
#include "tst_bottleneckband.moc"
