#include "ui/timeline/ChartRenderer.h"

#include <QBuffer>
#include <QFile>
#include <QFileInfo>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QSvgRenderer>
#include <QWidget>

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

QImage ChartRenderer::toImage(const QByteArray& svg, QSize size) {
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    QSvgRenderer renderer(svg);
    if (!renderer.isValid())
        return {};
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    renderer.render(&painter, QRectF(QPointF(0, 0), QSizeF(size)));
    return image;
}

QString ChartRenderer::write(const QByteArray& svg, const QString& path, Format format,
                             QSize size) {
    if (!QSvgRenderer(svg).isValid())
        return "the chart is not valid SVG";
    if (format == Format::Pdf) {
        const QString part = path + ".part";
        {
            QPdfWriter pdf(part);
            pdf.setCreator("tierscope");
            pdf.setResolution(96); // one chart pixel per PDF pixel at 96 dpi
            pdf.setPageSize(QPageSize(QSizeF(size.width() * 72.0 / 96, size.height() * 72.0 / 96),
                                      QPageSize::Point, "chart", QPageSize::ExactMatch));
            pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
            QPainter painter;
            if (!painter.begin(&pdf))
                return "cannot write " + path;
            QSvgRenderer(svg).render(&painter, QRectF(QPointF(0, 0), QSizeF(size)));
            painter.end();
        }
        QFile::remove(path);
        if (QFileInfo(part).size() == 0 || !QFile::rename(part, path)) {
            QFile::remove(part);
            return "cannot write " + path;
        }
        return {};
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return "cannot write " + path + ": " + file.errorString();
    const bool written = format == Format::Svg ? file.write(svg) == svg.size()
                                               : toImage(svg, size).save(&file, "PNG");
    if (!written || !file.commit())
        return "cannot write " + path + ": " + file.errorString();
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
