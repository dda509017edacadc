#pragma once

#include "core/view/PhaseSections.h"

#include <QMetaType>
#include <QRectF>
#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <set>
#include <vector>

namespace tierscope {

// A thin row above the timeline's charts, on their time axis, naming the session's sections
// (PhaseSections): a bar per group (warm-up, a repetition, populate, reset, measured) with a
// disclosure triangle; an expanded group shows a bar per run and step under it, in a second
// lane. A click selects a section's exact time span as the range; a Ctrl+click on a second one
// asks to compare the two. Hidden while there are no sections.
class SectionTrack : public QWidget {
    Q_OBJECT
  public:
    using Section = PhaseSections::Section;
    // A bar as laid out now: a group's (child < 0) or a child's of an expanded group.
    struct Bar {
        int group = 0;
        int child = -1;
        QRectF rect; // in this widget's pixels
        const Section* section = nullptr;
    };

    explicit SectionTrack(QWidget* parent = nullptr);

    // Collapses every group, or with keepOpen those of the names open now (a live experiment's
    // sections growing).
    void setSections(std::vector<Section> groups, bool keepOpen = false);
    const std::vector<Section>& sections() const { return m_groups; }
    // Where x = 0 lies, as the charts' data: a section's x is (t - origin) / 1e9.
    void setOrigin(std::int64_t originNs);
    void setTimeRange(double x0, double x1);
    void setPlotArea(int left, int width); // in this widget's pixels
    void setExpanded(int group, bool expanded);
    bool isExpanded(int group) const { return m_expanded.contains(group); }
    std::vector<Bar> bars() const;
    // The bar under a point; absent (section null) where none is.
    Bar barAt(QPointF pos) const;
    // The section a click picked (shown as the range) and the one a Ctrl+click compares with
    // it; null when none.
    const Section* picked() const { return sectionOf(m_picked); }
    const Section* compared() const { return sectionOf(m_compared); }
    void clearPicks();
    // The rectangle of a group's disclosure triangle.
    static QRectF triangleRect(const QRectF& bar);
    // A section's name, time span and detail, as its tooltip shows them.
    QString tooltipOf(const Section& section) const;

  signals:
    void sectionClicked(const tierscope::PhaseSections::Section& section);
    // Ctrl+click on `b` while `a` is picked.
    void compareRequested(const tierscope::PhaseSections::Section& a,
                          const tierscope::PhaseSections::Section& b);

  protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

  private:
    struct Key {
        int group = -1;
        int child = -1;
        bool operator==(const Key&) const = default;
    };
    const Section* sectionOf(const Key& key) const;
    double xOf(std::int64_t tNs) const;
    QRectF rectOf(const Section& s, int lane) const;
    QColor colorOf(const Section& s) const;
    void fitHeight();
    void paintBar(QPainter& p, const Bar& bar);

    std::vector<Section> m_groups;
    QStringList m_arms; // in the order they first ran: their runs' colours
    std::set<int> m_expanded;
    std::int64_t m_origin = 0;
    double m_x0 = 0;
    double m_x1 = 1;
    int m_left = 0;
    int m_width = 0;
    Key m_picked;
    Key m_compared;
};

} // namespace tierscope

Q_DECLARE_METATYPE(tierscope::PhaseSections::Section)
