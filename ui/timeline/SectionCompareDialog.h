#pragma once

#include "core/analysis/RangeStatistics.h"
#include "core/view/PhaseSections.h"

#include <QDialog>
#include <QString>
#include <cstdint>
#include <optional>
#include <set>

class QLabel;
class QTableWidget;

namespace tierscope {

// Two sections of the timeline side by side (a Ctrl+click on the section track): per series
// each one's count, mean, p50 and p99 and the change of the mean from A to B, and their
// requests with the TTFT p50 and p99. The figures are RangeStatistics' for each section's exact
// span, computed on the thread pool: the numbers the range panel and `analyze --range` give.
class SectionCompareDialog : public QDialog {
    Q_OBJECT
  public:
    enum Column {
        Series,
        Unit,
        CountA,
        CountB,
        MeanA,
        MeanB,
        Change,
        P50A,
        P50B,
        P99A,
        P99B,
        Columns
    };
    enum RequestRow { Sent, Failed, TtftP50, TtftP99, RequestRows };

    explicit SectionCompareDialog(QWidget* parent = nullptr);

    // The recorded session the sections are of, and where it starts (its ranges count from
    // there).
    void setSession(const QString& db, qint64 sessionId, std::int64_t sessionStartNs);
    // Only these series (those the charts show); empty: every series of the session.
    void setMetricIds(const std::set<std::int64_t>& ids) { m_metricIds = ids; }
    void compare(const PhaseSections::Section& a, const PhaseSections::Section& b);
    // The latest answers, for the pair asked last; absent while they are computed.
    const std::optional<RangeStatistics::Result>& resultA() const { return m_a; }
    const std::optional<RangeStatistics::Result>& resultB() const { return m_b; }
    bool busy() const { return m_asked != m_answered; }
    QTableWidget* table() const { return m_table; }
    QTableWidget* requestsTable() const { return m_requests; }
    QString titleText() const;
    // (b - a) / |a|: absent without both, or when a is 0.
    static std::optional<double> change(std::optional<double> a, std::optional<double> b);
    static QString changeText(std::optional<double> change);

  signals:
    void computed();
    void failed(const QString& message);

  private:
    void display();

    QString m_db;
    qint64 m_session = 0;
    std::int64_t m_sessionStart = 0;
    std::set<std::int64_t> m_metricIds;
    PhaseSections::Section m_sectionA, m_sectionB;
    std::optional<RangeStatistics::Result> m_a, m_b;
    quint64 m_asked = 0;
    quint64 m_answered = 0;
    QLabel* m_title = nullptr;
    QTableWidget* m_table = nullptr;
    QTableWidget* m_requests = nullptr;
};

} // namespace tierscope
