#pragma once

#include "core/analysis/RangeStatistics.h"

#include <QString>
#include <QWidget>
#include <cstdint>
#include <optional>
#include <set>

class QLabel;
class QTableWidget;

namespace tierscope {

// The figures of the time range selected on the timeline (Shift+drag, or a double-click on a
// run): per series count, min, mean, p50, p99, last and the change against the range before
// it, the requests sent in it and the bottleneck shares. RangeStatistics computes them on the
// thread pool, from the raw samples, so they are the numbers `analyze --range` prints.
class RangePanel : public QWidget {
    Q_OBJECT
  public:
    explicit RangePanel(QWidget* parent = nullptr);

    // The recorded session the ranges are of; clears the panel.
    void setSession(const QString& db, qint64 sessionId);
    // Only these series (those the charts show); empty: every series of the session.
    void setMetricIds(const std::set<std::int64_t>& ids) { m_metricIds = ids; }
    qint64 sessionId() const { return m_session; }
    // The latest answer, for the range selected now; absent while it is computed.
    const std::optional<RangeStatistics::Result>& result() const { return m_result; }
    bool busy() const { return m_asked != m_answered; }
    QTableWidget* table() const { return m_table; }
    QString requestsText() const;
    QString sharesText() const;
    // A figure as `analyze --range` prints it: six significant digits, "-" when absent. The
    // table shows it in the row's display unit (UnitScale, as the chart's axis) and keeps this
    // exact figure in its tooltip and under ExactRole.
    static QString number(std::optional<double> v);
    // An offset into the session, as the titles of the range and of a section comparison
    // show it: seconds to the millisecond.
    static QString seconds(std::int64_t ns);
    static constexpr int ExactRole = Qt::UserRole + 1;

  public slots:
    // [x0, x1] seconds from the session's start, as the timeline's x axis counts them.
    void setRange(double x0S, double x1S);
    void clear();

  signals:
    void computed(); // the answer for the range selected now is shown
    void failed(const QString& message);

  private:
    void display(const RangeStatistics::Result& result);

    QString m_db;
    qint64 m_session = 0;
    std::set<std::int64_t> m_metricIds;
    std::optional<RangeStatistics::Result> m_result;
    quint64 m_asked = 0;
    quint64 m_answered = 0;
    QLabel* m_title = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_requests = nullptr;
    QLabel* m_shares = nullptr;
};

} // namespace tierscope
