// MainWindow's exports: the whole view (every chart, under a title block) or one chart, as PNG,
// SVG or PDF, at the window's size or another and at a chosen DPI.
#include "core/util/UnitFormat.h"
#include "core/util/Version.h"
#include "ui/AppPalette.h"
#include "ui/MainWindow.h"
#include "ui/sessions/SessionListModel.h"
#include "ui/timeline/ChartRenderer.h"
#include "ui/timeline/HeadlessExport.h"
#include "ui/timeline/ImageExportDialog.h"
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineView.h"

#include <QDateTime>
#include <QDialog>
#include <QFileDialog>
#include <QInputDialog>
#include <QLineEdit>
#include <QPointer>
#include <QStatusBar>
#include <QSysInfo>
#include <QThreadPool>

namespace tierscope {

namespace {

// Rendering and writing happen off the GUI thread; the painting that made `svg` did not.
void writeOffThread(MainWindow* window, const QByteArray& svg, const QString& path,
                    ChartRenderer::Format format, QSize size, int dpi) {
    QPointer<MainWindow> self(window);
    QThreadPool::globalInstance()->start([self, svg, path, format, size, dpi] {
        const QString error = ChartRenderer::write(svg, path, format, size, dpi);
        if (self)
            QMetaObject::invokeMethod(self, [self, path, error] {
                self->statusBar()->showMessage(
                    error.isEmpty() ? MainWindow::tr("Wrote %1").arg(path) : error, 10000);
                emit self->viewExported(path, error);
            });
    });
}

} // namespace

ViewExporter::Title MainWindow::viewTitle() const {
    if (!isLive()) {
        SessionInfo info;
        if (const auto known = m_sessions->session(m_shownSession))
            info = *known;
        info.id = m_shownSession;
        auto at = [&](double s) { return m_shownOrigin + static_cast<std::int64_t>(s * 1e9); };
        return ViewExporter::sessionTitle(info, at(m_timeline->rangeStart()),
                                          at(m_timeline->rangeEnd()));
    }
    // The live view's axis counts seconds back from its latest frame, about now.
    const std::int64_t now = QDateTime::currentMSecsSinceEpoch() * 1'000'000;
    auto at = [&](double s) { return now + static_cast<std::int64_t>(s * 1e9); };
    const QString host =
        m_options.target.isEmpty() ? QSysInfo::machineHostName() : m_options.target;
    ViewExporter::Title t{tr("Live: %1").arg(host), {}};
    t.lines << tr("%1 to %2 (UTC)")
                   .arg(QString::fromStdString(UnitFormat::utcTime(at(m_timeline->rangeStart()))),
                        QString::fromStdString(UnitFormat::utcTime(at(m_timeline->rangeEnd()))));
    t.lines << tr("host: %1").arg(host) << tr("drawn by tierscope %1").arg(kToolVersion);
    return t;
}

void MainWindow::exportView(const QString& path, int width, int dpi,
                            const std::optional<ViewExporter::Title>& title) {
    const auto format = ChartRenderer::formatOf(path);
    if (!format || width < 0 || dpi < 24 || dpi > 2400) {
        emit viewExported(path, tr("%1: views export as .png, .svg or .pdf, at a width in pixels "
                                   "and 24 to 2400 dpi")
                                    .arg(path));
        return;
    }
    QSize natural;
    const QByteArray svg =
        ViewExporter::compose(title ? *title : viewTitle(), ViewExporter::piecesOf(m_timeline),
                              m_timeline->palette(), m_timeline->font(), &natural);
    writeOffThread(this, svg, path, *format, ViewExporter::scaled(natural, width), dpi);
}

// File > Export view: where, how wide and how fine; the height follows from every chart.
void MainWindow::askExportView() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export view"), "tierscope.png",
                                                      tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    if (path.isEmpty())
        return;
    // The charts cannot change theme in place: a recorded session is drawn anew off screen,
    // by `tierscope export chart`; the live view exports as it is shown.
    ImageExportDialog::Options options;
    options.title = tr("Export view");
    options.width = m_timeline->width();
    options.widthLabel = tr("Width (every chart is included; the height follows)");
    options.dark = AppPalette::isDark(palette());
    options.redrawable = !isLive();
    options.lightTip = tr("A dark view's session drawn again in the light theme, for print");
    ImageExportDialog ask(options, this);
    if (ask.exec() != QDialog::Accepted)
        return;
    if (!ask.light()) {
        exportView(path, ask.width(), ask.dpi());
        return;
    }
    // The headless export of the same session at the same window size, in the light theme.
    const QSize size = ViewExporter::scaled(m_timeline->size(), ask.width());
    auto* job = new HeadlessExport(
        {"--db", m_db, "export", "chart", "--session", QString::number(m_shownSession), "--theme",
         "light", "--size", QString("%1x%2").arg(size.width()).arg(std::max(150, size.height())),
         "--dpi", QString::number(ask.dpi()), "--out", path},
        path, this);
    connect(job, &HeadlessExport::finished, this,
            [this, job](const QString& written, const QString& error) {
                statusBar()->showMessage(error.isEmpty() ? tr("Wrote %1").arg(written) : error,
                                         10000);
                emit viewExported(written, error);
                job->deleteLater();
            });
    job->start();
    statusBar()->showMessage(tr("Drawing session %1 in the light theme…").arg(m_shownSession));
}

void MainWindow::exportChart(const QString& chartId, const QString& path, QSize size, int dpi) {
    TimelineChart* chart = m_timeline->chart(chartId.toStdString());
    if (!chart) {
        emit viewExported(path, tr("No chart \"%1\" in this view").arg(chartId));
        return;
    }
    exportWidget(chart, path, size, tr("charts"), "1200x400", dpi);
}

void MainWindow::askExportChart(const QString& chartId) {
    TimelineChart* chart = m_timeline->chart(chartId.toStdString());
    if (!chart)
        return;
    if (const auto to = askExportTarget(tr("Export chart"), chartId + ".png", chart->size()))
        exportChart(chartId, to->first, to->second);
}

std::optional<std::pair<QString, QSize>>
MainWindow::askExportTarget(const QString& title, const QString& name, QSize current) {
    const QString path = QFileDialog::getSaveFileName(this, title, name,
                                                      tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    if (path.isEmpty())
        return std::nullopt;
    bool ok = false;
    const QString size =
        QInputDialog::getText(this, title, tr("Size in pixels (width x height)"), QLineEdit::Normal,
                              QString("%1x%2").arg(current.width()).arg(current.height()), &ok);
    const QStringList wh = size.split('x');
    if (!ok || wh.size() != 2)
        return std::nullopt;
    return std::pair{path, QSize(wh[0].trimmed().toInt(), wh[1].trimmed().toInt())};
}

void MainWindow::exportWidget(QWidget* widget, const QString& path, QSize size, const QString& what,
                              const char* exampleSize, int dpi) {
    const auto format = ChartRenderer::formatOf(path);
    if (!format || size.isEmpty()) {
        emit viewExported(path, tr("%1: %2 export as .png, .svg or .pdf at a size such as %3")
                                    .arg(path, what, QString::fromLatin1(exampleSize)));
        return;
    }
    // Painting is the GUI thread's job.
    writeOffThread(this, ChartRenderer::svgOf(widget), path, *format, size, dpi);
}

} // namespace tierscope
