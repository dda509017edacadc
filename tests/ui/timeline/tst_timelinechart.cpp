// The timeline chart's two raster renderers: lines drawn by LinePlotItem (the default) and
// QtCharts' own line series must put the same values at the same pixels.
#include "ui/timeline/LinePlotItem.h"
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineView.h"

#include <QChart>
#include <QChartView>
#include <QGraphicsScene>
#include <QGraphicsTextItem>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QMenu>
#include <QSignalSpy>
#include <QValueAxis>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <memory>

using namespace tierscope;

Q_DECLARE_METATYPE(TimelineChart::Renderer)

namespace {

constexpr std::int64_t kSecond = 1000000000LL;

// One sample per second from t = 0 to t = seconds, all equal to `value`.
std::vector<Bucket> flat(int seconds, double value) {
    std::vector<Bucket> out;
    for (int k = 0; k < seconds; ++k)
        out.push_back({k * kSecond, kSecond, value, value, value, 1});
    return out;
}

ChartCatalog::Chart percentChart() {
    return {"cpu", "CPU", ChartCatalog::Unit::Percent, {{1, "low", false}, {2, "high", false}}, {}};
}

// How many pixels of `row` inside `plot` have exactly `color`.
int pixelsOnRow(const QImage& image, const QRect& plot, int row, QColor color) {
    int n = 0;
    for (int x = plot.left() + 1; x < plot.right(); ++x)
        for (int dy = -1; dy <= 1; ++dy)
            if (image.pixelColor(x, row + dy) == color) {
                ++n;
                break;
            }
    return n;
}

// Shown at 900 x 230 with a minute of 50 % on its first series, 0-60 s in view.
bool showMinute(TimelineChart& chart) {
    chart.resize(900, 230);
    chart.show();
    if (!QTest::qWaitForWindowExposed(&chart))
        return false;
    chart.setData({flat(61, 50), {}}, 0);
    chart.setTimeRange(0, 60, "s");
    return true;
}

QColor penOf(TimelineChart& chart, int series) {
    return static_cast<QLineSeries*>(chart.chart()->series().at(series))->pen().color();
}

} // namespace

class TimelineChartTest : public QObject {
    Q_OBJECT

  private slots:
    void drawsEachValueAtItsHeight_data() {
        QTest::addColumn<TimelineChart::Renderer>("renderer");
        QTest::newRow("painter") << TimelineChart::Renderer::Painter;
        QTest::newRow("qtcharts series") << TimelineChart::Renderer::Series;
    }

    // 25 % and 75 % on a 0-100 % axis: each series' colour runs along its row across the plot,
    // and not along the other's.
    void drawsEachValueAtItsHeight() {
        QFETCH(TimelineChart::Renderer, renderer);
        TimelineChart chart(percentChart(), renderer, false);
        chart.resize(900, 230);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setTimeRange(0, 100, "s");
        chart.setData({flat(101, 25), flat(101, 75)}, -kSecond / 2); // points at whole seconds
        QCoreApplication::processEvents();
        const QImage image = chart.grab().toImage();
        const QRect plot = chart.plotRectIn(&chart);
        QVERIFY(plot.width() > 500);
        const int low = plot.bottom() - plot.height() / 4;
        const int high = plot.bottom() - 3 * plot.height() / 4;
        const QColor lowColor = penOf(chart, 0), highColor = penOf(chart, 1);
        QVERIFY(lowColor != highColor);
        QVERIFY2(pixelsOnRow(image, plot, low, lowColor) > plot.width() * 9 / 10,
                 qPrintable(QString::number(pixelsOnRow(image, plot, low, lowColor))));
        QVERIFY(pixelsOnRow(image, plot, high, highColor) > plot.width() * 9 / 10);
        QCOMPARE(pixelsOnRow(image, plot, high, lowColor), 0);
        QCOMPARE(pixelsOnRow(image, plot, low, highColor), 0);
        QCOMPARE(chart.pointCount(), 202);
    }

    // A stacked chart (the TTFT breakdown's parts): 20 % and 30 % draw their top edges at 20 %
    // and 50 %, the second part's band fills between them in one colour, the first part's band
    // below in another, and above the stack is the background.
    void stackedPartsAreBandsOnEachOther() {
        ChartCatalog::Chart spec{"parts", "parts", ChartCatalog::Unit::Percent, {}, {}};
        ChartCatalog::Series queue, storage;
        queue.metricId = 1;
        queue.name = "queue";
        queue.stack = 1;
        storage.metricId = 2;
        storage.name = "storage wait";
        storage.stack = 2;
        spec.series = {queue, storage};
        spec.stacked = true;
        TimelineChart chart(spec, TimelineChart::Renderer::Painter, false);
        chart.resize(900, 230);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setTimeRange(0, 100, "s");
        chart.setData({flat(101, 20), flat(101, 30)}, -kSecond / 2);
        QCoreApplication::processEvents();
        const QImage image = chart.grab().toImage();
        const QRect plot = chart.plotRectIn(&chart);
        auto row = [&](double percent) {
            return plot.bottom() - static_cast<int>(plot.height() * percent / 100);
        };
        QVERIFY(pixelsOnRow(image, plot, row(50), penOf(chart, 1)) > plot.width() * 9 / 10);
        QCOMPARE(pixelsOnRow(image, plot, row(30), penOf(chart, 1)), 0);
        QVERIFY(pixelsOnRow(image, plot, row(20), penOf(chart, 0)) > plot.width() * 9 / 10);
        const int x = plot.center().x();
        const QColor inFirst = image.pixelColor(x, row(10));
        const QColor inSecond = image.pixelColor(x, row(35)),
                     alsoSecond = image.pixelColor(x, row(45));
        const QColor above = image.pixelColor(x, row(75));
        QCOMPARE(inSecond, alsoSecond);
        QVERIFY(inFirst != inSecond);
        QVERIFY(inSecond != above);
        QVERIFY(inFirst != above);
        // The crosshair reads each part's own value, not its top edge.
        chart.setCrosshair(50);
        QVERIFY2(chart.crosshairText().contains("storage wait: 30"),
                 qPrintable(chart.crosshairText()));
    }

    // Toggled off in the legend: the line goes, the other stays.
    void aHiddenSeriesIsNotDrawn() {
        TimelineChart chart(percentChart(), TimelineChart::Renderer::Painter, false);
        chart.resize(900, 230);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setTimeRange(0, 100, "s");
        chart.setData({flat(101, 25), flat(101, 75)}, -kSecond / 2);
        emit chart.chart()->legend()->markers().at(0)->clicked();
        QVERIFY(!chart.seriesVisible(0));
        QCoreApplication::processEvents();
        const QImage image = chart.grab().toImage();
        const QRect plot = chart.plotRectIn(&chart);
        QCOMPARE(pixelsOnRow(image, plot, plot.bottom() - plot.height() / 4, penOf(chart, 0)), 0);
        QVERIFY(pixelsOnRow(image, plot, plot.bottom() - 3 * plot.height() / 4, penOf(chart, 1)) >
                plot.width() * 9 / 10);
    }

    // Of 200 s of points, a 50 s window maps only its own points plus one either side, so the
    // line reaches both edges and nothing far outside is stroked and clipped.
    void mapsOnlyTheTimeWindow() {
        TimelineChart chart(percentChart(), TimelineChart::Renderer::Painter, false);
        chart.resize(900, 230);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setData({flat(201, 50), {}}, -kSecond / 2);
        chart.setTimeRange(100.5, 150.5, "s");
        const QPolygonF line = chart.plotItem()->mapped(0);
        const QRectF plot = chart.chart()->plotArea();
        QCOMPARE(line.size(), 52); // 101 ... 150, plus 100 and 151
        QVERIFY(line.front().x() < plot.left());
        QVERIFY(line.back().x() > plot.right());
        QCOMPARE(line[1].x(), plot.left() + 0.5 * plot.width() / 50);
        QCOMPARE(line[1].y(), plot.bottom() - plot.height() / 2);
        QVERIFY(chart.plotItem()->mapped(1).isEmpty());
    }

    // A source that went quiet for half a minute (an engine that served nothing) is drawn
    // with a gap there: no line across it, and no zeros.
    void aGapInTheDataIsAGap() {
        TimelineChart chart(percentChart(), TimelineChart::Renderer::Painter, false);
        chart.resize(900, 230);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        auto samples = flat(101, 50);
        samples.erase(samples.begin() + 40, samples.begin() + 70); // nothing from 40 s to 69 s
        chart.setTimeRange(0, 100, "s");
        chart.setData({samples, {}}, -kSecond / 2);
        const QPolygonF line = chart.plotItem()->mapped(0);
        QCOMPARE(std::count_if(line.begin(), line.end(),
                               [](const QPointF& p) { return std::isnan(p.y()); }),
                 qsizetype(1));
        QCoreApplication::processEvents();
        const QImage image = chart.grab().toImage();
        const QRect plot = chart.plotRectIn(&chart);
        const int row = plot.bottom() - plot.height() / 2;
        auto drawn = [&](double fromS, double toS) {
            QRect part = plot;
            part.setLeft(plot.left() + static_cast<int>(fromS / 100 * plot.width()));
            part.setRight(plot.left() + static_cast<int>(toS / 100 * plot.width()));
            return pixelsOnRow(image, part, row, penOf(chart, 0));
        };
        QCOMPARE(drawn(45, 65), 0);
        QVERIFY(drawn(5, 35) > 0);
        QVERIFY(drawn(75, 95) > 0);
        // Samples at their usual spacing are never broken apart.
        chart.setData({flat(101, 50), {}}, -kSecond / 2);
        const QPolygonF whole = chart.plotItem()->mapped(0);
        QVERIFY(std::none_of(whole.begin(), whole.end(),
                             [](const QPointF& p) { return std::isnan(p.y()); }));
    }

    // An idle source's zeros lie on the axis, where they read as an empty chart: the chart
    // says so. Any non-zero value, or no data at all, removes the note.
    void zerosThroughoutTheViewAreSaid() {
        TimelineChart chart(percentChart(), TimelineChart::Renderer::Painter, false);
        QVERIFY(showMinute(chart));
        QVERIFY(!chart.zeroNoted());
        chart.setData({flat(61, 0), flat(61, 0)}, 0);
        QVERIFY(chart.zeroNoted());
        chart.setData({flat(61, 0), flat(61, 1)}, 0);
        QVERIFY(!chart.zeroNoted());
        chart.setData({{}, {}}, 0);
        QVERIFY(!chart.zeroNoted());
    }

    // Zoomed in, the store returns raw samples of width 0: the crosshair shows the nearest one
    // wherever the cursor falls between them, at every zoom level, but nothing in a gap.
    void crosshairFindsRawSamplesAtEveryZoom_data() {
        QTest::addColumn<double>("span");
        QTest::newRow("2 s") << 2.0;
        QTest::newRow("10 s") << 10.0;
        QTest::newRow("60 s") << 60.0;
    }
    void crosshairFindsRawSamplesAtEveryZoom() {
        QFETCH(double, span);
        TimelineChart chart(percentChart(), TimelineChart::Renderer::Painter, false);
        chart.resize(900, 230);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        // 10 Hz for 30 s, value = sample index; then nothing for 20 s; then 10 s more.
        std::vector<Bucket> raw;
        for (int i = 0; i < 600; ++i) {
            const double v = i;
            if (i < 300 || i >= 500)
                raw.push_back({i * kSecond / 10, 0, v, v, v, 1});
        }
        chart.setData({raw, {}}, 0);
        chart.setTimeRange(15.0 - span / 2, 15.0 + span / 2, "s");
        chart.setCrosshair(15.04); // between samples 150 and 151, nearer 150
        QCOMPARE(chart.crosshairText(), QString("low: 150%"));
        chart.setCrosshair(15.07);
        QCOMPARE(chart.crosshairText(), QString("low: 151%"));
        chart.setTimeRange(40.0 - span / 2, 40.0 + span / 2, "s");
        chart.setCrosshair(40.0); // ten seconds into the gap: absent, not a neighbour's value
        QVERIFY2(chart.crosshairText().isEmpty(), qPrintable(chart.crosshairText()));
    }

    // Time ticks fall on a 1-2-5 step from zero with enough decimals to tell them apart, and a
    // live range sliding by a fraction of a second keeps the same labels; the value axis tops
    // out at a round number.
    void ticksAreRoundAndStayPutWhileScrolling() {
        TimelineChart chart(percentChart(), TimelineChart::Renderer::Painter, false);
        chart.resize(900, 230);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        auto isOneTwoFive = [](double step) {
            const double m = step / std::pow(10.0, std::floor(std::log10(step)));
            return std::abs(m - 1) < 1e-9 || std::abs(m - 2) < 1e-9 || std::abs(m - 5) < 1e-9;
        };
        chart.setTimeRange(0, 87, "s");
        QVERIFY2(isOneTwoFive(chart.timeTickStep()),
                 qPrintable(QString::number(chart.timeTickStep())));
        QVERIFY(87 / chart.timeTickStep() <= 12);
        QCOMPARE(chart.timeLabelFormat(), QString("%.0f"));
        chart.setTimeRange(0, 2, "s");
        QVERIFY(isOneTwoFive(chart.timeTickStep()));
        QVERIFY(chart.timeTickStep() < 1);
        QCOMPARE(chart.timeLabelFormat(), QString("%.1f"));
        chart.setTimeRange(-60.37, 0, "seconds ago");
        const double step = chart.timeTickStep();
        chart.setTimeRange(-60.27, 0, "seconds ago");
        QCOMPARE(chart.timeTickStep(), step);
        auto* axis = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Horizontal).front());
        QCOMPARE(axis->tickType(), QValueAxis::TicksDynamic);
        QCOMPARE(axis->tickAnchor(), 0.0);
        QVERIFY(!axis->isTitleVisible()); // the view shows it once, above the charts

        ChartCatalog::Chart bytes{
            "read", "Read", ChartCatalog::Unit::BytesPerSecond, {{1, "nvme0n1", false}}, {}};
        TimelineChart rate(bytes, TimelineChart::Renderer::Painter, false);
        rate.setData({flat(10, 87e6)}, 0); // 87 MB/s: an axis to 100 in steps of 20
        QCOMPARE(rate.valueTop(), 100.0);
        QCOMPARE(rate.valueTickStep(), 20.0);
    }

    // A short chart (a small screen, a two-line legend) has fewer value labels rather than
    // labels QtCharts elides to "...": every one it shows is a number.
    void aShortChartKeepsItsValueLabelsReadable() {
        ChartCatalog::Chart bytes{"read",
                                  "Read",
                                  ChartCatalog::Unit::BytesPerSecond,
                                  {{1, "nvme0n1", false}, {2, "nvme1n1", false}},
                                  {}};
        TimelineChart chart(bytes, TimelineChart::Renderer::Painter, false);
        chart.resize(900, 230);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setData({flat(10, 487e6), flat(10, 100e6)}, 0);
        chart.setTimeRange(0, 10, "s");
        // The visible texts; of the value axis only: left of the plot.
        const auto labels = [&](bool valueAxis) {
            QStringList out;
            const double left = chart.chart()->plotArea().left();
            for (auto* item : chart.chart()->scene()->items())
                if (auto* text = dynamic_cast<QGraphicsTextItem*>(item); text && text->isVisible())
                    if (!valueAxis || text->sceneBoundingRect().right() <= left + 1)
                        out << text->toPlainText();
            return out;
        };
        // 0 .. 500 MB/s at every height the view gives a chart (150 px and up), in fewer round
        // steps as the chart gets shorter, and no text elided.
        double previousStep = 0;
        for (const int height : {230, 190, 150}) {
            chart.setChartHeight(height);
            QTRY_COMPARE(chart.height(), height);
            QTRY_VERIFY2(!labels(false).join('|').contains("..."),
                         qPrintable(QString::number(height) + ": " + labels(false).join('|')));
            QVERIFY2(labels(true).contains("0") && labels(true).size() >= 2,
                     qPrintable(labels(true).join('|')));
            QVERIFY(chart.valueTop() >= 487.0);
            QCOMPARE(std::fmod(chart.valueTop(), chart.valueTickStep()), 0.0);
            QVERIFY(chart.valueTickStep() >= previousStep);
            previousStep = chart.valueTickStep();
        }
        QVERIFY(previousStep > 100.0); // at 150 px: fewer labels than the five steps of 100
    }

    // A series keeps its colour in the dark theme: the theme changes the panel, not the data.
    void seriesColoursStayTheSameInTheDarkTheme() {
        ChartCatalog::Chart spec{"read",
                                 "Read",
                                 ChartCatalog::Unit::BytesPerSecond,
                                 {{1, "a", false}, {2, "b", false}, {3, "c", false}},
                                 {}};
        TimelineChart light(spec, TimelineChart::Renderer::Painter, false);
        TimelineChart dark(spec, TimelineChart::Renderer::Painter, true);
        QSet<QRgb> distinct;
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(penOf(dark, i), penOf(light, i));
            distinct.insert(penOf(light, i).rgb());
        }
        QCOMPARE(distinct.size(), 3);
    }

    // Crowded notes are stacked, then left out (their lines stay), never printed over another.
    void crowdedMarkerNotesDoNotOverlap() {
        TimelineChart chart(percentChart(), TimelineChart::Renderer::Painter, false);
        QVERIFY(showMinute(chart));
        std::vector<TimelineChart::Marker> many;
        for (int i = 0; i < 20; ++i)
            many.push_back({10 + i * 0.5, QString("note %1").arg(i)});
        chart.setMarkers(many);
        QCOMPARE(chart.markerLines().size(), std::size_t(20));
        const QStringList labels = chart.markerLabels();
        QVERIFY(!labels.isEmpty() && labels.size() < 20);
        const auto rects = chart.markerLabelRects();
        for (std::size_t a = 0; a < rects.size(); ++a)
            for (std::size_t b = a + 1; b < rects.size(); ++b)
                QVERIFY2(!rects[a].intersects(rects[b]), qPrintable(labels.join(" | ")));
    }

    // A request series is a dot per request: the colour is at each request's value and not on
    // the straight line between two of them, which would draw TTFTs nobody measured.
    void requestSeriesAreDotsNotLines() {
        ChartCatalog::Chart spec{
            "load-ttft", "TTFT", ChartCatalog::Unit::Percent, {{1, "TTFT", false, {}, true}}, {}};
        TimelineChart chart(spec, TimelineChart::Renderer::Painter, false);
        chart.resize(900, 230);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        QVERIFY(chart.plotItem()->dots(0));
        chart.setTimeRange(0, 60, "s");
        chart.setData({{{10 * kSecond, 0, 25, 25, 25, 1}, {50 * kSecond, 0, 75, 75, 75, 1}}}, 0);
        QCoreApplication::processEvents();
        const QImage image = chart.grab().toImage();
        const QPolygonF at = chart.plotItem()->mapped(0);
        QCOMPARE(at.size(), 2); // one point a request: its min and max are one value
        const QColor color = penOf(chart, 0);
        const QPoint offset = chart.chart()->scene()->views().front()->mapTo(&chart, QPoint(0, 0));
        auto colourAt = [&](QPointF p) { return image.pixelColor(offset + p.toPoint()) == color; };
        QVERIFY(colourAt(at.front()));
        QVERIFY(colourAt(at.back()));
        QVERIFY(!colourAt((at.front() + at.back()) / 2)); // no line between them
    }

    // Where a request left on schedule its two dots coincide: the actual send's (the first
    // series) is drawn on top, not hidden under the scheduled one.
    void theFirstDotSeriesIsOnTop() {
        ChartCatalog::Chart spec{
            "load-ttft",
            "TTFT",
            ChartCatalog::Unit::Percent,
            {{1, "actual", false, {}, true}, {2, "scheduled", false, {}, true}},
            {}};
        TimelineChart chart(spec, TimelineChart::Renderer::Painter, false);
        chart.resize(900, 230);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));
        chart.setTimeRange(0, 60, "s");
        const std::vector<Bucket> one = {{30 * kSecond, 0, 50, 50, 50, 1}};
        chart.setData({one, one}, 0);
        QCoreApplication::processEvents();
        const QImage image = chart.grab().toImage();
        const QPoint offset = chart.chart()->scene()->views().front()->mapTo(&chart, QPoint(0, 0));
        const QPoint at = offset + chart.plotItem()->mapped(0).front().toPoint();
        QVERIFY(penOf(chart, 0) != penOf(chart, 1));
        QCOMPARE(image.pixelColor(at), penOf(chart, 0));
    }

    // A routine step (engine-start of each run) is a short tick at the top of the plot with
    // its note as a tooltip: forty labelled lines covered an experiment's data.
    void routineMarkersAreTicksWithoutLabels() {
        TimelineChart chart(percentChart(), TimelineChart::Renderer::Painter, false);
        QVERIFY(showMinute(chart));
        chart.setMarkers({{15.0, "engine-start: disk", true}, {30.0, "cache flushed", false}});
        const QRectF plot = chart.chart()->plotArea();
        QCOMPARE(chart.markerLabels(), QStringList{"cache flushed"});
        const auto lines = chart.markerLines();
        QCOMPARE(lines.size(), std::size_t(2));
        QCOMPARE(lines[0].x1(), plot.left() + plot.width() / 4);
        QCOMPARE(lines[0].y1(), plot.top());
        QVERIFY(lines[0].y2() > plot.top() && lines[0].y2() < plot.top() + plot.height() / 10);
        QCOMPARE(lines[1].y2(), plot.bottom());
        const auto items = chart.chart()->scene()->items(QPointF(lines[0].x1(), plot.top() + 2));
        QVERIFY(std::any_of(items.begin(), items.end(), [](const QGraphicsItem* item) {
            return item->toolTip() == "engine-start: disk";
        }));
    }

    // A marker is a vertical line at its moment with its note beside it; outside the time
    // range it is not drawn.
    void drawsMarkersAtTheirMoment() {
        TimelineChart chart(percentChart(), TimelineChart::Renderer::Painter, false);
        QVERIFY(showMinute(chart));
        chart.setMarkers({{15.0, "cache flushed"}, {90.0, "later"}});
        const QRectF plot = chart.chart()->plotArea();
        QCOMPARE(chart.markerLabels(), QStringList{"cache flushed"});
        QCOMPARE(chart.markerLines().size(), std::size_t(1));
        const QLineF line = chart.markerLines().front();
        QCOMPARE(line.x1(), plot.left() + plot.width() / 4);
        QCOMPARE(line.x2(), line.x1());
        QCOMPARE(line.y1(), plot.top());
        QCOMPARE(line.y2(), plot.bottom());
        // Drawn: the marker's colour appears in the line's pixel column.
        const QImage image = chart.grab().toImage();
        const QPoint at = chart.chart()->scene()->views().front()->mapTo(
            &chart, QPoint(static_cast<int>(line.x1()), static_cast<int>(plot.center().y())));
        bool orange = false;
        for (int dx = -1; dx <= 1; ++dx)
            orange |= image.pixelColor(at.x() + dx, at.y()) == QColor(230, 120, 0);
        QVERIFY(orange);

        chart.setTimeRange(70, 130, "s"); // pan: the first leaves, the second comes in
        QCOMPARE(chart.markerLabels(), QStringList{"later"});
        chart.setMarkers({});
        QVERIFY(chart.markerLabels().isEmpty());
    }

    // A right-click on a chart offers to export that chart; the view names which one asked.
    void aChartsContextMenuExportsIt() {
        TimelineView view;
        view.setCharts({percentChart()});
        TimelineChart* chart = view.chart("cpu");
        QVERIFY(chart);
        QSignalSpy asked(&view, &TimelineView::chartExportRequested);
        std::unique_ptr<QMenu> menu(chart->contextMenu());
        QCOMPARE(menu->actions().size(), 1);
        QCOMPARE(menu->actions().front()->text(), QString("Export this chart…"));
        menu->actions().front()->trigger();
        QCOMPARE(asked.count(), 1);
        QCOMPARE(asked.first().first().toString(), QString("cpu"));
    }
};

QTEST_MAIN(TimelineChartTest)
#include "tst_timelinechart.moc"
