#include "ui/timeline/HeadlessExport.h"

#include <QCoreApplication>
#include <QProcess>
#include <QTimer>
#include <csignal>
#include <sys/types.h>
#include <unistd.h>
#include <utility>

namespace tierscope {

namespace {

QString& binaryOverride() {
    static QString path;
    return path;
}

// The end of what the child said: its error, not pages of progress.
QString lastLines(const QByteArray& out) {
    QStringList lines = QString::fromUtf8(out).trimmed().split('\n', Qt::SkipEmptyParts);
    while (lines.size() > 3)
        lines.removeFirst();
    return lines.join("; ");
}

} // namespace

HeadlessExport::HeadlessExport(QStringList args, QString path, QObject* parent)
    : QObject(parent), m_args(std::move(args)), m_path(std::move(path)) {
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    // Its own group: the export and whatever it starts end together, never the GUI with it.
    m_process->setChildProcessModifier([] { ::setpgid(0, 0); });
    m_limit = new QTimer(this);
    m_limit->setSingleShot(true);
    m_limit->setInterval(kTimeLimitMs);
    connect(m_limit, &QTimer::timeout, this, [this] {
        if (!running())
            return; // it has just ended: its own finished() says how
        killGroup();
        finish(tr("the export did not finish within %1 s and was stopped")
                   .arg(m_limit->interval() / 1000));
    });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            finish(tr("cannot start %1: %2").arg(binary(), m_process->errorString()));
    });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        const QString said = lastLines(m_process->readAll());
        if (status == QProcess::NormalExit && code == 0)
            finish({});
        else
            finish(said.isEmpty() ? tr("the export failed (exit %1)").arg(code) : said);
    });
}

HeadlessExport::~HeadlessExport() {
    if (!running())
        return;
    killGroup();
    m_process->waitForFinished(2000); // reaped, not left a zombie
}

void HeadlessExport::setTimeLimit(int ms) {
    m_limit->setInterval(ms);
}

void HeadlessExport::start() {
    m_limit->start();
    m_process->start(binary(), m_args);
}

bool HeadlessExport::running() const {
    return m_process->state() != QProcess::NotRunning;
}

QString HeadlessExport::binary() {
    return binaryOverride().isEmpty() ? QCoreApplication::applicationFilePath() : binaryOverride();
}

void HeadlessExport::setBinary(const QString& path) {
    binaryOverride() = path;
}

void HeadlessExport::finish(const QString& error) {
    m_limit->stop();
    if (std::exchange(m_finished, true))
        return;
    emit finished(m_path, error);
}

void HeadlessExport::killGroup() {
    const auto pid = static_cast<pid_t>(m_process->processId());
    if (pid <= 0)
        return;
    // The group, and the child itself in case it had not made its group yet.
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
}

} // namespace tierscope
