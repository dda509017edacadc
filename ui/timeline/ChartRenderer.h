#pragma once

#include <QByteArray>
#include <QImage>
#include <QSize>
#include <QString>
#include <optional>

class QWidget;

namespace tierscope {

// Writes a chart's SVG (from core/SvgChart) as SVG, PNG or PDF. Used by the GUI's export
// buttons and by `tierscope export chart`, so both give the same picture.
class ChartRenderer {
  public:
    enum class Format { Svg, Png, Pdf };

    // From a file name's extension or a format name ("png", "x.pdf").
    static std::optional<Format> formatOf(const QString& nameOrPath);
    // The SVG drawn onto a white image of exactly `size` pixels.
    static QImage toImage(const QByteArray& svg, QSize size);
    // Writes beside the target and renames, so a failed export leaves no half file. Returns
    // an error message, empty on success.
    static QString write(const QByteArray& svg, const QString& path, Format format, QSize size);
    // A widget (the live view, a session view, a dialog) painted as vector SVG, so it exports
    // through write() at any size. Paints on the calling (GUI) thread; writes nothing.
    static QByteArray svgOf(QWidget* widget);
};

} // namespace tierscope
