#pragma once

#include "core/report/ComparisonReport.h"
#include "core/report/SvgChart.h"

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QSize>
#include <QString>
#include <QStringList>

namespace tierscope {

// Something the user can compare: "arm:EXP/ARM", "session:N" or "run:N", with a description.
struct ComparisonChoice {
    QString spec;
    QString text;
};

// One comparison of an experiment session: the first arm against another, for one workload,
// each side the completed runs of that arm in that session ("run:3,7"; empty: none).
struct ComparisonPair {
    QString title; // "model-load: disk vs shm"
    QString a, b;
    QString labelA, labelB;
};

// Builds comparisons and writes their exports on a worker thread, so the compare view never
// waits on SQLite or the disk. Each call opens the workspace read-only for its own duration.
class ComparisonWorker : public QObject {
    Q_OBJECT
  public:
    explicit ComparisonWorker(QObject* parent = nullptr);

    void listChoices(const QString& db);
    // labelA, labelB: what the sides are called; empty: the spec's own description. The
    // charts are drawn `chartSize` logical pixels in `style` (the view's colours and text).
    void compare(const QString& db, const QString& a, const QString& b, const QStringList& gates,
                 const QStringList& presets, quint64 request, const QString& labelA = {},
                 const QString& labelB = {}, const tierscope::SvgChart::Style& style = {},
                 QSize chartSize = {900, 480});
    // The comparisons of the experiment `planText` ran as session `sessionId`: every workload,
    // only that session's completed runs (an earlier or cancelled experiment of the same name
    // is not pooled in), with the plan's gates.
    void experimentPairs(const QString& db, qint64 sessionId, const QString& planText);
    // The format comes from the suffix: .html, .md, .json, .csv, anything else text.
    void exportReport(const tierscope::ComparisonResult& in, const QString& path);
    // .svg, .png or .pdf; `size` in logical pixels, a PNG's at dpi/96 pixels each
    void exportChart(const QByteArray& svg, const QString& path, QSize size, int dpi = 96);

  signals:
    void choicesListed(const QList<tierscope::ComparisonChoice>& choices);
    // notApplicable: indices into result.gates of gates on a KPI neither side measured (a
    // gate for another workload); the core judges them undecided.
    void compared(quint64 request, const tierscope::ComparisonResult& result,
                  const QList<int>& notApplicable);
    void failed(quint64 request, const QString& message);
    void experimentListed(const QList<tierscope::ComparisonPair>& pairs, const QStringList& gates);
    void exported(const QString& path, const QString& error);
};

} // namespace tierscope

Q_DECLARE_METATYPE(tierscope::ComparisonChoice)
Q_DECLARE_METATYPE(tierscope::ComparisonPair)
Q_DECLARE_METATYPE(tierscope::ComparisonResult)
