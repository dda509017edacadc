#include "ui/ExperimentDialog.h"

#include "ui/ExperimentWorker.h"
#include "experiments/ExperimentRunner.h"

#include <QCloseEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <utility>

namespace tierscope {

namespace {

enum Column { Number, Arm, Experiment, Repetition, Status, Detail };

QColor statusColor(const QString& status) {
    if (status == "completed" || status == "warmup")
        return QColor("#2e7d32");
    if (status == "failed")
        return QColor("#c62828");
    if (status == "cancelled")
        return QColor("#b26a00");
    if (status == "running")
        return QColor("#1565c0");
    return QColor("#777777");
}

} // namespace

ExperimentDialog::ExperimentDialog(QString db, const QString& planName, QString planText,
                                   QWidget* parent)
    : QDialog(parent), m_db(std::move(db)), m_planText(std::move(planText)) {
    setWindowTitle(tr("Run experiment — %1").arg(planName));
    resize(1100, 760);
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
    m_cancel->setEnabled(false);
    m_compare->setEnabled(false);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_status, 1);
    buttons->addWidget(m_start);
    buttons->addWidget(m_cancel);
    buttons->addWidget(m_compare);
    buttons->addWidget(close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(new QLabel(tr("Shell commands this plan runs on this machine (review them "
                                    "before you start):"),
                                 this));
    layout->addWidget(m_commands);
    layout->addWidget(m_runs, 1);
    layout->addWidget(m_progress);
    layout->addLayout(buttons);

    connect(m_start, &QPushButton::clicked, this, &ExperimentDialog::start);
    connect(m_cancel, &QPushButton::clicked, this, &ExperimentDialog::cancel);
    connect(close, &QPushButton::clicked, this, &QDialog::close);
    connect(m_compare, &QPushButton::clicked, this,
            [this] { emit compareExperimentRequested(m_sessionId, m_planText); });
    connect(m_worker, &ExperimentWorker::stepStarted, this, [this](int index) {
        auto* item = new QTableWidgetItem(tr("running"));
        item->setForeground(statusColor("running"));
        m_runs->setItem(index, Status, item);
        m_runs->scrollToItem(item);
        m_status->setText(tr("Run %1 of %2").arg(index + 1).arg(m_schedule.size()));
    });
    connect(m_worker, &ExperimentWorker::stepFinished, this,
            [this](int index, const QString& status, const QString& detail) {
                auto* item = new QTableWidgetItem(status);
                item->setForeground(statusColor(status));
                m_runs->setItem(index, Status, item);
                m_runs->setItem(index, Detail, new QTableWidgetItem(detail));
                m_progress->setValue(index + 1);
            });
    connect(m_worker, &ExperimentWorker::message, this,
            [this](const QString& text) { m_status->setText(text); });
    connect(m_worker, &ExperimentWorker::finished, this, &ExperimentDialog::onFinished);
    describe();
}

ExperimentDialog::~ExperimentDialog() {
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
    m_summary->setText(tr("Plan \"%1\": %2 runs (%3 repetitions, %4 warm-up, %5 order).\nArms: "
                          "%6\nWorkloads: %7\nGates: %8\nDatabase: %9")
                           .arg(QString::fromStdString(m_plan.name))
                           .arg(m_schedule.size())
                           .arg(m_plan.repetitions)
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
    m_runs->setRowCount(static_cast<int>(m_schedule.size()));
    for (int i = 0; i < static_cast<int>(m_schedule.size()); ++i) {
        const auto& s = m_schedule[static_cast<std::size_t>(i)];
        m_runs->setItem(i, Number, new QTableWidgetItem(QString::number(i + 1)));
        m_runs->setItem(i, Arm,
                        new QTableWidgetItem(QString::fromStdString(m_plan.arms[s.arm].label)));
        m_runs->setItem(i, Experiment,
                        new QTableWidgetItem(QString::fromStdString(
                            ExperimentRunner::experimentName(m_plan, s.variant))));
        m_runs->setItem(
            i, Repetition,
            new QTableWidgetItem(s.warmup ? tr("warm-up") : QString::number(s.repetition)));
        auto* status = new QTableWidgetItem(tr("pending"));
        status->setForeground(statusColor("pending"));
        m_runs->setItem(i, Status, status);
    }
    m_progress->setRange(0, static_cast<int>(m_schedule.size()));
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
    return {QString::fromStdString("arm:" + experiment + "/" + m_plan.arms[0].label),
            QString::fromStdString("arm:" + experiment + "/" + m_plan.arms[1].label)};
}

void ExperimentDialog::start() {
    if (!m_valid || m_running)
        return;
    m_running = true;
    emit aboutToRun();
    m_start->setEnabled(false);
    m_cancel->setEnabled(true);
    m_compare->setEnabled(false);
    m_progress->setValue(0);
    m_status->setText(tr("Starting…"));
    QMetaObject::invokeMethod(m_worker,
                              [w = m_worker, db = m_db, text = m_planText] { w->run(db, text); });
}

void ExperimentDialog::cancel() {
    if (!m_running)
        return;
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

} // namespace tierscope
