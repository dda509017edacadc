// MainWindow's exports: the view or one chart to PNG or SVG, at the window's size or another.
#include "ui/MainWindow.h"
#include "ui/timeline/ChartRenderer.h"
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineView.h"

#include <QFileDialog>
#include <QInputDialog>
#include <QLineEdit>
#include <QPointer>
#include <QStatusBar>
#include <QThreadPool>

namespace tierscope {

void MainWindow::exportView(const QString& path, QSize size) {
    exportWidget(m_timeline, path, size, tr("views"), "1920x1080");
}

void MainWindow::exportChart(const QString& chartId, const QString& path, QSize size) {
    TimelineChart* chart = m_timeline->chart(chartId.toStdString());
    if (!chart) {
        emit viewExported(path, tr("No chart \"%1\" in this view").arg(chartId));
        return;
    }
    exportWidget(chart, path, size, tr("charts"), "1200x400");
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
                              const char* exampleSize) {
    const auto format = ChartRenderer::formatOf(path);
    if (!format || size.isEmpty()) {
        emit viewExported(path, tr("%1: %2 export as .png, .svg or .pdf at a size such as %3")
                                    .arg(path, what, QString::fromLatin1(exampleSize)));
        return;
    }
    const QByteArray svg = ChartRenderer::svgOf(widget); // painting: the GUI thread's job
    QPointer<MainWindow> self(this);
    QThreadPool::globalInstance()->start([self, svg, path, format, size] {
        const QString error = ChartRenderer::write(svg, path, *format, size);
        if (self)
            QMetaObject::invokeMethod(self, [self, path, error] {
                self->statusBar()->showMessage(error.isEmpty() ? tr("Wrote %1").arg(path) : error,
                                               10000);
                emit self->viewExported(path, error);
            });
    });
}

} // namespace tierscope
