#pragma once

#include "core/report/ComparisonReport.h"
#include "ui/compare/ComparisonWorker.h"

#include <QDialog>
#include <QStringList>
#include <QThread>

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSplitter;
class QTabWidget;
class QTableWidget;

namespace tierscope {

// The A/B compare view: pick two sessions, runs or experiment arms, and see the KPI table
// with deltas, 95 % intervals and gate badges, the bottleneck shares and the charts (four, and
// throughput against latency where both sides are sweeps).
// Each chart exports as PNG, SVG or PDF; the whole comparison as HTML, CSV, JSON or Markdown,
// or as one image. The charts are drawn in the view's colours and at its text size.
class CompareDialog : public QDialog {
    Q_OBJECT
  public:
    explicit CompareDialog(QString db, QWidget* parent = nullptr);
    ~CompareDialog() override;

    void setSides(const QString& a, const QString& b);
    void setGates(const QString& gates, const QString& preset = {});
    void compare();
    // The comparisons of the experiment run as session `sessionId` with plan `planText`: each
    // workload's first arm against the others, only that session's completed runs, with the
    // plan's gates. The first is compared at once; the others are one pick away.
    void compareExperiment(qint64 sessionId, const QString& planText);
    void exportReportTo(const QString& path);
    void exportChartTo(int chart, const QString& path, QSize size = {1200, 700});
    // The whole comparison as one PNG, SVG or PDF (by the suffix): a title block naming the
    // arms, the verdict, every KPI and gate row and every chart, in the view's theme, `width`
    // logical pixels wide (0: as shown) at `dpi` (exported). `light` in a dark view: the same
    // comparison drawn again in the light theme, for print, by `tierscope export chart
    // --chart view` in a dialog of this one's size, as wide as it (the charts cannot change
    // theme in place).
    void saveImageTo(const QString& path, int width = 0, int dpi = 96, bool light = false);

    const ComparisonResult& result() const { return m_result; }
    QTableWidget* kpiTable() const { return m_kpis; }
    QTableWidget* gateTable() const { return m_gates; }
    QTabWidget* chartTabs() const { return m_tabs; }
    // The last tab: every validity check, cache reset and populate phase of the measured runs.
    QTableWidget* checkTable() const { return m_checks; }
    QString statusText() const;
    // The answer in one sentence, above every table ("B is better: ...").
    QString verdictText() const;
    QComboBox* workloadBox() const { return m_workload; }
    QString sideSpec(bool a) const;

  signals:
    void choicesLoaded();
    void experimentLoaded();
    void comparisonShown();
    void comparisonFailed(const QString& message);
    void exported(const QString& path, const QString& error);

  private:
    void showResult(const ComparisonResult& in);
    void fillKpis(const ComparisonResult& in);
    void addCheckTab(const ComparisonResult& in);
    void fillGates(const ComparisonResult& in);
    void askExportReport();
    void askExportChart();
    void askSaveImage();
    void saveLightImageTo(const QString& path, int width, int dpi);
    QString sideText(const ComparisonResult& in, bool a) const;
    void fitTables();

    QString m_db;
    QThread m_thread;
    ComparisonWorker* m_worker = nullptr;
    ComparisonResult m_result;
    quint64 m_request = 0;
    QList<int> m_notApplicable;    // gates of m_result that do not apply to its workload
    QList<ComparisonPair> m_pairs; // an experiment's comparisons, one per workload and arm
    QStringList m_pendingArgs;     // the sides and gates asked for, as `export chart` takes them
    QStringList m_comparedArgs;    // ... and those of m_result

    QComboBox* m_workload = nullptr;
    QLabel* m_verdict = nullptr;
    QComboBox* m_a = nullptr;
    QComboBox* m_b = nullptr;
    QLineEdit* m_gateText = nullptr;
    QComboBox* m_preset = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_exportReport = nullptr;
    QPushButton* m_exportChart = nullptr;
    QPushButton* m_saveImage = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_shares = nullptr;
    QTableWidget* m_kpis = nullptr;
    QTableWidget* m_gates = nullptr;
    QTabWidget* m_tabs = nullptr;
    QTableWidget* m_checks = nullptr; // owned by m_tabs
    QWidget* m_top = nullptr;         // the tables above the charts
    QSplitter* m_split = nullptr;
};

} // namespace tierscope
