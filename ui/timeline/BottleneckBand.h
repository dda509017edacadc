#pragma once

#include "core/analysis/BottleneckClassifier.h"
#include "core/analysis/SessionAnalysis.h"

#include <QString>
#include <QWidget>
#include <vector>

namespace tierscope {

// A lane above the timeline's charts, coloured by the bottleneck class of each window and
// aligned with the charts' plot area. Hovering names the class and its evidence.
class BottleneckBand : public QWidget {
    Q_OBJECT
  public:
    struct Span {
        double x0 = 0; // in the timeline's seconds
        double x1 = 0;
        BottleneckClassifier::Class cls = BottleneckClassifier::Class::Unknown;
        QString evidence;             // the first window's
        std::vector<QString> windows; // each window's evidence and rule, in order
        std::vector<TtftBreakdown> breakdowns; // each window's, in the same order
        double windowS = 0;
    };

    explicit BottleneckBand(QWidget* parent = nullptr);

    // Windows to spans with x measured from originNs; neighbours of one class merge. A window
    // in which nothing was recorded (before the first sample, after the last) is no span.
    static std::vector<Span> spansOf(const SessionAnalysis::Result& analysis,
                                     std::int64_t originNs);
    void setSpans(std::vector<Span> spans);
    void setTimeRange(double x0, double x1);
    void setPlotArea(int left, int width); // in this widget's pixels
    const std::vector<Span>& spans() const { return m_spans; }
    int plotLeft() const { return m_left; }
    int plotWidth() const { return m_width; }
    // "storage-bound: <evidence> (rule ...)" of the window at x, empty where no window is.
    QString textAt(double x) const;
    // For the range in view: each class's share of the time that has a verdict, and the TTFT
    // breakdown of the windows in it, in words. Empty where nothing in view was recorded.
    static QString rangeSummary(const std::vector<Span>& spans, double x0, double x1);
    QString rangeText() const { return rangeSummary(m_spans, m_x0, m_x1); }

  signals:
    void rangeTextChanged(const QString& text);

  protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;

  private:
    double xAt(int pixel) const;
    void announceRange();

    std::vector<Span> m_spans;
    double m_x0 = 0;
    double m_x1 = 1;
    int m_left = 0;
    int m_width = 0;
    QString m_rangeText;
};

} // namespace tierscope
