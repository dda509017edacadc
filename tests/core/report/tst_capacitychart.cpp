#include "core/report/CapacityChart.h"
#include "core/report/ComparisonCharts.h"
#include "core/report/SvgChart.h"

#include <QXmlStreamReader>
#include <QtTest>
#include <cmath>
#include <map>

using namespace tierscope;

namespace {

// What the tests read back from the SVG: the plot's mapping, each point with its whiskers'
// pixel ends and its marker, the SLO lines, every text and the legend's series.
struct Whisker {
    double x1 = 0, y1 = 0, x2 = 0, y2 = 0;
};
struct DrawnPoint {
    QString series, label, holds, fill, title;
    double x = 0, y = 0;
    std::optional<Whisker> xbar, ybar;
};
struct DrawnText {
    double x = 0, y = 0;
    QString anchor, text;
    double size = 12;
};
struct Drawn {
    QString error;
    double width = 0, height = 0;
    double x0 = 0, x1 = 0, y0 = 0, y1 = 0, left = 0, right = 0, top = 0, bottom = 0;
    bool logY = false;
    QStringList series;
    std::vector<DrawnPoint> points;
    std::map<double, double> sloY; // threshold -> the line's pixel y
    std::vector<DrawnText> texts;
    QString allText;

    // Where the plot's own mapping puts a value, in pixels.
    double px(double v) const { return left + (v - x0) / (x1 - x0) * (right - left); }
    double py(double v) const {
        const double share = logY ? std::log(v / y0) / std::log(y1 / y0) : (v - y0) / (y1 - y0);
        return bottom - share * (bottom - top);
    }
    const DrawnPoint* point(const QString& s, const QString& label) const {
        for (const auto& p : points)
            if (p.series == s && p.label == label)
                return &p;
        return nullptr;
    }
};

double num(const QXmlStreamAttributes& a, const char* name) {
    return a.value(QString::fromLatin1(name)).toDouble();
}

Drawn parse(const std::string& svg) {
    Drawn out;
    QXmlStreamReader xml(QByteArray::fromStdString(svg));
    QString series, inSlo;
    double threshold = 0;
    bool inTitle = false, inText = false;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const auto a = xml.attributes();
            const auto cls = a.value("class");
            if (xml.name() == u"svg")
                out.width = num(a, "width"), out.height = num(a, "height");
            if (cls == u"plot") {
                out.x0 = num(a, "data-x0"), out.x1 = num(a, "data-x1");
                out.y0 = num(a, "data-y0"), out.y1 = num(a, "data-y1");
                out.left = num(a, "data-left"), out.right = num(a, "data-right");
                out.top = num(a, "data-top"), out.bottom = num(a, "data-bottom");
                out.logY = a.value("data-y-scale") == u"log";
            }
            if (cls == u"series") {
                series = a.value("data-name").toString();
                out.series << series;
            }
            if (cls == u"point") {
                DrawnPoint p;
                p.series = series;
                p.label = a.value("data-label").toString();
                p.holds = a.value("data-holds").toString();
                p.x = num(a, "data-x"), p.y = num(a, "data-y");
                out.points.push_back(p);
            }
            if (cls == u"xbar" || cls == u"ybar") {
                const Whisker w{num(a, "x1"), num(a, "y1"), num(a, "x2"), num(a, "y2")};
                (cls == u"xbar" ? out.points.back().xbar : out.points.back().ybar) = w;
            }
            if (cls == u"marker" && !out.points.empty() && out.points.back().fill.isEmpty() &&
                !series.isEmpty())
                out.points.back().fill = a.value("fill").toString();
            if (cls == u"slo")
                inSlo = "slo", threshold = num(a, "data-threshold");
            if (xml.name() == u"line" && !inSlo.isEmpty())
                out.sloY[threshold] = num(a, "y1"), inSlo.clear();
            if (xml.name() == u"title")
                inTitle = true;
            if (xml.name() == u"text") {
                inText = true;
                const double size = a.hasAttribute("font-size") ? num(a, "font-size") : 12;
                out.texts.push_back(
                    {num(a, "x"), num(a, "y"), a.value("text-anchor").toString(), {}, size});
            }
        }
        if (xml.isEndElement() && xml.name() == u"title")
            inTitle = false;
        if (xml.isEndElement() && xml.name() == u"text")
            inText = false;
        if (xml.isCharacters()) {
            out.allText += xml.text();
            if (inTitle && !out.points.empty())
                out.points.back().title += xml.text();
            if (inText)
                out.texts.back().text += xml.text();
        }
    }
    if (xml.hasError())
        out.error = xml.errorString();
    return out;
}

KpiLevel level(double estimate, std::optional<std::pair<double, double>> interval, int runs = 3) {
    KpiLevel k;
    k.estimate = estimate;
    k.runs = static_cast<std::size_t>(runs);
    k.geometric = true;
    if (interval)
        k.interval = Interval{interval->first, interval->second};
    return k;
}

SloBound slo(const std::string& text) {
    std::string error;
    const auto s = SloBound::parse(text, error);
    if (!s)
        qFatal("%s", error.c_str());
    return *s;
}

// A sweep at rates 1, 2, 4, 8 that saturates at `saturation` req/s: throughput flattens,
// TTFT p99 climbs past 2 s. Each interval is the estimate -10 % / +20 %.
SweepCurve curve(const std::string& name, double saturation) {
    SweepCurve c;
    c.series = name;
    c.mode = "rate";
    c.slos = {slo("ttft_p99<=2s")};
    for (const double r : {1.0, 2.0, 4.0, 8.0}) {
        SweepCurve::Point p;
        p.label = "rate " + std::to_string(static_cast<int>(r));
        p.load = r;
        p.probe = "grid";
        const double thr = std::min(r, saturation) * 100;
        const double ttft = r <= saturation ? 0.2 * r : 0.2 * r + (r - saturation) * 1.5;
        p.kpis["output_throughput"] = level(thr, std::pair{thr * 0.9, thr * 1.2});
        p.kpis["request_throughput"] = level(thr / 100, std::pair{thr / 110, thr / 80});
        p.kpis["ttft_p99"] = level(ttft, std::pair{ttft * 0.9, ttft * 1.2});
        p.holds = ttft * 1.2 <= 2.0;
        c.points.push_back(p);
    }
    return c;
}

} // namespace

// The throughput-latency chart: what it draws is the sweep's figures, at their places.
class TestCapacityChart : public QObject {
    Q_OBJECT

  private slots:
    // Both arms, each with its points in load order, in the comparison's colours.
    void bothSeriesInLoadOrder() {
        auto a = curve("local", 5);
        std::swap(a.points[1], a.points[3]); // measured out of order: bisection probes last
        const auto svg = ComparisonCharts::capacity({a, curve("nvme-of", 7)}, 900, 480);
        const auto d = parse(svg);
        QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
        QCOMPARE(d.series, (QStringList{"A: local", "B: nvme-of"}));
        QCOMPARE(d.points.size(), std::size_t(8));
        QStringList order;
        for (const auto& p : d.points)
            if (p.series == "A: local")
                order << p.label;
        QCOMPARE(order, (QStringList{"rate 1", "rate 2", "rate 4", "rate 8"}));
        QVERIFY(svg.find("#1f77b4") != std::string::npos); // A's colour, as every chart's
        QVERIFY(svg.find("#e8710a") != std::string::npos); // B's
        QVERIFY(d.allText.contains("Throughput vs TTFT p99 (95 % intervals)"));
        QVERIFY(d.allText.contains("throughput (tok/s)"));
        QVERIFY(d.allText.contains("TTFT p99 (s, log scale)"));
        QCOMPARE(ComparisonCharts::capacityTitle({a}), std::string("Throughput vs TTFT p99 (95 % "
                                                                   "intervals)"));
    }

    // Each point sits at its estimates; its whiskers end at its intervals' ends on both axes
    // (read back through the plot's own mapping, to the 0.1 px the SVG is written at).
    void whiskersEndAtTheIntervals() {
        const auto c = curve("local", 5);
        const auto d = parse(ComparisonCharts::capacity({c}, 1280, 720));
        QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
        QVERIFY(d.logY);        // 0.18 s to 7.3 s: TTFT past the knee on a log axis
        const double px = 0.06; // the SVG's coordinates are rounded to 0.1 px
        for (const auto& p : c.points) {
            const auto* drawn = d.point("local", QString::fromStdString(p.label));
            QVERIFY2(drawn, p.label.c_str());
            const auto& x = p.kpis.at("output_throughput");
            const auto& y = p.kpis.at("ttft_p99");
            QCOMPARE(drawn->x, x.estimate);
            QCOMPARE(drawn->y, y.estimate);
            QVERIFY(drawn->xbar && drawn->ybar);
            QVERIFY(std::abs(drawn->xbar->x1 - d.px(x.interval->lo)) <= px);
            QVERIFY(std::abs(drawn->xbar->x2 - d.px(x.interval->hi)) <= px);
            QVERIFY(std::abs(drawn->ybar->y1 - d.py(y.interval->lo)) <= px);
            QVERIFY(std::abs(drawn->ybar->y2 - d.py(y.interval->hi)) <= px);
            // The horizontal whisker at the point's latency, the vertical at its throughput.
            QVERIFY(std::abs(drawn->xbar->y1 - d.py(y.estimate)) <= px);
            QVERIFY(std::abs(drawn->ybar->x1 - d.px(x.estimate)) <= px);
        }
        // Throughput starts at zero; the log axis spans the lowest to the highest interval end.
        QCOMPARE(d.x0, 0.0);
        QVERIFY(d.x1 >= 500 * 1.2);
        QVERIFY(d.y0 > 0 && d.y0 <= c.points.front().kpis.at("ttft_p99").interval->lo);
        QVERIFY(d.y1 >= c.points.back().kpis.at("ttft_p99").interval->hi);
        QVERIFY(d.allText.contains("TTFT p99 (s, log scale)"));
    }

    // The SLO line at its threshold, with its text; an SLO on another KPI is named below.
    void sloLineAtTheThreshold() {
        auto c = curve("local", 5);
        c.slos.push_back(slo("tpot_p99<=100ms"));
        const auto d = parse(ComparisonCharts::capacity({c}, 900, 480));
        QCOMPARE(d.sloY.size(), std::size_t(1));
        QCOMPARE(d.sloY.begin()->first, 2.0);
        QVERIFY(std::abs(d.sloY.begin()->second - d.py(2.0)) <= 0.06);
        QVERIFY(d.allText.contains("ttft_p99 <= 2 s"));
        QVERIFY(d.allText.contains("tpot_p99 <= 100 ms"));
        QVERIFY(d.allText.contains("not on these axes"));
        // A threshold above every point still shows: the axis reaches it.
        c.slos = {slo("ttft_p99<=30s")};
        const auto high = parse(ComparisonCharts::capacity({c}, 900, 480));
        QVERIFY(high.y1 >= 30.0);
        QVERIFY(high.sloY.begin()->second >= high.top && high.sloY.begin()->second <= high.bottom);
        QCOMPARE(CapacityChart::sloText(slo("goodput>=5")), std::string("goodput >= 5 req/s"));
        QCOMPARE(CapacityChart::sloText(slo("ttft_p99 <= 250ms")),
                 std::string("ttft_p99 <= 250 ms"));
    }

    // Points where the SLOs are not shown to hold are hollow; the others filled; without
    // SLOs every point is filled and the legend says nothing of SLOs.
    void failingPointsAreHollow() {
        const auto c = curve("local", 5);
        const auto d = parse(ComparisonCharts::capacity({c}, 900, 480));
        for (const auto& p : d.points) {
            const auto* source = &c.points[0];
            for (const auto& q : c.points)
                if (QString::fromStdString(q.label) == p.label)
                    source = &q;
            QCOMPARE(p.holds, QString(*source->holds ? "true" : "false"));
            QCOMPARE(p.fill, QString(*source->holds ? "#1f77b4" : "#ffffff"));
            QVERIFY(p.title.contains(*source->holds ? "SLOs hold" : "SLOs not shown to hold"));
        }
        QVERIFY(std::any_of(d.points.begin(), d.points.end(),
                            [](const DrawnPoint& p) { return p.fill == "#ffffff"; }));
        QVERIFY(d.allText.contains("SLOs not shown to hold"));
        auto free = c;
        free.slos.clear();
        for (auto& p : free.points)
            p.holds.reset();
        const auto without = parse(ComparisonCharts::capacity({free}, 900, 480));
        for (const auto& p : without.points)
            QCOMPARE(p.fill, QString("#1f77b4"));
        QVERIFY(without.sloY.empty());
        QVERIFY(!without.allText.contains("SLOs"));
    }

    // A point of one run has no interval: no whiskers, and its title and the legend say so.
    void pointWithoutInterval() {
        auto c = curve("local", 5);
        for (auto& [name, k] : c.points[1].kpis) {
            k.interval.reset();
            k.runs = 1;
        }
        c.points[1].holds = false;
        const auto d = parse(ComparisonCharts::capacity({c}, 900, 480));
        const auto* bare = d.point("local", "rate 2");
        QVERIFY(bare);
        QVERIFY(!bare->xbar && !bare->ybar);
        QVERIFY2(bare->title.contains("no interval"), qPrintable(bare->title));
        QVERIFY(d.allText.contains("1 point without interval"));
        QVERIFY(d.point("local", "rate 1")->xbar.has_value());
    }

    // A point without the KPI (no request of it succeeded) is named, never drawn at zero.
    void pointWithoutTheKpiIsNamed() {
        auto c = curve("local", 5);
        c.points[3].kpis.erase("ttft_p99");
        const auto d = parse(ComparisonCharts::capacity({c}, 900, 480));
        QVERIFY(!d.point("local", "rate 8"));
        QCOMPARE(d.points.size(), std::size_t(3));
        QVERIFY2(d.allText.contains("Not drawn") && d.allText.contains("local rate 8"),
                 qPrintable(d.allText));
        const auto empty = parse(ComparisonCharts::capacity({}, 900, 480));
        QVERIFY(empty.error.isEmpty());
        QVERIFY(empty.allText.contains("no data"));
    }

    // Every name and label is escaped; the SVG stays well-formed XML.
    void labelsAreEscaped() {
        auto c = curve("a<b>&\"c'", 5);
        c.points[0].label = "rate <1> & \"x\"";
        const auto svg = ComparisonCharts::capacity({c, curve("</svg><script>", 7)}, 900, 480);
        const auto d = parse(svg);
        QVERIFY2(d.error.isEmpty(), qPrintable(d.error));
        QVERIFY(svg.find("<script") == std::string::npos);
        QVERIFY(d.series.contains("A: a<b>&\"c'"));
        QVERIFY(d.series.contains("B: </svg><script>"));
        QVERIFY(d.allText.contains("rate <1> & \"x\""));
    }

    // The axes follow the SLO: a TPOT bound puts TPOT on y; without output throughput the
    // request rate is on x; sub-second latencies read in ms.
    void axesFollowTheSlo() {
        auto c = curve("local", 5);
        c.slos = {slo("tpot_p99<=100ms")};
        auto axes = CapacityChart::axesOf({&c});
        QCOMPARE(axes.x, std::string("output_throughput"));
        QCOMPARE(axes.y, std::string("tpot_p99"));
        c.slos.clear();
        for (auto& p : c.points)
            p.kpis.erase("output_throughput");
        axes = CapacityChart::axesOf({&c});
        QCOMPARE(axes.x, std::string("request_throughput"));
        QCOMPARE(axes.y, std::string("ttft_p99"));
        QCOMPARE(CapacityChart::axesOf({&c}, {"goodput", "itl_p50"}).y, std::string("itl_p50"));
        c.points.resize(2); // TTFT p99 from 0.18 s to 0.48 s: linear, from zero, in ms
        const auto d = parse(ComparisonCharts::capacity({c}, 900, 480));
        QVERIFY2(d.allText.contains("TTFT p99 (ms)"), qPrintable(d.allText));
        QVERIFY(!d.logY);
        QCOMPARE(d.y0, 0.0);
        QVERIFY(d.allText.contains("request rate (req/s)"));
    }

    // Nothing leaves the picture, at the sizes the GUI and the exports draw: every text's
    // extent (at its font's average glyph width) lies inside the width and height.
    void nothingIsClipped() {
        auto b = curve("a long arm name that a plan could well give, nvme-of over rdma", 7);
        b.slos.push_back(slo("tpot_p99<=100ms"));
        for (const auto& [w, h] : {std::pair{900, 480}, {1280, 720}, {1920, 1080}, {400, 300}}) {
            const auto d = parse(ComparisonCharts::capacity({curve("local", 5), b}, w, h));
            QVERIFY(d.error.isEmpty());
            for (const auto& t : d.texts) {
                if (t.anchor == "middle" && t.x == 16)
                    continue; // the rotated y-axis title
                const double extent = t.text.size() * t.size * 0.55;
                const double lo = t.anchor == "end"      ? t.x - extent
                                  : t.anchor == "middle" ? t.x - extent / 2
                                                         : t.x;
                const double hi = lo + extent;
                QVERIFY2(lo >= 0 && hi <= w && t.y - t.size >= 0 && t.y <= h,
                         qPrintable(QString("%1x%2: \"%3\" at %4,%5")
                                        .arg(w)
                                        .arg(h)
                                        .arg(t.text)
                                        .arg(t.x)
                                        .arg(t.y)));
            }
            // The plot is below the legend and above the axis titles.
            QVERIFY(d.top > 40 && d.bottom < h - 30 && d.bottom > d.top);
        }
    }
};

QTEST_GUILESS_MAIN(TestCapacityChart)
#include "tst_capacitychart.moc"
