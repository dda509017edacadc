#include "ui/timeline/BottleneckBand.h"

#include <QImage>
#include <QSignalSpy>
#include <QtTest>
#include <cmath>

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
                                "25 %. mean TTFT 500.0 ms over 4 requests"),
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
