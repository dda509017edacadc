#include "ui/timeline/SectionTrack.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <algorithm>
#include <cmath>

namespace tierscope {

namespace {

constexpr int kLane = 18;
constexpr int kGap = 2;
constexpr int kTriangle = 12; // the disclosure triangle's square, at a group bar's left
constexpr int kStrip = 3;     // a closed group's runs, at its foot

using Kind = PhaseSections::Kind;

QString secondsText(double s) {
    return QString::number(s, 'f', s < 100 ? 1 : 0) + " s";
}

// The arms' colours of the charts' run spans (TimelineView::applySpans), in the order the arms
// first ran, so a run's bar and its span on the charts match.
const QColor kArms[] = {{31, 119, 180}, {148, 103, 189}, {23, 190, 207},
                        {188, 189, 34}, {140, 86, 75},   {227, 119, 194}};

} // namespace

SectionTrack::SectionTrack(QWidget* parent) : QWidget(parent) {
    setObjectName("sectionTrack");
    qRegisterMetaType<tierscope::PhaseSections::Section>();
    setMouseTracking(true);
    fitHeight();
    hide(); // until a session with runs is shown
}

void SectionTrack::setSections(std::vector<Section> groups, bool keepOpen) {
    std::set<std::string> open;
    if (keepOpen)
        for (const int g : m_expanded)
            open.insert(m_groups[static_cast<std::size_t>(g)].name);
    m_groups = std::move(groups);
    m_arms.clear();
    for (const auto& g : m_groups)
        for (const auto& c : g.children)
            if (c.runId != 0 && !m_arms.contains(QString::fromStdString(c.arm)))
                m_arms << QString::fromStdString(c.arm);
    m_expanded.clear();
    for (int g = 0; g < static_cast<int>(m_groups.size()); ++g)
        if (open.contains(m_groups[static_cast<std::size_t>(g)].name))
            m_expanded.insert(g);
    m_picked = m_compared = {};
    fitHeight();
    setVisible(!m_groups.empty());
    update();
}

void SectionTrack::setOrigin(std::int64_t originNs) {
    if (originNs == m_origin)
        return;
    m_origin = originNs;
    update();
}

void SectionTrack::setTimeRange(double x0, double x1) {
    m_x0 = x0;
    m_x1 = x1 > x0 ? x1 : x0 + 1;
    update();
}

void SectionTrack::setPlotArea(int left, int width) {
    if (left == m_left && width == m_width)
        return;
    m_left = left;
    m_width = width;
    update();
}

void SectionTrack::setExpanded(int group, bool expanded) {
    if (group < 0 || group >= static_cast<int>(m_groups.size()))
        return;
    if (expanded)
        m_expanded.insert(group);
    else
        m_expanded.erase(group);
    // A child picked in a group now collapsed has no bar: the pick stays, drawn on its group.
    fitHeight();
    update();
}

void SectionTrack::fitHeight() {
    setFixedHeight(m_expanded.empty() ? kLane + 2 * kGap : 2 * kLane + 3 * kGap);
}

void SectionTrack::clearPicks() {
    if (m_picked == Key{} && m_compared == Key{})
        return;
    m_picked = m_compared = {};
    update();
}

const SectionTrack::Section* SectionTrack::sectionOf(const Key& key) const {
    if (key.group < 0 || key.group >= static_cast<int>(m_groups.size()))
        return nullptr;
    const Section& group = m_groups[static_cast<std::size_t>(key.group)];
    if (key.child < 0)
        return &group;
    return key.child < static_cast<int>(group.children.size())
               ? &group.children[static_cast<std::size_t>(key.child)]
               : nullptr;
}

double SectionTrack::xOf(std::int64_t tNs) const {
    const int width = m_width > 0 ? m_width : this->width();
    const double x = static_cast<double>(tNs - m_origin) / 1e9;
    return m_left + (x - m_x0) * width / (m_x1 - m_x0);
}

// Cut at the plot's edges; empty when the section is out of view.
QRectF SectionTrack::rectOf(const Section& s, int lane) const {
    const int width = m_width > 0 ? m_width : this->width();
    const double a = std::max<double>(xOf(s.t0Ns), m_left);
    const double b = std::min<double>(xOf(s.t1Ns), m_left + width);
    if (b < a)
        return {};
    const double top = kGap + lane * (kLane + kGap);
    return {a, top, std::max(2.0, b - a), static_cast<double>(kLane)};
}

std::vector<SectionTrack::Bar> SectionTrack::bars() const {
    std::vector<Bar> out;
    for (int g = 0; g < static_cast<int>(m_groups.size()); ++g) {
        const Section& group = m_groups[static_cast<std::size_t>(g)];
        if (const QRectF r = rectOf(group, 0); !r.isEmpty())
            out.push_back({g, -1, r, &group});
        if (!isExpanded(g))
            continue;
        for (int c = 0; c < static_cast<int>(group.children.size()); ++c) {
            const Section& child = group.children[static_cast<std::size_t>(c)];
            if (const QRectF r = rectOf(child, 1); !r.isEmpty())
                out.push_back({g, c, r, &child});
        }
    }
    return out;
}

SectionTrack::Bar SectionTrack::barAt(QPointF pos) const {
    const auto all = bars();
    // The last drawn is on top: a reset inside its populate run wins over the run.
    for (auto it = all.rbegin(); it != all.rend(); ++it)
        if (it->rect.contains(pos))
            return *it;
    return {};
}

QRectF SectionTrack::triangleRect(const QRectF& bar) {
    return {bar.left() + 2, bar.center().y() - kTriangle / 2.0, kTriangle, kTriangle};
}

QColor SectionTrack::colorOf(const Section& s) const {
    if (s.invalid && s.runId != 0)
        return {214, 39, 40};
    switch (s.kind) {
    case Kind::Block:
        return palette().color(QPalette::Mid);
    case Kind::Populate:
        return {230, 145, 56};
    case Kind::Reset:
        return {96, 125, 139};
    case Kind::Warmup:
        return {127, 127, 127};
    case Kind::EngineStart:
    case Kind::EngineStop:
        return {176, 176, 176};
    case Kind::Measured:
        break;
    }
    if (s.runId == 0) // the measured phase of a load
        return kArms[0];
    return kArms[std::max<qsizetype>(0, m_arms.indexOf(QString::fromStdString(s.arm))) % 6];
}

void SectionTrack::paintBar(QPainter& p, const Bar& bar) {
    const Section& s = *bar.section;
    const QColor fill = colorOf(s);
    const bool group = bar.child < 0;
    const bool expanded = group && isExpanded(bar.group);
    p.setPen(QPen(palette().color(QPalette::Base), 1));
    p.setBrush(expanded ? fill.lighter(130) : fill);
    p.drawRect(bar.rect.adjusted(0.5, 0.5, -0.5, -0.5));
    if (group && !expanded) // what is inside, in its colours, along the bar's foot
        for (const auto& c : s.children) {
            const double a = std::max(xOf(c.t0Ns), bar.rect.left() + 1);
            const double b = std::min(xOf(c.t1Ns), bar.rect.right() - 1);
            if (b > a)
                p.fillRect(QRectF(a, bar.rect.bottom() - kStrip - 1, std::max(1.0, b - a), kStrip),
                           colorOf(c) == fill ? fill.darker(150) : colorOf(c));
        }
    const Key key{bar.group, bar.child};
    const bool picked = key == m_picked, compared = key == m_compared;
    if (picked || compared) {
        QPen pen(palette().color(QPalette::Highlight), 2);
        pen.setStyle(compared ? Qt::DashLine : Qt::SolidLine);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawRect(bar.rect.adjusted(1, 1, -1, -1));
    }
    const QColor ink = fill.lightnessF() > 0.6 ? QColor(20, 20, 20) : QColor(250, 250, 250);
    QRectF text = bar.rect.adjusted(4, 0, -3, group && !expanded ? -kStrip : 0);
    if (group && bar.rect.width() >= kTriangle + 4) {
        const QRectF t = triangleRect(bar.rect).adjusted(2, 2, -2, -2);
        QPainterPath path;
        if (expanded) { // pointing down
            path.moveTo(t.topLeft());
            path.lineTo(t.topRight());
            path.lineTo(t.center().x(), t.bottom());
        } else {
            path.moveTo(t.topLeft());
            path.lineTo(t.right(), t.center().y());
            path.lineTo(t.bottomLeft());
        }
        path.closeSubpath();
        p.setPen(Qt::NoPen);
        p.setBrush(ink);
        p.drawPath(path);
        text.setLeft(triangleRect(bar.rect).right() + 3);
    }
    QString name = QString::fromStdString(s.name);
    if (m_compared != Key{} && (picked || compared))
        name = (picked ? "A: " : "B: ") + name;
    if (text.width() < 16)
        return;
    p.setPen(ink);
    p.drawText(text, Qt::AlignVCenter | Qt::AlignLeft,
               p.fontMetrics().elidedText(name, Qt::ElideRight, static_cast<int>(text.width())));
}

void SectionTrack::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const int width = m_width > 0 ? m_width : this->width();
    p.fillRect(QRect(m_left, kGap, width, height() - 2 * kGap),
               palette().color(QPalette::AlternateBase));
    // In the charts' y-axis margin, what the row is.
    if (m_left > 40) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRect(0, kGap, m_left - 6, kLane), Qt::AlignRight | Qt::AlignVCenter,
                   tr("phases"));
    }
    p.setClipRect(QRect(m_left, 0, width, height()));
    for (const auto& bar : bars())
        paintBar(p, bar);
}

QString SectionTrack::tooltipOf(const Section& s) const {
    const double x0 = static_cast<double>(s.t0Ns - m_origin) / 1e9;
    const double x1 = static_cast<double>(s.t1Ns - m_origin) / 1e9;
    QString text = QString("%1\n%2 .. %3 (%4)")
                       .arg(QString::fromStdString(s.name), secondsText(x0), secondsText(x1),
                            secondsText(x1 - x0));
    if (!s.detail.empty())
        text += "\n" + QString::fromStdString(s.detail);
    text += tr("\nClick: its figures in the Range panel; Ctrl+click another section: compare "
               "the two");
    return text;
}

bool SectionTrack::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        const auto* help = static_cast<QHelpEvent*>(event);
        const Bar bar = barAt(help->pos());
        if (!bar.section)
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), tooltipOf(*bar.section), this);
        return true;
    }
    return QWidget::event(event);
}

void SectionTrack::mousePressEvent(QMouseEvent* event) {
    const Bar bar = barAt(event->position());
    if (event->button() != Qt::LeftButton || !bar.section) {
        QWidget::mousePressEvent(event);
        return;
    }
    event->accept();
    if (bar.child < 0 && triangleRect(bar.rect).contains(event->position())) {
        setExpanded(bar.group, !isExpanded(bar.group));
        return;
    }
    const Key key{bar.group, bar.child};
    const Section section = *bar.section; // a receiver may replace the sections
    if (event->modifiers().testFlag(Qt::ControlModifier) && picked() && !(key == m_picked)) {
        m_compared = key;
        update();
        const Section a = *picked();
        emit compareRequested(a, section);
        return;
    }
    emit sectionClicked(section); // the view selects its range, which drops the old picks
    if (sectionOf(key)) {
        m_picked = key;
        m_compared = {};
        update();
    }
}

void SectionTrack::mouseDoubleClickEvent(QMouseEvent* event) {
    // On a group: open or close it (on its triangle, the second click of two).
    const Bar bar = barAt(event->position());
    if (event->button() == Qt::LeftButton && bar.section && bar.child < 0) {
        setExpanded(bar.group, !isExpanded(bar.group));
        event->accept();
        return;
    }
    QWidget::mouseDoubleClickEvent(event);
}

} // namespace tierscope
