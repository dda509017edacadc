#pragma once

#include "core/view/StatTiles.h"

#include <QWidget>
#include <vector>

namespace tierscope {

// The row of stat tiles above the live charts: a title, the value now (or why there is none),
// a detail line and a sparkline per tile. Painted as one widget: it repaints with the live
// view, and a dozen child widgets per tile would cost more than the charts. Tiles too many for
// one row at their text's width flow into more rows (height for width), and a long detail
// (an absent reason) wraps inside its tile: text is cut only where a single word is wider
// than the whole row.
class StatTileRow : public QWidget {
    Q_OBJECT
  public:
    explicit StatTileRow(QWidget* parent = nullptr);

    void setTiles(std::vector<StatTiles::Tile> tiles);
    const std::vector<StatTiles::Tile>& tiles() const { return m_tiles; }
    // What the tile shows as its value ("350 ms / 1.40 s", "storage-bound"), or "-" when
    // absent; its second line (the detail, or the absent reason).
    QString valueText(const std::string& id) const;
    QString detailText(const std::string& id) const;
    QRect tileRect(int index) const;
    // Rows the tiles take at the present width.
    int rowCount() const;
    // Whether some tile's text does not fit its tile at the present width (drawn elided).
    bool elides() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;

  protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

  private:
    struct Grid {
        int columns = 1;
        int tileWidth = 0;
        std::vector<int> rowHeights;
        int height() const;
    };
    Grid gridFor(int width) const;
    QFont titleFont() const;
    QFont valueFont() const;
    int detailHeight(const StatTiles::Tile& tile, int innerWidth) const;
    int fixedHeight() const; // a tile's height without its detail lines
    const StatTiles::Tile* find(const std::string& id) const;
    static QString valueOf(const StatTiles::Tile& tile);
    static QString detailOf(const StatTiles::Tile& tile);

    std::vector<StatTiles::Tile> m_tiles;
};

} // namespace tierscope
