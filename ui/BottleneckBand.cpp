#include "ui/BottleneckBand.h"

#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>

namespace tierscope {

namespace {

constexpr int kLaneHeight = 14;
constexpr int kLegendHeight = 16;

} // namespace

BottleneckBand::BottleneckBand(QWidget* parent) : QWidget(parent) {
    setFixedHeight(kLaneHeight + kLegendHeight + 6);
    setToolTip(tr("Bottleneck of each window"));
}

std::vector<BottleneckBand::Span> BottleneckBand::spansOf(const SessionAnalysis::Result& analysis,
                                                          std::int64_t originNs) {
    std::vector<Span> out;
    for (const auto& w : analysis.windows) {
        const double x0 = static_cast<double>(w.t0Ns - originNs) / 1e9;
        const double x1 = x0 + static_cast<double>(analysis.windowNs) / 1e9;
        if (!out.empty() && out.back().cls == w.verdict.cls && out.back().x1 >= x0 - 1e-9) {
            out.back().x1 = x1; // the first window's evidence stands for the run of windows
            continue;
        }
        out.push_back({x0, x1, w.verdict.cls, QString::fromStdString(w.verdict.evidence)});
    }
    return out;
}

void BottleneckBand::setSpans(std::vector<Span> spans) {
    m_spans = std::move(spans);
    update();
}

void BottleneckBand::setTimeRange(double x0, double x1) {
    m_x0 = x0;
    m_x1 = x1 > x0 ? x1 : x0 + 1;
    update();
}

void BottleneckBand::setPlotArea(int left, int width) {
    if (left == m_left && width == m_width)
        return;
    m_left = left;
    m_width = width;
    update();
}

double BottleneckBand::xAt(int pixel) const {
    return m_x0 + (pixel - m_left) * (m_x1 - m_x0) / std::max(1, m_width);
}

QString BottleneckBand::textAt(double x) const {
    for (const auto& s : m_spans)
        if (x >= s.x0 && x < s.x1)
            return QString("%1: %2").arg(BottleneckClassifier::name(s.cls), s.evidence);
    return {};
}

void BottleneckBand::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const int width = m_width > 0 ? m_width : this->width();
    const double scale = width / (m_x1 - m_x0);
    p.setPen(Qt::NoPen);
    p.fillRect(QRect(m_left, 2, width, kLaneHeight), palette().color(QPalette::AlternateBase));
    for (const auto& s : m_spans) {
        const double a = std::max(s.x0, m_x0), b = std::min(s.x1, m_x1);
        if (b <= a)
            continue;
        p.setBrush(QColor(BottleneckClassifier::color(s.cls)));
        p.drawRect(
            QRectF(m_left + (a - m_x0) * scale, 2, std::max(1.0, (b - a) * scale), kLaneHeight));
    }
    // A legend under the lane, so the colours need no guessing.
    int x = m_left;
    const int y = kLaneHeight + 6;
    p.setPen(palette().color(QPalette::WindowText));
    for (const auto c : BottleneckClassifier::all()) {
        p.fillRect(QRect(x, y + 3, 10, 10), QColor(BottleneckClassifier::color(c)));
        const QString name = BottleneckClassifier::name(c);
        p.drawText(QPoint(x + 14, y + 12), name);
        x += 26 + p.fontMetrics().horizontalAdvance(name);
    }
    if (m_spans.empty())
        p.drawText(QPoint(x + 10, y + 12), tr("(no windows to classify yet)"));
}

bool BottleneckBand::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const QString text = textAt(xAt(help->pos().x()));
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text, this);
        return true;
    }
    return QWidget::event(event);
}

} // namespace tierscope
