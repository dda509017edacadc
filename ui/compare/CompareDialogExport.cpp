#include "ui/compare/CompareDialog.h"
#include "ui/compare/CompareImage.h"
#include "ui/compare/ComparisonWorker.h"
#include "ui/timeline/ChartRenderer.h"
#include "ui/timeline/HeadlessExport.h"
#include "ui/timeline/ImageExportDialog.h"

#include <QFileDialog>
#include <QLabel>
#include <QSvgRenderer>
#include <QTabWidget>
#include <QTableWidget>
#include <algorithm>

// The compare view's exports: the report, one chart, the whole view as one picture.
namespace tierscope {

void CompareDialog::exportReportTo(const QString& path) {
    QMetaObject::invokeMethod(m_worker,
                              [w = m_worker, in = m_result, path] { w->exportReport(in, path); });
}

void CompareDialog::exportChartTo(int chart, const QString& path, QSize size) {
    if (chart < 0 || chart >= static_cast<int>(m_result.charts.size()))
        return;
    const QByteArray svg =
        QByteArray::fromStdString(m_result.charts[static_cast<std::size_t>(chart)].svg);
    QMetaObject::invokeMethod(m_worker,
                              [w = m_worker, svg, path, size] { w->exportChart(svg, path, size); });
}

void CompareDialog::askExportReport() {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export comparison"), "comparison.html",
        tr("HTML report (*.html);;CSV (*.csv);;JSON (*.json);;Markdown (*.md)"));
    if (!path.isEmpty())
        exportReportTo(path);
}

void CompareDialog::askExportChart() {
    const int index = m_tabs->currentIndex();
    if (index < 0 || index >= static_cast<int>(m_result.charts.size()))
        return;
    const auto& chart = m_result.charts[static_cast<std::size_t>(index)];
    const QString path = QFileDialog::getSaveFileName(this, tr("Export chart"),
                                                      QString::fromStdString(chart.name) + ".png",
                                                      tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    // 1200 wide in the shape it has on screen: the chart is drawn for its tab's size.
    const QSize own = QSvgRenderer(QByteArray::fromStdString(chart.svg)).defaultSize();
    if (!path.isEmpty())
        exportChartTo(index, path,
                      own.isEmpty() ? QSize(1200, 700) : ViewExporter::scaled(own, 1200));
}

void CompareDialog::saveImageTo(const QString& path, int width, int dpi, bool light) {
    const auto format = ChartRenderer::formatOf(path);
    if (!format || (m_result.kpis.empty() && m_result.charts.empty())) {
        emit exported(path,
                      tr("%1: a comparison saves as .png, .svg or .pdf, once compared").arg(path));
        return;
    }
    if (light && CompareImage::isDark(palette())) {
        saveLightImageTo(path, width, dpi);
        return;
    }
    QSize natural;
    const QByteArray svg = CompareImage::compose(m_result, {m_verdict, m_kpis, m_shares, m_gates},
                                                 palette(), font(), &natural);
    QMetaObject::invokeMethod(m_worker, [w = m_worker, svg, path, natural, width, dpi] {
        w->exportChart(svg, path, ViewExporter::scaled(natural, width), dpi);
    });
}

// The same sides and gates compared again off screen, in a dialog of this one's size in the
// light theme: what `tierscope export chart A B --chart view --theme light` writes.
void CompareDialog::saveLightImageTo(const QString& path, int width, int dpi) {
    const QSize size(std::clamp(width > 0 ? width : this->width(), 200, 10000),
                     std::clamp(height(), 150, 10000));
    QStringList args{"--db", m_db, "export", "chart"};
    args << m_comparedArgs << "--chart"
         << "view"
         << "--theme"
         << "light"
         << "--size" << QString("%1x%2").arg(size.width()).arg(size.height()) << "--dpi"
         << QString::number(dpi) << "--out" << path;
    auto* job = new HeadlessExport(args, path, this);
    connect(job, &HeadlessExport::finished, this,
            [this, job](const QString& written, const QString& error) {
                m_status->setText(error.isEmpty() ? tr("Wrote %1").arg(written) : error);
                emit exported(written, error);
                job->deleteLater();
            });
    m_status->setText(tr("Comparing again in the light theme for %1…").arg(path));
    job->start();
}

void CompareDialog::askSaveImage() {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save comparison as image"), "comparison.png",
                                     tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    if (path.isEmpty())
        return;
    ImageExportDialog::Options options;
    options.title = tr("Save comparison as image");
    options.dark = CompareImage::isDark(palette());
    options.lightTip = tr("A dark view's comparison drawn again in the light theme, for print");
    ImageExportDialog ask(options, this);
    if (ask.exec() == QDialog::Accepted)
        saveImageTo(path, 0, ask.dpi(), ask.light());
}

} // namespace tierscope
