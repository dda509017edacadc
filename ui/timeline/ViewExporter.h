#pragma once

#include "core/model/SessionInfo.h"

#include <QByteArray>
#include <QPalette>
#include <QRect>
#include <QSize>
#include <QString>
#include <QStringList>
#include <vector>

class QFont;
class QWidget;

namespace tierscope {

class TimelineView;

// A whole view as one picture for a paper or a ticket: a title block (what, when, where,
// which tool), then every piece stacked at its full height, not the part a scroll area shows.
// Composed as vector SVG on the GUI thread (widgets paint there); ChartRenderer::write turns it
// into SVG, PNG or PDF at any DPI off it. Used by File > Export view, the compare view's
// "Save as image" and `tierscope export chart`.
class ViewExporter {
  public:
    struct Title {
        QString heading;   // "Session 3: baseline [local-nvme]", "A: ... vs B: ..."
        QStringList lines; // time range, host, tool version
    };
    // A widget drawn inside `region` (its own coordinates; empty: all of it), or an SVG
    // drawn at `size`.
    struct Piece {
        QWidget* widget = nullptr;
        QRect region;
        QByteArray svg;
        QSize size;
    };

    // The title block, then the pieces top to bottom on the palette's window colour, as wide
    // as the widest piece. `size` receives the picture's size in logical pixels.
    static QByteArray compose(const Title& title, const std::vector<Piece>& pieces,
                              const QPalette& palette, const QFont& font, QSize* size);
    static int titleHeight(const Title& title, const QFont& font);
    // "Session 3: baseline [local-nvme]", the time range shown (UTC), the host, the version
    // of the tool that recorded it and of the one that drew it.
    static Title sessionTitle(const SessionInfo& info, std::int64_t fromNs, std::int64_t toNs);
    // Everything a timeline shows above its charts (tiles, the bottleneck lane, its words),
    // then every chart, each with the data of the range in view (a chart scrolled out of view
    // is brought up to date first).
    static std::vector<Piece> piecesOf(TimelineView* view);
    // Height of the stacked pieces.
    static int heightOf(const std::vector<Piece>& pieces);
    // `natural` scaled to `width` (0: as it is), aspect kept.
    static QSize scaled(QSize natural, int width);
};

} // namespace tierscope
