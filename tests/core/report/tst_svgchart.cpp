// The comparison charts' SVG in a view's colours and text size, whiskers clipped to what can be
// read, and the HTML report's order: the verdict, the gates, then the charts.
#include "core/report/ComparisonCharts.h"
#include "core/report/ComparisonReport.h"
#include "core/report/SvgChart.h"

#include <QXmlStreamReader>
#include <QtTest>

using namespace tierscope;

namespace {

// The first <rect>'s fill (the ground) and the root's font size and text colour.
struct Look {
    QString ground, text, fontSize;
    int clipped = 0; // class="clipped" marks
    QStringList tooWide;
    QString error;
};

Look lookOf(const std::string& svg) {
    Look out;
    QXmlStreamReader xml(QByteArray::fromStdString(svg));
    bool inTooWide = false;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const auto a = xml.attributes();
            if (xml.name() == u"svg") {
                out.text = a.value("fill").toString();
                out.fontSize = a.value("font-size").toString();
            }
            if (xml.name() == u"rect" && out.ground.isEmpty())
                out.ground = a.value("fill").toString();
            out.clipped += a.value("class") == u"clipped";
            inTooWide = a.value("class") == u"too-wide";
        }
        if (xml.isCharacters() && inTooWide) {
            out.tooWide << xml.text().toString();
            inTooWide = false;
        }
    }
    if (xml.hasError())
        out.error = xml.errorString();
    return out;
}

KpiComparison kpi(const std::string& name, double a, double b, double lo, double hi, int runs) {
    KpiComparison k;
    k.name = name;
    k.unit = "s";
    k.scale = KpiComparison::Scale::Ratio;
    k.a = a;
    k.b = b;
    k.interval = Interval{lo, hi};
    k.countA = k.countB = static_cast<std::size_t>(runs);
    for (int i = 0; i < runs; ++i) {
        k.runsA.push_back(a);
        k.runsB.push_back(b);
    }
    return k;
}

} // namespace

class TestSvgChart : public QObject {
    Q_OBJECT
  private slots:
    // A dark view gets a dark ground and light text; at scale factor 2 the interface's font is
    // 24 px and so is the chart's text.
    void theChartFollowsTheViewsLook() {
        SvgChart::Style dark = SvgChart::Style::dark();
        dark.background = "#202124";
        dark.fontPx = 24;
        const std::vector<SvgChart::Bar> bars = {{"ttft_p50", -20, {{-30, -10}}, "#2ca02c"}};
        const Look look = lookOf(SvgChart(600, 300, "t", dark).bars("%", bars));
        QCOMPARE(look.error, QString());
        QCOMPARE(look.ground, QString("#202124"));
        QVERIFY(QColor(look.text).lightness() > 180);
        QCOMPARE(look.fontSize, QString("24.0"));
        const Look light = lookOf(SvgChart(600, 300, "t").bars("%", bars));
        QCOMPARE(light.ground, QString("#ffffff"));
        QCOMPARE(light.fontSize, QString("12.0"));
        // Through the comparison charts, every kind takes the style.
        ComparisonSide a, b;
        for (const auto kind : ComparisonCharts::all()) {
            const Look l = lookOf(ComparisonCharts::render(kind, a, b, {}, 600, 300, dark));
            QCOMPARE(l.error, QString());
            QCOMPARE(l.ground, QString("#202124"));
        }
        // The capacity chart takes its colours (its margins keep 12 px text).
        const Look capacity = lookOf(ComparisonCharts::capacity({}, 600, 300, {}, {}, dark));
        QCOMPARE(capacity.ground, QString("#202124"));
        QCOMPARE(capacity.fontSize, QString("12.0"));
    }

    // The 2-run side whose whisker reached +3,700 %: an interval end past 3x the
    // largest bar is clipped and marked with an arrow; with 2 runs the interval is not drawn
    // but said in words. The figures stay exact in the data attributes.
    void wideWhiskersAreClippedAndMarked() {
        const std::vector<SvgChart::Bar> bars = {
            {"ttft_p50", -20, {{-30, -10}}, "#2ca02c", 5},
            {"throughput", 8, {{-150, 90}}, "#999999", 3},
            {"model_load_time", 40, {{-60, 3700}}, "#999999", 2},
        };
        const std::string svg = SvgChart(900, 480, "t").bars("%", bars);
        const Look look = lookOf(svg);
        QCOMPARE(look.error, QString());
        QCOMPARE(look.clipped, 1); // throughput's -150 %, past 3 x 40 %: an arrow
        // In two lines across the bar's end, nothing else in them (a <title> in a <text> is
        // drawn by Qt's renderer).
        QCOMPARE(look.tooWide.join(' '), QString(SvgChart::kTooWide));
        QCOMPARE(look.tooWide.size(), 2);
        QVERIFY(svg.find("data-hi=\"3700\"") != std::string::npos);
        QVERIFY(svg.find("Axis clipped at 3x the largest change") != std::string::npos);
        // Nothing past the clip: the bars keep their height.
        const std::string calm =
            SvgChart(900, 480, "t").bars("%", {{"ttft_p50", -20, {{-30, -10}}, "#2ca02c", 5}});
        QCOMPARE(lookOf(calm).clipped, 0);
        QVERIFY(calm.find("Axis clipped") == std::string::npos);
    }

    // The report opens with the answer: right after the heading, the verdict sentence, then
    // the gates, then the charts, and only then the KPI table.
    void theHtmlOpensWithTheVerdictAndGates() {
        ComparisonResult in;
        in.labelA = "disk";
        in.labelB = "nvme-of";
        in.kpis.push_back(kpi("ttft_p50", 2.0, 1.5, 0.70, 0.80, 5));
        std::string error;
        const auto gate = Gate::parse("ttft_p50 <= -20%", error);
        QVERIFY(gate);
        in.gates.push_back({*gate, Gate::Result(Gate::Verdict::Pass, "interval below -20 %")});
        in.charts.push_back({"kpi-bars", "Change of B against A", "<svg id=\"c\"></svg>"});
        const std::string html = ComparisonReport::html(in);
        const auto h1 = html.find("<h1>A/B comparison</h1>\n");
        QVERIFY(h1 != std::string::npos);
        const auto after = h1 + std::string("<h1>A/B comparison</h1>\n").size();
        const std::string verdict = "<p class=\"headline\"><b>Verdict:</b> ";
        QVERIFY2(html.compare(after, verdict.size(), verdict) == 0, html.substr(after, 80).c_str());
        const auto gates = html.find("<h2>Gates</h2>");
        const auto chart = html.find("<svg id=\"c\">");
        const auto table = html.find("<th>KPI</th>");
        QVERIFY(after < gates && gates < chart && chart < table);
        // Between the verdict and the gates, nothing but the sentence.
        QCOMPARE(html.substr(after, gates - after).find("<table"), std::string::npos);
    }
};

QTEST_MAIN(TestSvgChart)
#include "tst_svgchart.moc"
