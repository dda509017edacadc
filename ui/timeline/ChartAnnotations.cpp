#include "ui/timeline/ChartAnnotations.h"

#include <QChart>
#include <QFont>
#include <QGraphicsLineItem>
#include <QGraphicsRectItem>
#include <QGraphicsSimpleTextItem>
#include <QLineSeries>
#include <QPen>
#include <QValueAxis>
#include <algorithm>

namespace tierscope {

ChartAnnotations::ChartAnnotations(QChart* chart, QValueAxis* x, QLineSeries* reference)
    : m_chart(chart), m_x(x), m_reference(reference) {}

double ChartAnnotations::sceneX(double x) const {
    return m_chart->mapToPosition(QPointF(x, 0), m_reference).x();
}

void ChartAnnotations::layout() {
    layoutMarkers();
    layoutSpans();
}

std::optional<int> ChartAnnotations::spanAt(double x) const {
    for (std::size_t i = 0; i < m_spans.size(); ++i)
        if (x >= m_spans[i].x0 && x <= m_spans[i].x1)
            return static_cast<int>(i);
    return std::nullopt;
}

void ChartAnnotations::setMarkers(const std::vector<Marker>& markers) {
    m_markers = markers;
    const QColor color(230, 120, 0);
    while (m_markerLines.size() < m_markers.size()) {
        auto* line = new QGraphicsLineItem(m_chart);
        line->setZValue(15); // over the data, under the crosshair
        auto* text = new QGraphicsSimpleTextItem(m_chart);
        text->setBrush(color);
        QFont font = text->font();
        font.setPointSizeF(font.pointSizeF() * 0.85);
        text->setFont(font);
        text->setZValue(16);
        m_markerLines.push_back(line);
        m_markerTexts.push_back(text);
    }
    for (std::size_t i = 0; i < m_markers.size(); ++i) {
        const Marker& m = m_markers[i];
        // A tick is drawn wider than a line, so that it can be found and hovered.
        m_markerLines[i]->setPen(QPen(color, m.routine ? 2 : 1, Qt::SolidLine));
        m_markerLines[i]->setToolTip(m.text);
        if (m_markerTexts[i]->text() != m.text)
            m_markerTexts[i]->setText(m.text);
    }
    layoutMarkers();
}

void ChartAnnotations::layoutMarkers() {
    if (m_markerLines.empty())
        return;
    const QRectF plot = m_chart->plotArea();
    constexpr int kRows = 3;      // of notes, up from the foot of the plot
    constexpr double kTick = 7.0; // a routine marker's height, down from the top
    std::vector<QRectF> placed;
    for (std::size_t i = 0; i < m_markerLines.size(); ++i) {
        auto* line = m_markerLines[i];
        auto* text = m_markerTexts[i];
        const bool shown = i < m_markers.size() && m_markers[i].x >= m_x->min() &&
                           m_markers[i].x <= m_x->max() && plot.width() > 10;
        line->setVisible(shown);
        text->setVisible(false);
        if (!shown)
            continue;
        const double x = sceneX(m_markers[i].x);
        if (m_markers[i].routine) {
            line->setLine(x, plot.top(), x, plot.top() + kTick);
            continue;
        }
        line->setLine(x, plot.top(), x, plot.bottom());
        // The note beside its line, at the foot of the plot, flipped left at the right edge;
        // stacked when notes crowd, and left out (the line stays, zoom in to read it) rather
        // than printed over another.
        const double w = text->boundingRect().width();
        const double h = text->boundingRect().height();
        const double left = x + 3 + w > plot.right() ? x - 3 - w : x + 3;
        for (int row = 0; row < kRows; ++row) {
            const QRectF at(left, plot.bottom() - (row + 1) * (h + 1) - 1, w, h);
            if (at.top() < plot.top() ||
                std::any_of(placed.begin(), placed.end(),
                            [&](const QRectF& r) { return r.intersects(at); }))
                continue;
            placed.push_back(at);
            text->setPos(at.topLeft());
            text->setVisible(true);
            break;
        }
    }
}

void ChartAnnotations::setSpans(const std::vector<Span>& spans) {
    m_spans = spans;
    while (m_spanRects.size() < m_spans.size()) {
        auto* rect = new QGraphicsRectItem(m_chart);
        rect->setZValue(5); // over the plot background, under the data
        auto* text = new QGraphicsSimpleTextItem(m_chart);
        QFont font = text->font();
        font.setPointSizeF(font.pointSizeF() * 0.85);
        text->setFont(font);
        text->setZValue(6);
        m_spanRects.push_back(rect);
        m_spanTexts.push_back(text);
    }
    for (std::size_t i = 0; i < m_spans.size(); ++i) {
        const Span& s = m_spans[i];
        QColor fill = s.color;
        fill.setAlpha(s.selected ? 70 : 38);
        m_spanRects[i]->setBrush(fill);
        m_spanRects[i]->setPen(s.selected ? QPen(s.color, 2) : QPen(Qt::NoPen));
        m_spanRects[i]->setToolTip(s.tooltip);
        m_spanTexts[i]->setText(s.label);
        m_spanTexts[i]->setBrush(
            s.color.darker(m_chart->theme() == QChart::ChartThemeDark ? 60 : 150));
    }
    layoutSpans();
}

void ChartAnnotations::layoutSpans() {
    const QRectF plot = m_chart->plotArea();
    for (std::size_t i = 0; i < m_spanRects.size(); ++i) {
        auto* rect = m_spanRects[i];
        auto* text = m_spanTexts[i];
        const bool shown = i < m_spans.size() && m_spans[i].x1 >= m_x->min() &&
                           m_spans[i].x0 <= m_x->max() && plot.width() > 10;
        rect->setVisible(shown);
        text->setVisible(false);
        if (!shown)
            continue;
        auto xOf = [&](double x) { return sceneX(std::clamp(x, m_x->min(), m_x->max())); };
        const double left = xOf(m_spans[i].x0), right = std::max(left + 1, xOf(m_spans[i].x1));
        rect->setRect(left, plot.top(), right - left, plot.height());
        // The label only where it fits: a row of clipped names is noise.
        if (text->boundingRect().width() + 4 <= right - left) {
            text->setPos(left + 2, plot.top() + 1);
            text->setVisible(true);
        }
    }
}

std::vector<QRectF> ChartAnnotations::spanRects() const {
    std::vector<QRectF> out;
    for (auto* r : m_spanRects)
        if (r->isVisible())
            out.push_back(r->rect());
    return out;
}

QStringList ChartAnnotations::spanLabels() const {
    QStringList out;
    for (auto* t : m_spanTexts)
        if (t->isVisible())
            out << t->text();
    return out;
}

std::vector<QLineF> ChartAnnotations::markerLines() const {
    std::vector<QLineF> out;
    for (auto* line : m_markerLines)
        if (line->isVisible())
            out.push_back(line->line());
    return out;
}

std::vector<QRectF> ChartAnnotations::markerLabelRects() const {
    std::vector<QRectF> out;
    for (auto* text : m_markerTexts)
        if (text->isVisible())
            out.push_back(text->sceneBoundingRect());
    return out;
}

QStringList ChartAnnotations::markerLabels() const {
    QStringList out;
    for (auto* text : m_markerTexts)
        if (text->isVisible())
            out << text->text();
    return out;
}

} // namespace tierscope
