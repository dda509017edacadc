#pragma once

#include "core/report/ComparisonReport.h"

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

// Builds comparisons and writes their exports on a worker thread, so the compare view never
// waits on SQLite or the disk. Each call opens the workspace read-only for its own duration.
class ComparisonWorker : public QObject {
    Q_OBJECT
  public:
    explicit ComparisonWorker(QObject* parent = nullptr);

    void listChoices(const QString& db);
    void compare(const QString& db, const QString& a, const QString& b, const QStringList& gates,
                 const QStringList& presets, quint64 request);
    // The format comes from the suffix: .html, .md, .json, .csv, anything else text.
    void exportReport(const tierscope::ComparisonReport::Input& in, const QString& path);
    // .svg, .png or .pdf
    void exportChart(const QByteArray& svg, const QString& path, QSize size);

  signals:
    void choicesListed(const QList<tierscope::ComparisonChoice>& choices);
    // notApplicable: indices into result.gates of gates on a KPI neither side measured (a
    // gate for another workload); the core judges them inconclusive.
    void compared(quint64 request, const tierscope::ComparisonReport::Input& result,
                  const QList<int>& notApplicable);
    void failed(quint64 request, const QString& message);
    void exported(const QString& path, const QString& error);
};

} // namespace tierscope

Q_DECLARE_METATYPE(tierscope::ComparisonChoice)
Q_DECLARE_METATYPE(tierscope::ComparisonReport::Input)
