// The whole view as one picture: every chart, not the part the scroll area shows, under a title
// block, at the DPI asked for, in the view's colours.
#include "ui/AppPalette.h"
#include "ui/timeline/ChartRenderer.h"
#include "ui/timeline/ImageExportDialog.h"
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineView.h"
#include "ui/timeline/ViewExporter.h"

#include <QCheckBox>
#include <QImage>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTemporaryDir>
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

std::map<std::int64_t, std::vector<Bucket>>
minuteOf(const std::vector<ChartCatalog::Chart>& specs) {
    std::map<std::int64_t, std::vector<Bucket>> out;
    for (const auto& spec : specs)
        for (const auto& s : spec.series)
            for (int k = 0; k < 60; ++k)
                out[s.metricId].push_back({k * kSecond, kSecond, 40.0 + k, 40.0 + k, 40.0 + k, 1});
    return out;
}

ViewExporter::Title title() {
    SessionInfo info;
    info.id = 3;
    info.label = "baseline";
    info.storageProfile = "local-nvme";
    info.host = "gpu-node-7";
    return ViewExporter::sessionTitle(info, 1'790'000'000 * kSecond, 1'790'000'060 * kSecond);
}

} // namespace

class TestViewExporter : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

  private slots:
    // Eight charts in a window with room for about two: the picture holds all eight and the
    // title block, so it is taller than the view, and each chart has its data.
    void theExportHoldsEveryChartNotTheViewport() {
        TimelineView view;
        view.resize(900, 600);
        const auto specs = charts(8);
        view.setCharts(specs);
        view.setTimeRange(0, 60, "s");
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setData(minuteOf(specs), 0);
        QCoreApplication::processEvents();
        TimelineChart* last = view.charts().back();
        QCOMPARE(last->pointCount(), 0); // scrolled out of view: not drawn yet
        auto* bar = view.findChild<QScrollArea*>()->verticalScrollBar();
        const int scrolled = bar->value();

        const auto pieces = ViewExporter::piecesOf(&view);
        QVERIFY(last->pointCount() > 0);  // brought up to date for the picture
        QCOMPARE(bar->value(), scrolled); // and the user's view left where it was
        int charts = 0;
        for (const auto* c : view.charts())
            charts += c->height();
        const int above = view.findChild<QScrollArea*>()->geometry().top();
        const int all = ViewExporter::heightOf(pieces);
        // Every chart, their 4 px gaps and the margins, and what sits above them.
        QVERIFY2(all >= above + charts && all <= above + charts + 4 * 9 + 8,
                 qPrintable(QString("%1 against %2 + %3").arg(all).arg(above).arg(charts)));
        QVERIFY(all > view.height());

        const auto heading = title();
        QCOMPARE(heading.heading, QString("Session 3: baseline [local-nvme]"));
        QVERIFY(heading.lines.join('\n').contains("host: gpu-node-7"));
        QVERIFY(heading.lines.join('\n').contains("tierscope "));
        QSize natural;
        const QByteArray svg =
            ViewExporter::compose(heading, pieces, view.palette(), view.font(), &natural);
        const int top = ViewExporter::titleHeight(heading, view.font());
        QVERIFY(top > 20);
        QCOMPARE(natural.height(), top + all);
        QCOMPARE(natural.width(), view.width());
        QVERIFY(svg.contains("baseline [local-nvme]"));

        // The PNG is that size at 96 dpi and twice each way at 192, with the DPI recorded.
        const QString png = m_dir.filePath("view.png");
        QCOMPARE(ChartRenderer::write(svg, png, ChartRenderer::Format::Png, natural), QString());
        QCOMPARE(QImage(png).size(), natural);
        QCOMPARE(ChartRenderer::write(svg, png, ChartRenderer::Format::Png, natural, 192),
                 QString());
        const QImage fine(png);
        QCOMPARE(fine.size(), natural * 2);
        QCOMPARE(qRound(fine.dotsPerMeterX() * 0.0254), 192);
        const QString pdf = m_dir.filePath("view.pdf");
        QCOMPARE(ChartRenderer::write(svg, pdf, ChartRenderer::Format::Pdf, natural, 300),
                 QString());
        QVERIFY(QFileInfo(pdf).size() > 1000);
        QCOMPARE(ViewExporter::scaled(natural, natural.width() * 2), natural * 2);
    }

    // The picture is drawn in the view's palette: dark ground under a dark theme.
    void theExportFollowsTheTheme() {
        TimelineView view;
        view.setPalette(AppPalette::dark());
        view.setDark(true);
        view.resize(700, 400);
        const auto specs = charts(3);
        view.setCharts(specs);
        view.setTimeRange(0, 60, "s");
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setData(minuteOf(specs), 0);
        QSize natural;
        const QByteArray svg = ViewExporter::compose(title(), ViewExporter::piecesOf(&view),
                                                     view.palette(), view.font(), &natural);
        const QImage image = ChartRenderer::toImage(svg, natural);
        QVERIFY2(image.pixelColor(2, 2).lightness() < 80,
                 qPrintable(image.pixelColor(2, 2).name()));
        QVERIFY(image.pixelColor(2, natural.height() - 2).lightness() < 80);
    }

    // The export's questions: a width row only where the caller offers one; "Light theme"
    // only where the view is dark and can be drawn again, and off until chosen.
    void theExportDialogOffersLightOnlyWhereItCanDrawIt() {
        ImageExportDialog::Options options;
        options.title = "Export view";
        options.width = 900;
        options.widthLabel = "Width";
        options.dark = true;
        ImageExportDialog dark(options, nullptr);
        auto* light = dark.findChild<QCheckBox*>();
        QVERIFY(light && light->isEnabled() && !light->isChecked());
        QCOMPARE(dark.width(), 900);
        QCOMPARE(dark.dpi(), 96);
        QVERIFY(!dark.light());
        light->setChecked(true);
        QVERIFY(dark.light());
        QCOMPARE(dark.findChildren<QSpinBox*>().size(), 2);

        options.redrawable = false; // the live view: exported as it is shown
        ImageExportDialog live(options, nullptr);
        live.findChild<QCheckBox*>()->setChecked(true);
        QVERIFY(!live.findChild<QCheckBox*>()->isEnabled());
        QVERIFY(!live.light());

        options.width = 0; // compare: as wide as shown, no width row
        options.dark = false;
        ImageExportDialog lightView(options, nullptr);
        QCOMPARE(lightView.findChildren<QSpinBox*>().size(), 1);
        QCOMPARE(lightView.width(), 0);
        QVERIFY(lightView.findChild<QCheckBox*>()->isChecked()); // already light
        QVERIFY(!lightView.light());                             // nothing to draw again
    }
};

QTEST_MAIN(TestViewExporter)
#include "tst_viewexporter.moc"
