#pragma once

#include "core/view/OverlayFrame.h"
#include "ui/timeline/UnitScale.h"

#include <QColor>
#include <QList>
#include <QPointF>
#include <QStringList>
#include <QWidget>
#include <array>
#include <vector>

class QChart;
class QChartView;
class QLineSeries;
class QValueAxis;

namespace tierscope {

class LinePlotItem;

// One series of the A/B overlay: every range of both sides on one time axis ("seconds since
// the start"), coloured by side, a thin line per run (or a dot per request for TTFT), and a
// legend entry per side naming it.
class OverlayChart : public QWidget {
    Q_OBJECT
  public:
    // The comparison's arm colours (the compare charts' blue and orange), lighter on a dark
    // background where the plain blue is hard to see.
    static QColor sideColor(int side, bool dark);

    OverlayChart(const OverlayFrame::Series& series, const QStringList& sideLabels, bool dark,
                 QWidget* parent = nullptr);

    // Replaces the lines; the time axis spans [x0, x1] seconds.
    void setChart(const OverlayFrame::Chart& chart, double x0, double x1);

    const OverlayFrame::Series& series() const { return m_series; }
    QChart* chart() const { return m_chart; }
    // How many ranges of that side are drawn, and one's points in axis units (x seconds, y in
    // the unit shown: unitSuffix()).
    int lineCount(int side) const;
    QList<QPointF> points(int side, int index) const;
    QString unitSuffix() const { return m_scale.suffix; }
    QStringList legendNames() const; // the visible legend entries
    QString timeLabelFormat() const;
    double xMin() const;
    double xMax() const;

  private:
    void applyTimeTicks(int plotWidth);
    OverlayFrame::Series m_series;
    QStringList m_labels;
    bool m_dark = false;
    QChart* m_chart = nullptr;
    QChartView* m_view = nullptr;
    QValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
    LinePlotItem* m_plot = nullptr;
    std::vector<QLineSeries*> m_lines;
    QStringList m_legend; // the markers left visible: a side's first line, or its absence
    std::array<std::vector<std::size_t>, 2> m_bySide; // indices into m_lines, per side
    std::vector<QList<QPointF>> m_points;             // per m_lines entry
    UnitScale m_scale;
};

} // namespace tierscope
