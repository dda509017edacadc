#include "ui/timeline/ChartRenderer.h"

#include "core/report/ReportFile.h"

#include <QBuffer>
#include <QFileInfo>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QSvgRenderer>
#include <QWidget>
#include <algorithm>
#include <stdexcept>

namespace tierscope {

std::optional<ChartRenderer::Format> ChartRenderer::formatOf(const QString& nameOrPath) {
    const QString suffix =
        nameOrPath.contains('.') ? QFileInfo(nameOrPath).suffix().toLower() : nameOrPath.toLower();
    if (suffix == "svg")
        return Format::Svg;
    if (suffix == "png")
        return Format::Png;
    if (suffix == "pdf")
        return Format::Pdf;
    return std::nullopt;
}

QImage ChartRenderer::toImage(const QByteArray& svg, QSize size, int dpi) {
    const double k = std::max(dpi, 1) / 96.0;
    const QSize pixels(static_cast<int>(size.width() * k + 0.5),
                       static_cast<int>(size.height() * k + 0.5));
    QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    image.setDotsPerMeterX(static_cast<int>(std::max(dpi, 1) / 0.0254 + 0.5));
    image.setDotsPerMeterY(image.dotsPerMeterX());
    QSvgRenderer renderer(svg);
    if (!renderer.isValid())
        return {};
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    renderer.render(&painter, QRectF(QPointF(0, 0), QSizeF(pixels)));
    return image;
}

QString ChartRenderer::write(const QByteArray& svg, const QString& path, Format format, QSize size,
                             int dpi) {
    if (!QSvgRenderer(svg).isValid())
        return "the chart is not valid SVG";
    // Rendered in memory, then written by the one output writer: whole or not at all, 0600,
    // never through a link planted at the target's or the temporary's name.
    QByteArray bytes;
    if (format == Format::Svg) {
        bytes = svg;
    } else if (format == Format::Png) {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        if (!toImage(svg, size, dpi).save(&buffer, "PNG"))
            return "cannot render " + path;
    } else {
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QPdfWriter pdf(&buffer);
        pdf.setCreator("tierscope");
        pdf.setResolution(std::max(dpi, 1)); // the page is `size` at 96 logical pixels an inch
        pdf.setPageSize(QPageSize(QSizeF(size.width() * 72.0 / 96, size.height() * 72.0 / 96),
                                  QPageSize::Point, "chart", QPageSize::ExactMatch));
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        QPainter painter;
        if (!painter.begin(&pdf))
            return "cannot render " + path;
        const double k = std::max(dpi, 1) / 96.0;
        QSvgRenderer(svg).render(&painter, QRectF(0, 0, size.width() * k, size.height() * k));
        painter.end();
    }
    if (bytes.isEmpty())
        return "cannot render " + path;
    try {
        ReportFile::write(path.toStdString(), bytes.toStdString());
    } catch (const std::runtime_error& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

QByteArray ChartRenderer::svgOf(QWidget* widget) {
    QByteArray out;
    QBuffer buffer(&out);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(widget->size());
    svg.setViewBox(QRect(QPoint(0, 0), widget->size()));
    svg.setTitle(widget->windowTitle());
    QPainter painter(&svg);
    widget->render(&painter);
    painter.end();
    return out;
}

} // namespace tierscope
