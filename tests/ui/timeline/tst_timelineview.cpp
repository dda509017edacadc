// The timeline's charts scrolled out of view: the live view neither reads nor draws them, and
// they come back with data when scrolled into view.
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineView.h"

#include <QChartView>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QtTest>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1000000000LL;

std::vector<ChartCatalog::Chart> charts(int count) {
    std::vector<ChartCatalog::Chart> out;
    for (int c = 0; c < count; ++c)
        out.push_back({"c" + std::to_string(c),
                       "chart " + std::to_string(c),
                       ChartCatalog::Unit::Percent,
                       {{c + 1, "series " + std::to_string(c), false}},
                       {}});
    return out;
}

std::map<std::int64_t, std::vector<Bucket>> minuteOf(const std::vector<ChartCatalog::Chart>& specs,
                                                     double value) {
    std::map<std::int64_t, std::vector<Bucket>> out;
    for (const auto& spec : specs)
        for (const auto& s : spec.series)
            for (int k = 0; k < 60; ++k)
                out[s.metricId].push_back({k * kSecond, kSecond, value, value, value, 1});
    return out;
}

// Counts the paints of a chart's plot.
class PaintCounter : public QObject {
  public:
    int paints = 0;
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (event->type() == QEvent::Paint)
            ++paints;
        return QObject::eventFilter(watched, event);
    }
};

} // namespace

class TestTimelineView : public QObject {
    Q_OBJECT
  private slots:
    void chartsOutOfViewAreNeitherReadNorRepainted() {
        TimelineView view;
        view.resize(900, 600); // room for about two charts of eight
        view.setCharts(charts(8));
        view.setTimeRange(0, 60, "s");
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QCoreApplication::processEvents();

        const auto inView = view.visibleSpecs();
        QVERIFY2(!inView.empty() && inView.size() < 8, qPrintable(QString::number(inView.size())));
        QCOMPARE(inView.front().id, view.charts().front()->spec().id);
        TimelineChart* last = view.charts().back();
        for (const auto& spec : inView)
            QVERIFY(spec.id != last->spec().id);

        PaintCounter first, hidden;
        view.charts().front()->findChild<QChartView*>()->viewport()->installEventFilter(&first);
        last->findChild<QChartView*>()->viewport()->installEventFilter(&hidden);
        view.setVisibleData(minuteOf(inView, 40), 0);
        QTRY_VERIFY(first.paints > 0);
        QVERIFY(view.charts().front()->pointCount() > 0);
        QCOMPARE(last->pointCount(), 0);
        QCoreApplication::processEvents();
        QCOMPARE(hidden.paints, 0);

        // Scrolled to the end: the view says so (the live view then draws a frame for it).
        QSignalSpy moved(&view, &TimelineView::viewportMoved);
        auto* bar = view.findChild<QScrollArea*>()->verticalScrollBar();
        bar->setValue(bar->maximum());
        QVERIFY(moved.count() >= 1);
        const auto now = view.visibleSpecs();
        QVERIFY(std::any_of(now.begin(), now.end(),
                            [&](const auto& s) { return s.id == last->spec().id; }));
        view.setVisibleData(minuteOf(now, 40), 0);
        QVERIFY(last->pointCount() > 0);
        // The first chart, now out of view, kept what it had: a later frame reaches it.
        QVERIFY(view.charts().front()->pointCount() > 0);
    }

    // A full frame (setData) still replaces every series, in view or not.
    void aFullFrameReplacesEverySeries() {
        TimelineView view;
        view.resize(900, 600);
        const auto specs = charts(4);
        view.setCharts(specs);
        view.setTimeRange(0, 60, "s");
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setVisibleData(minuteOf(specs, 40), 0);
        view.setData({}, 0);
        QCOMPARE(view.charts().front()->pointCount(), 0);
    }
};

QTEST_MAIN(TestTimelineView)
#include "tst_timelineview.moc"
