#pragma once

#include "experiments/ExperimentPlan.h"
#include "experiments/RunSchedule.h"
#include "ui/feeds/DeviceRecordMetaType.h"

#include <QDialog>
#include <QProcessEnvironment>
#include <QThread>
#include <memory>
#include <vector>

class QLabel;
class QLineEdit;
class QProcess;
class QTemporaryFile;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace tierscope {

class ExperimentWorker;
class GateLookTable;
class SampleSink;

// Runs an experiment plan from the GUI. Before anything runs it shows the plan and every shell
// command the plan would run; the user starts it. Then a progress bar, the status of each run,
// and cancel: completed runs stay and the experiment is marked incomplete. "Run on" takes a
// server, ssh://[user@]host[:port]: the plan then runs there, through `tierscope run --target`
// started as a child, whose progress fills the same table; Cancel stops the job on the server,
// and after a lost connection Reattach follows it again.
class ExperimentDialog : public QDialog {
    Q_OBJECT
  public:
    // planText: the TOML the user opened; a plan that does not parse shows its error.
    ExperimentDialog(QString db, const QString& planName, QString planText,
                     QWidget* parent = nullptr);
    ~ExperimentDialog() override;

    bool planValid() const { return m_valid; }
    QString commandsText() const;
    QTableWidget* runTable() const { return m_runs; }
    GateLookTable* gateLooks() const { return m_looks; }
    QProgressBar* progress() const { return m_progress; }
    QString statusText() const;
    // The first arm and the second of the first variant, as compare specs.
    QPair<QString, QString> firstComparison() const;
    // Empty or "local": this machine.
    void setTarget(const QString& target);
    QString target() const;
    // The tierscope that runs a plan on a server, and its environment; by default this program
    // and the GUI's own environment.
    void setRemoteCommand(const QString& binary, const QProcessEnvironment& env);
    QPlainTextEdit* remoteLog() const { return m_log; }
    QString remoteJob() const { return m_jobId; }
    qint64 serverSession() const { return m_serverSession; }
    bool running() const { return m_running; }
    // Also gets every reading of a run on this machine (the main window's live buffer).
    void setObserver(SampleSink* observer);

  public slots:
    void start();
    void cancel();
    // Follows the server's job again after the connection to it was lost.
    void reattach();
    // Mid-run, asks whether to cancel; yes: the run in progress stops, the dialog hides at once
    // and closes when the worker is done, so the window never waits on the experiment.
    void reject() override;
    // Whoever handles aboutToRun and must finish something first (the window stopping its own
    // recording: one recorder at a time) holds the start until it releases it.
    void holdStart() { m_startHeld = true; }
    void releaseStart();
    // What run `row` is (the worker says so as each starts). A row past the table's end is a
    // run the schedule gained while it ran (a load sweep's bisection): the table grows.
    void describeRun(int row, const QString& arm, const QString& experiment, bool warmup,
                     int repetition);

  signals:
    void aboutToRun();
    // A run on this machine records into `sessionId`, sampling `devices`, until it finishes.
    void recordingStarted(qint64 sessionId, const std::vector<tierscope::DeviceRecord>& devices);
    // One of its runs began at `atNs`: "run 3 of 8: disk, plan/model-load, repetition 2".
    void runStartedAt(qint64 atNs, const QString& description);
    void experimentFinished(qint64 sessionId, bool incomplete);
    void compareRequested(const QString& a, const QString& b);
    // "Compare results": this session's completed runs, every workload, the plan's gates.
    void compareExperimentRequested(qint64 sessionId, const QString& planText);

  protected:
    void closeEvent(QCloseEvent* event) override;

  private:
    void describe();
    void startRemote(const QStringList& args, const QString& target);
    void onRemoteOutput();
    void onRemoteLine(const QString& line);
    void onRemoteFinished(int exitCode, bool crashed);
    // The status cell of a run, coloured by its status (shown: the text, if not the status).
    void setRunStatus(int row, const QString& status, const QString& shown = {});
    void ensureRow(int row);
    void runStarted(int row);
    void runFinished(int row, const QString& status, const QString& detail);
    void stopRemote();
    void onFinished(qint64 sessionId, int failed, bool incomplete, const QString& error);
    void launch();

    QString m_db;
    QString m_planText;
    ExperimentPlan m_plan;
    std::vector<ScheduledRun> m_schedule;
    bool m_valid = false;
    bool m_running = false;
    bool m_startHeld = false;
    bool m_launchPending = false; // started while held: the worker runs when released
    bool m_closeWhenDone = false;
    qint64 m_sessionId = 0;
    QThread m_thread;
    ExperimentWorker* m_worker = nullptr;

    QLabel* m_summary = nullptr;
    QPlainTextEdit* m_commands = nullptr;
    QTableWidget* m_runs = nullptr;
    GateLookTable* m_looks = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QPushButton* m_start = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_compare = nullptr;
    QPushButton* m_reattach = nullptr;
    QLineEdit* m_target = nullptr;
    QPlainTextEdit* m_log = nullptr;

    QProcess* m_remote = nullptr;
    std::unique_ptr<QTemporaryFile> m_planFile;
    QString m_binary;
    QProcessEnvironment m_env;
    QString m_remoteTarget; // of the run in progress or the last one
    QString m_jobId;
    QString m_host;
    QString m_lastLine;
    QByteArray m_stderr; // a line not yet complete
    QByteArray m_report;
    int m_current = -1;
    qint64 m_serverSession = 0;
};

} // namespace tierscope
Q_DECLARE_METATYPE(tierscope::ExperimentDialog*)
