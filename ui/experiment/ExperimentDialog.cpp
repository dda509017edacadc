#include "ui/experiment/ExperimentDialog.h"

#include "experiments/CalibrationPlan.h"
#include "experiments/ExperimentRunner.h"
#include "remote/SshTarget.h"
#include "ui/experiment/ExperimentWorker.h"
#include "ui/experiment/GateLookTable.h"
#include "ui/experiment/RemoteRunLog.h"
#include "ui/timeline/StatusColor.h"

#include <QCloseEvent>
#include <QCoreApplication>
#include <QDir>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QScreen>
#include <QTableWidget>
#include <QTemporaryFile>
#include <QVBoxLayout>
#include <algorithm>
#include <csignal>
#include <unistd.h>
#include <utility>

namespace tierscope {

namespace {

enum Column { Number, Arm, Experiment, Repetition, Status, Detail };

StatusColor::Kind statusKind(const QString& status) {
    if (status == "completed" || status == "warmup")
        return StatusColor::Kind::Good;
    if (status == "failed")
        return StatusColor::Kind::Bad;
    if (status == "cancelled")
        return StatusColor::Kind::Caution;
    if (status == "running")
        return StatusColor::Kind::Changed;
    return StatusColor::Kind::Muted;
}

bool isRemote(const QString& target) {
    const QString t = target.trimmed();
    return !t.isEmpty() && t != "local";
}

constexpr int kExitRemote = 14; // the CLI's: the server could not be reached or used

} // namespace

ExperimentDialog::ExperimentDialog(QString db, const QString& planName, QString planText,
                                   QWidget* parent)
    : QDialog(parent), m_db(std::move(db)), m_planText(std::move(planText)) {
    setWindowTitle(tr("Run experiment — %1").arg(planName));
    // 1100x760 where there is room; on a 1280x720 screen (or 2560x1440 at scale factor 2) nine
    // tenths of it, as the compare view, so its title bar and buttons stay on the screen.
    const QScreen* on = screen();
    resize(on ? QSize(1100, 760).boundedTo(on->availableGeometry().size() * 9 / 10)
              : QSize(1100, 760));
    qRegisterMetaType<std::vector<tierscope::DeviceRecord>>("std::vector<tierscope::DeviceRecord>");
    m_worker = new ExperimentWorker;
    m_worker->moveToThread(&m_thread);
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.start();

    m_summary = new QLabel(this);
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::PlainText);
    m_commands = new QPlainTextEdit(this);
    m_commands->setReadOnly(true);
    m_commands->setMaximumHeight(150);
    m_runs = new QTableWidget(0, 6, this);
    m_runs->setHorizontalHeaderLabels(
        {tr("#"), tr("arm"), tr("experiment"), tr("repetition"), tr("status"), tr("detail")});
    m_runs->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_runs->horizontalHeader()->setStretchLastSection(true);
    m_runs->verticalHeader()->hide();
    m_progress = new QProgressBar(this);
    m_status = new QLabel(this);
    m_start = new QPushButton(tr("Run"), this);
    m_cancel = new QPushButton(tr("Cancel run"), this);
    m_compare = new QPushButton(tr("Compare results"), this);
    auto* close = new QPushButton(tr("Close"), this);
    m_reattach = new QPushButton(tr("Reattach"), this);
    m_reattach->setToolTip(tr("Follow the job on the server again"));
    m_reattach->hide();
    m_cancel->setEnabled(false);
    m_compare->setEnabled(false);
    m_target = new QLineEdit(this);
    m_target->setObjectName("target");
    m_target->setPlaceholderText(tr("this machine, or ssh://[user@]host[:port]"));
    m_target->setToolTip(tr("A server: the plan runs there, through your own ssh (its config, "
                            "keys and agent); tierscope must be installed on it"));
    m_log = new QPlainTextEdit(this);
    m_log->setObjectName("serverOutput");
    m_log->setReadOnly(true);
    m_log->setMaximumBlockCount(5000);
    m_log->setMaximumHeight(160);
    m_log->hide();
    m_binary = QCoreApplication::applicationFilePath();
    m_env = QProcessEnvironment::systemEnvironment();
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_status, 1);
    buttons->addWidget(m_start);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_reattach);
    buttons->addWidget(m_compare);
    buttons->addWidget(close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    auto* where = new QFormLayout;
    where->addRow(tr("Run on:"), m_target);
    layout->addLayout(where);
    auto* commandsLabel = new QLabel(this);
    auto sayWhere = [commandsLabel, this] {
        commandsLabel->setText(
            isRemote(m_target->text())
                ? tr("Shell commands this plan runs on %1, into that server's workspace "
                     "(review them before you start):")
                      .arg(m_target->text().trimmed())
                : tr("Shell commands this plan runs on this machine (review them before you "
                     "start):"));
    };
    sayWhere();
    connect(m_target, &QLineEdit::textChanged, this, sayWhere);
    layout->addWidget(commandsLabel);
    layout->addWidget(m_commands);
    layout->addWidget(m_runs, 1);
    m_looks = new GateLookTable(this);
    layout->addWidget(m_looks);
    layout->addWidget(m_log);
    layout->addWidget(m_progress);
    layout->addLayout(buttons);

    connect(m_start, &QPushButton::clicked, this, &ExperimentDialog::start);
    connect(m_cancel, &QPushButton::clicked, this, &ExperimentDialog::cancel);
    connect(m_reattach, &QPushButton::clicked, this, &ExperimentDialog::reattach);
    connect(close, &QPushButton::clicked, this, &QDialog::close);
    connect(m_compare, &QPushButton::clicked, this,
            [this] { emit compareExperimentRequested(m_sessionId, m_planText); });
    connect(m_worker, &ExperimentWorker::recording, this, &ExperimentDialog::recordingStarted);
    connect(m_worker, &ExperimentWorker::stepDescribed, this, &ExperimentDialog::describeRun);
    connect(m_worker, &ExperimentWorker::stepStarted, this, [this](int index, qint64 atNs) {
        runStarted(index);
        m_status->setText(tr("Run %1 of %2").arg(index + 1).arg(m_runs->rowCount()));
        auto cell = [this, index](int column) {
            const auto* item = m_runs->item(index, column);
            return item ? item->text() : QString();
        };
        emit runStartedAt(atNs, tr("run %1 of %2: %3, %4, %5")
                                    .arg(index + 1)
                                    .arg(m_runs->rowCount())
                                    .arg(cell(Arm), cell(Experiment),
                                         cell(Repetition) == tr("warm-up")
                                             ? tr("warm-up")
                                             : tr("repetition %1").arg(cell(Repetition))));
    });
    connect(m_worker, &ExperimentWorker::stepFinished, this, &ExperimentDialog::runFinished);
    connect(m_worker, &ExperimentWorker::message, this,
            [this](const QString& text) { m_status->setText(text); });
    connect(m_worker, &ExperimentWorker::looked, m_looks, &GateLookTable::addLook);
    connect(m_worker, &ExperimentWorker::finished, this, &ExperimentDialog::onFinished);
    describe();
}

ExperimentDialog::~ExperimentDialog() {
    stopRemote();
    m_worker->cancel(); // the thread cannot quit while a run is going
    m_thread.quit();
    m_thread.wait();
}

void ExperimentDialog::describe() {
    try {
        m_plan = ExperimentPlan::parse(m_planText.toStdString());
        m_valid = true;
    } catch (const std::exception& e) {
        m_summary->setText(tr("This plan cannot run: %1").arg(e.what()));
        m_start->setEnabled(false);
        return;
    }
    m_schedule = RunSchedule::build(m_plan);
    QStringList arms, workloads;
    for (const auto& a : m_plan.arms)
        arms << QString("%1 [%2] %3")
                    .arg(QString::fromStdString(a.label), QString::fromStdString(a.storageProfile),
                         QString::fromStdString(a.path.empty() ? a.engineUrl : a.path));
    for (const auto& v : m_plan.variants())
        workloads << QString::fromStdString(ExperimentRunner::experimentName(m_plan, v));
    // "auto": the first block is scheduled; more come until the gates are decided.
    const QString repetitions = m_plan.maxRepetitions
                                    ? tr("%1 first, then until every gate is decided, at most %2")
                                          .arg(m_plan.repetitions)
                                          .arg(*m_plan.maxRepetitions)
                                    : QString::number(m_plan.repetitions);
    m_summary->setText(tr("Plan \"%1\": %2 runs (%3 repetitions, %4 warm-up, %5 order).\nArms: "
                          "%6\nWorkloads: %7\nGates: %8\nDatabase: %9")
                           .arg(QString::fromStdString(m_plan.name))
                           .arg(m_schedule.size())
                           .arg(repetitions)
                           .arg(m_plan.warmup)
                           .arg(QString::fromUtf8(ExperimentPlan::orderName(m_plan.order)))
                           .arg(arms.join("; "), workloads.join(", "),
                                m_plan.gates.empty() ? tr("none") : QString::fromStdString([&] {
                                    std::string g;
                                    for (const auto& t : m_plan.gates)
                                        g += (g.empty() ? "" : ", ") + t;
                                    return g;
                                }()),
                                m_db));
    const auto commands = ExperimentRunner::commands(m_plan);
    QStringList lines;
    for (const auto& c : commands)
        lines << QString::fromStdString(c);
    m_commands->setPlainText(lines.isEmpty() ? tr("(none)") : lines.join('\n'));
    m_runs->setRowCount(0);
    // calibrate = true: the A/A calibration's runs come first (ExperimentWorker runs it).
    const auto calibration = m_plan.calibrate ? RunSchedule::build(CalibrationPlan::of(m_plan))
                                              : std::vector<ScheduledRun>{};
    const int first = static_cast<int>(calibration.size());
    m_progress->setRange(0, first + static_cast<int>(m_schedule.size()));
    for (int i = 0; i < first; ++i) {
        const auto& s = calibration[static_cast<std::size_t>(i)];
        const auto plan = CalibrationPlan::of(m_plan);
        describeRun(i, QString::fromStdString(plan.arms[s.arm].label),
                    QString::fromStdString(ExperimentRunner::experimentName(plan, s.variant)),
                    s.warmup, s.repetition);
        setRunStatus(i, "pending", tr("pending"));
    }
    for (int i = 0; i < static_cast<int>(m_schedule.size()); ++i) {
        const auto& s = m_schedule[static_cast<std::size_t>(i)];
        describeRun(first + i, QString::fromStdString(m_plan.arms[s.arm].label),
                    QString::fromStdString(ExperimentRunner::experimentName(m_plan, s.variant)),
                    s.warmup, s.repetition);
        setRunStatus(first + i, "pending", tr("pending"));
    }
    m_progress->setValue(0);
    m_status->setText(tr("Review the plan and its commands, then Run."));
}

QString ExperimentDialog::commandsText() const {
    return m_commands->toPlainText();
}

QString ExperimentDialog::statusText() const {
    return m_status->text();
}

QPair<QString, QString> ExperimentDialog::firstComparison() const {
    if (!m_valid || m_plan.arms.size() < 2 || m_plan.variants().empty())
        return {};
    const std::string experiment =
        ExperimentRunner::experimentName(m_plan, m_plan.variants().front());
    // This execution's runs: an earlier execution of the same plan is another experiment.
    const std::string session = m_sessionId > 0 ? "@" + std::to_string(m_sessionId) : "";
    return {QString::fromStdString("arm:" + experiment + "/" + m_plan.arms[0].label + session),
            QString::fromStdString("arm:" + experiment + "/" + m_plan.arms[1].label + session)};
}

void ExperimentDialog::setTarget(const QString& target) {
    m_target->setText(target);
}

QString ExperimentDialog::target() const {
    return m_target->text().trimmed();
}

void ExperimentDialog::setRemoteCommand(const QString& binary, const QProcessEnvironment& env) {
    m_binary = binary;
    m_env = env;
}

void ExperimentDialog::start() {
    if (!m_valid || m_running)
        return;
    if (isRemote(m_target->text())) {
        const QString target = m_target->text().trimmed();
        const auto parsed = SshTarget::parse(target.toStdString());
        if (!parsed.target) {
            m_status->setText(tr("Run on: %1").arg(QString::fromStdString(parsed.error)));
            return;
        }
        // The plan goes to the server from a file of our own (the CLI sends it along).
        m_planFile =
            std::make_unique<QTemporaryFile>(QDir::tempPath() + "/tierscope-plan-XXXXXX.toml");
        const QByteArray text = m_planText.toUtf8();
        if (!m_planFile->open() || m_planFile->write(text) != text.size() || !m_planFile->flush()) {
            m_status->setText(
                tr("Cannot write the plan for the server: %1").arg(m_planFile->errorString()));
            m_planFile.reset();
            return;
        }
        m_planFile->close();
        for (int i = 0; i < m_runs->rowCount(); ++i) {
            setRunStatus(i, "pending", tr("pending"));
            m_runs->setItem(i, Detail, new QTableWidgetItem());
        }
        m_jobId.clear();
        m_log->clear();
        startRemote({"run", m_planFile->fileName(), "--target", target}, target);
        return;
    }
    m_running = true;
    emit aboutToRun();
    m_start->setEnabled(false);
    m_cancel->setEnabled(true);
    m_compare->setEnabled(false);
    m_progress->setValue(0);
    m_status->setText(tr("Starting…"));
    m_launchPending = true;
    if (!m_startHeld)
        launch();
}

void ExperimentDialog::releaseStart() {
    m_startHeld = false;
    if (m_launchPending)
        launch();
}

void ExperimentDialog::launch() {
    m_launchPending = false;
    QMetaObject::invokeMethod(m_worker,
                              [w = m_worker, db = m_db, text = m_planText] { w->run(db, text); });
}

void ExperimentDialog::setObserver(SampleSink* observer) {
    m_worker->setObserver(observer);
}

void ExperimentDialog::cancel() {
    if (!m_running)
        return;
    if (m_remote) {
        // The CLI asks the server to stop the job's process group, then ends.
        ::kill(static_cast<pid_t>(m_remote->processId()), SIGINT);
        m_cancel->setEnabled(false);
        m_status->setText(tr("Cancelling on %1: the run in progress stops there, completed runs "
                             "stay…")
                              .arg(m_host.isEmpty() ? m_remoteTarget : m_host));
        return;
    }
    if (std::exchange(m_launchPending, false)) { // cancelled before its worker ran
        onFinished(0, 0, true, tr("cancelled before it started"));
        return;
    }
    m_worker->cancel();
    m_cancel->setEnabled(false);
    m_status->setText(tr("Cancelling: the run in progress stops, completed runs stay…"));
}

void ExperimentDialog::closeEvent(QCloseEvent* event) {
    if (!m_running && !m_closeWhenDone) {
        QDialog::closeEvent(event);
        return;
    }
    // Deleting the dialog now would wait for the run in progress to stop.
    event->ignore();
    if (!m_closeWhenDone)
        reject();
}

void ExperimentDialog::reject() {
    if (!m_running) {
        QDialog::reject();
        return;
    }
    if (m_closeWhenDone)
        return;
    QMessageBox ask(QMessageBox::Question, tr("Experiment running"),
                    tr("Cancel the experiment? The run in progress stops; completed runs stay "
                       "and the experiment is marked incomplete."),
                    QMessageBox::Yes | QMessageBox::No, this);
    ask.setDefaultButton(QMessageBox::No);
    ask.button(QMessageBox::Yes)->setText(tr("Cancel experiment"));
    ask.button(QMessageBox::No)->setText(tr("Keep running"));
    if (ask.exec() != QMessageBox::Yes)
        return;
    cancel();
    m_closeWhenDone = true;
    hide();
}

void ExperimentDialog::onFinished(qint64 sessionId, int failed, bool incomplete,
                                  const QString& error) {
    m_running = false;
    m_sessionId = sessionId;
    m_cancel->setEnabled(false);
    m_start->setEnabled(true);
    m_compare->setEnabled(error.isEmpty() && m_plan.arms.size() >= 2);
    if (!error.isEmpty())
        m_status->setText(tr("The experiment could not run: %1").arg(error));
    else
        m_status->setText(tr("Session %1: %2 runs, %3 failed%4.")
                              .arg(sessionId)
                              .arg(m_schedule.size())
                              .arg(failed)
                              .arg(incomplete ? tr(", INCOMPLETE") : QString()));
    emit experimentFinished(sessionId, incomplete || !error.isEmpty());
    if (std::exchange(m_closeWhenDone, false))
        close(); // with WA_DeleteOnClose the dialog goes now; its worker is idle
}

void ExperimentDialog::setRunStatus(int row, const QString& status, const QString& shown) {
    auto* item = new QTableWidgetItem(shown.isEmpty() ? status : shown);
    item->setForeground(StatusColor::text(statusKind(status), m_runs->palette()));
    m_runs->setItem(row, Status, item);
}

// QTableWidget drops (and leaks) an item set past its last row: rows the schedule gained
// while it ran grow the table and the progress bar first.
void ExperimentDialog::ensureRow(int row) {
    if (row < m_runs->rowCount())
        return;
    const int first = m_runs->rowCount();
    m_runs->setRowCount(row + 1);
    m_progress->setMaximum(std::max(m_progress->maximum(), row + 1));
    for (int r = first; r <= row; ++r)
        setRunStatus(r, "pending", tr("pending"));
}

void ExperimentDialog::describeRun(int row, const QString& arm, const QString& experiment,
                                   bool warmup, int repetition) {
    ensureRow(row);
    m_runs->setItem(row, Number, new QTableWidgetItem(QString::number(row + 1)));
    m_runs->setItem(row, Arm, new QTableWidgetItem(arm));
    m_runs->setItem(row, Experiment, new QTableWidgetItem(experiment));
    m_runs->setItem(row, Repetition,
                    new QTableWidgetItem(warmup ? tr("warm-up") : QString::number(repetition)));
}

void ExperimentDialog::runStarted(int row) {
    ensureRow(row);
    setRunStatus(row, "running", tr("running"));
    m_runs->scrollToItem(m_runs->item(row, Status));
}

// For a run here (the worker) and on a server (its progress lines) alike.
void ExperimentDialog::runFinished(int row, const QString& status, const QString& detail) {
    ensureRow(row);
    setRunStatus(row, status);
    m_runs->setItem(row, Detail, new QTableWidgetItem(detail));
    m_progress->setValue(row + 1);
}

void ExperimentDialog::reattach() {
    if (m_running || m_jobId.isEmpty() || m_remoteTarget.isEmpty())
        return;
    startRemote({"run", "--target", m_remoteTarget, "--attach", m_jobId}, m_remoteTarget);
}

void ExperimentDialog::startRemote(const QStringList& args, const QString& target) {
    m_running = true;
    m_remoteTarget = target;
    m_current = -1;
    m_serverSession = 0;
    m_stderr.clear();
    m_report.clear();
    m_lastLine.clear();
    m_log->show();
    m_start->setEnabled(false);
    m_cancel->setEnabled(true);
    m_compare->setEnabled(false);
    m_reattach->hide();
    m_status->setText(tr("Connecting to %1…").arg(target));
    m_remote = new QProcess(this);
    m_remote->setProcessEnvironment(m_env);
    // Its own process group: closing the window ends it and its ssh, never the GUI's.
    m_remote->setChildProcessModifier([] { ::setpgid(0, 0); });
    connect(m_remote, &QProcess::readyReadStandardError, this, &ExperimentDialog::onRemoteOutput);
    connect(m_remote, &QProcess::readyReadStandardOutput, this, [this] {
        m_report += m_remote->readAllStandardOutput();
        if (m_report.size() > (16 << 20))
            m_report.truncate(16 << 20); // the CLI bounds it too
    });
    connect(m_remote, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        onRemoteFinished(code, status != QProcess::NormalExit);
    });
    connect(m_remote, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            onRemoteFinished(-1, true);
    });
    m_remote->start(m_binary, args);
}

void ExperimentDialog::onRemoteOutput() {
    m_stderr += m_remote->readAllStandardError();
    qsizetype end = 0;
    while ((end = m_stderr.indexOf('\n')) >= 0) {
        onRemoteLine(QString::fromUtf8(m_stderr.left(end)));
        m_stderr.remove(0, end + 1);
    }
    if (m_stderr.size() > 65536) { // a line that never ends: shown cut, not kept growing
        onRemoteLine(QString::fromUtf8(m_stderr));
        m_stderr.clear();
    }
}

void ExperimentDialog::onRemoteLine(const QString& text) {
    m_log->appendPlainText(text);
    m_lastLine = text;
    const auto line = RemoteRunLog::parse(text);
    switch (line.kind) {
    case RemoteRunLog::Line::Kind::Job:
        m_jobId = line.jobId;
        m_host = line.host;
        m_status->setText(tr("Job %1 on %2: the plan runs there").arg(m_jobId, m_host));
        break;
    case RemoteRunLog::Line::Kind::RunStarted:
        if (line.index < m_runs->rowCount()) {
            m_current = line.index;
            runStarted(m_current);
            m_status->setText(
                tr("Run %1 of %2 on %3").arg(line.index + 1).arg(line.total).arg(m_host));
        }
        break;
    case RemoteRunLog::Line::Kind::RunFinished:
        if (m_current >= 0)
            runFinished(m_current, line.status, line.detail);
        break;
    case RemoteRunLog::Line::Kind::Ended:
        m_serverSession = line.session;
        break;
    case RemoteRunLog::Line::Kind::Other:
        break;
    }
}

void ExperimentDialog::onRemoteFinished(int exitCode, bool crashed) {
    if (!m_remote)
        return;
    onRemoteOutput();
    if (!m_stderr.isEmpty())
        onRemoteLine(QString::fromUtf8(std::exchange(m_stderr, {})));
    if (!m_report.isEmpty())
        m_log->appendPlainText("\n" + QString::fromUtf8(m_report));
    const QString error =
        m_remote->error() == QProcess::FailedToStart ? m_remote->errorString() : QString();
    m_remote->deleteLater();
    m_remote = nullptr;
    m_planFile.reset();
    m_running = false;
    m_cancel->setEnabled(false);
    m_start->setEnabled(true);
    const QString host = m_host.isEmpty() ? m_remoteTarget : m_host;
    if (!error.isEmpty()) {
        m_status->setText(tr("Cannot start %1: %2").arg(m_binary, error));
    } else if (crashed) {
        m_status->setText(tr("tierscope run --target %1 ended abnormally").arg(m_remoteTarget));
    } else if (exitCode == kExitRemote && !m_jobId.isEmpty()) {
        m_status->setText(m_lastLine);
        m_reattach->show();
    } else if (exitCode == kExitRemote || exitCode == 2) {
        m_status->setText(m_lastLine); // unreachable, refused, not installed: one line
    } else {
        m_status->setText(
            m_serverSession > 0
                ? tr("Done on %1 (exit %2; the report is above). The runs are in the server's "
                     "session %3: tierscope pull %4 --session %3 brings them here.")
                      .arg(host)
                      .arg(exitCode)
                      .arg(m_serverSession)
                      .arg(m_remoteTarget)
                : tr("Ended on %1 (exit %2; see the output above).").arg(host).arg(exitCode));
    }
    if (std::exchange(m_closeWhenDone, false))
        close();
}

void ExperimentDialog::stopRemote() {
    if (!m_remote || m_remote->state() == QProcess::NotRunning)
        return;
    const auto group = static_cast<pid_t>(m_remote->processId());
    m_remote->disconnect(this);
    ::kill(-group, SIGTERM); // the job on the server goes on; Reattach, or --attach, finds it
    if (!m_remote->waitForFinished(3000)) {
        ::kill(-group, SIGKILL);
        m_remote->waitForFinished(2000);
    }
}

} // namespace tierscope
