#pragma once

#include "core/view/OverlayFrame.h"

#include <QStringList>
#include <QWidget>
#include <array>

class QAreaSeries;
class QChart;
class QChartView;
class QLogValueAxis;
class QValueAxis;

namespace tierscope {

// Both sides' TTFT distributions overlaid, as Tracy's compare mode draws two traces' zone
// times: one set of log-spaced bins (OverlayFrame::histogram), each side a translucent step
// area in its colour, heights in percent of that side's requests so arms of different size
// compare.
class OverlayHistogram : public QWidget {
    Q_OBJECT
  public:
    OverlayHistogram(const QStringList& sideLabels, bool dark, QWidget* parent = nullptr);

    void setHistogram(const OverlayFrame::Histogram& histogram);

    QChart* chart() const { return m_chart; }
    // The bars drawn for a side: one height (percent of its requests) per bin, read back
    // from the drawn outline.
    QList<double> barHeights(int side) const;
    std::size_t total(int side) const { return m_histogram.total.at(side); }
    const OverlayFrame::Histogram& histogram() const { return m_histogram; }

  private:
    QStringList m_labels;
    bool m_dark = false;
    OverlayFrame::Histogram m_histogram;
    QChart* m_chart = nullptr;
    QChartView* m_view = nullptr;
    QLogValueAxis* m_x = nullptr;
    QValueAxis* m_y = nullptr;
    std::array<QAreaSeries*, 2> m_areas{};
};

} // namespace tierscope
