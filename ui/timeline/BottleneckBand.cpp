#include "ui/timeline/BottleneckBand.h"

#include <QBrush>
#include <QHelpEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>
#include <map>

namespace tierscope {

namespace {

constexpr int kLaneHeight = 14;
constexpr int kLegendHeight = 16;

// Unknown is hatched over its pale colour, so it never reads as a measured class.
QBrush unknownHatch() {
    return QBrush(QColor(110, 110, 110), Qt::BDiagPattern);
}

} // namespace

BottleneckBand::BottleneckBand(QWidget* parent) : QWidget(parent) {
    setFixedHeight(kLaneHeight + kLegendHeight + 6);
    setToolTip(tr("Bottleneck of each window"));
}

std::vector<BottleneckBand::Span> BottleneckBand::spansOf(const SessionAnalysis::Result& analysis,
                                                          std::int64_t originNs) {
    std::vector<Span> out;
    const double windowS = static_cast<double>(analysis.windowNs) / 1e9;
    for (const auto& w : analysis.windows) {
        if (w.verdict.rule == "no-data")
            continue; // no measurement: not idle, not unknown, not drawn
        const double x0 = static_cast<double>(w.t0Ns - originNs) / 1e9;
        const double x1 = x0 + windowS;
        QString text = QString("%1 (rule %2)")
                           .arg(QString::fromStdString(w.verdict.evidence),
                                QString::fromStdString(w.verdict.rule));
        if (const std::string ttft = w.ttft.text(); !ttft.empty())
            text += "\nTTFT: " + QString::fromStdString(ttft);
        if (const std::string q = w.ttft.quantileText(); !q.empty())
            text += "\n" + QString::fromStdString(q);
        if (!out.empty() && out.back().cls == w.verdict.cls && out.back().x1 >= x0 - 1e-9) {
            out.back().x1 = x1;
            out.back().windows.push_back(text);
            out.back().breakdowns.push_back(w.ttft);
            continue;
        }
        out.push_back({x0, x1, w.verdict.cls, text, {text}, {w.ttft}, windowS});
    }
    return out;
}

void BottleneckBand::setSpans(std::vector<Span> spans) {
    m_spans = std::move(spans);
    update();
    announceRange();
}

void BottleneckBand::setTimeRange(double x0, double x1) {
    m_x0 = x0;
    m_x1 = x1 > x0 ? x1 : x0 + 1;
    update();
    announceRange();
}

void BottleneckBand::announceRange() {
    QString text = rangeText();
    if (text == m_rangeText)
        return;
    m_rangeText = std::move(text);
    emit rangeTextChanged(m_rangeText);
}

QString BottleneckBand::rangeSummary(const std::vector<Span>& spans, double x0, double x1) {
    std::map<BottleneckClassifier::Class, double> seconds;
    double covered = 0;
    TtftBreakdown ttft;
    for (const auto& s : spans) {
        const double overlap = std::min(s.x1, x1) - std::max(s.x0, x0);
        if (overlap <= 0)
            continue;
        seconds[s.cls] += overlap;
        covered += overlap;
        // A window counts towards the breakdown when its middle is in view.
        for (std::size_t i = 0; i < s.breakdowns.size(); ++i) {
            const double middle = s.x0 + (static_cast<double>(i) + 0.5) * s.windowS;
            if (middle >= x0 && middle < x1)
                ttft.add(s.breakdowns[i]);
        }
    }
    if (covered <= 0)
        return {};
    QStringList shares;
    for (const auto cls : BottleneckClassifier::all())
        if (const auto it = seconds.find(cls); it != seconds.end())
            shares << QString("%1 %2 %")
                          .arg(QString::fromLatin1(BottleneckClassifier::name(cls)))
                          .arg(std::lround(it->second / covered * 100));
    const std::string breakdown = ttft.text();
    // Named as the engine's TTFT: the client's, in the Runs dock and compare, is another
    // figure, and their p99s differ.
    QString summary =
        tr("In view: %1. %2")
            .arg(shares.join(", "),
                 breakdown.empty() ? tr("No TTFT breakdown: the engine's histograms are absent.")
                                   : tr("From the engine's histograms: %1")
                                         .arg(QString::fromStdString(breakdown)));
    if (const std::string q = ttft.quantileText(); !q.empty())
        summary += ". " + QString::fromStdString(q);
    return summary;
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
    for (const auto& s : m_spans) {
        if (x < s.x0 || x >= s.x1)
            continue;
        QString text = s.evidence;
        if (s.windowS > 0 && !s.windows.empty()) {
            const auto i = static_cast<std::size_t>((x - s.x0) / s.windowS);
            text = s.windows[std::min(i, s.windows.size() - 1)];
        }
        return QString("%1: %2").arg(BottleneckClassifier::name(s.cls), text);
    }
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
        const QRectF r(m_left + (a - m_x0) * scale, 2, std::max(1.0, (b - a) * scale), kLaneHeight);
        p.setBrush(QColor(BottleneckClassifier::color(s.cls)));
        p.drawRect(r);
        if (s.cls == BottleneckClassifier::Class::Unknown)
            p.fillRect(r, unknownHatch());
    }
    // A legend under the lane, so the colours need no guessing.
    int x = m_left;
    const int y = kLaneHeight + 6;
    p.setPen(palette().color(QPalette::WindowText));
    for (const auto c : BottleneckClassifier::all()) {
        p.fillRect(QRect(x, y + 3, 10, 10), QColor(BottleneckClassifier::color(c)));
        if (c == BottleneckClassifier::Class::Unknown)
            p.fillRect(QRect(x, y + 3, 10, 10), unknownHatch());
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
