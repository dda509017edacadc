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
    // The SVG drawn onto a white image of `size` logical pixels at `dpi` (96: one image pixel
    // per logical pixel; 192: twice as many each way), its DPI recorded in the image.
    static QImage toImage(const QByteArray& svg, QSize size, int dpi = 96);
    // Writes beside the target and renames, so a failed export leaves no half file. `size` is
    // in logical pixels; a PNG has dpi/96 pixels for each, a PDF page is that size at 96 per
    // inch, its vectors rasterised (where they must be) at `dpi`. Returns an error message,
    // empty on success.
    static QString write(const QByteArray& svg, const QString& path, Format format, QSize size,
                         int dpi = 96);
    // A widget (the live view, a session view, a dialog) painted as vector SVG, so it exports
    // through write() at any size. Paints on the calling (GUI) thread; writes nothing.
    static QByteArray svgOf(QWidget* widget);
};

} // namespace tierscope
