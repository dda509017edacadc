// MainWindow's experiments: a plan opened in the experiment dialog, kept apart from
// MainWindow.cpp so the experiment wiring stays in one place.
#include "ui/DevicesView.h"
#include "ui/MainWindow.h"
#include "ui/compare/CompareDialog.h"
#include "ui/experiment/ExperimentDialog.h"
#include "ui/feeds/LiveRecording.h"
#include "ui/sessions/StoreReader.h"
#include "ui/timeline/TimelineView.h"

#include <QAction>
#include <QFile>
#include <QFileInfo>
#include <QStatusBar>
#include <QTimer>
#include <utility>

namespace tierscope {

void MainWindow::openPlan(const QString& path) {
    QMetaObject::invokeMethod(m_reader, [this, path] {
        QFile file(path);
        const bool ok = file.open(QIODevice::ReadOnly);
        const QString text = ok ? QString::fromUtf8(file.readAll()) : QString();
        const QString error = ok ? QString() : file.errorString();
        QMetaObject::invokeMethod(this, [this, path, text, error] {
            if (!error.isEmpty()) {
                statusBar()->showMessage(tr("Cannot read %1: %2").arg(path, error), 10000);
                return;
            }
            auto* dialog = new ExperimentDialog(m_db, QFileInfo(path).fileName(), text, this);
            dialog->setAttribute(Qt::WA_DeleteOnClose);
            wireExperiment(dialog);
            connect(dialog, &ExperimentDialog::compareRequested, this,
                    [this](const QString& a, const QString& b) { openCompare(a, b); });
            connect(dialog, &ExperimentDialog::compareExperimentRequested, this,
                    [this](qint64 session, const QString& plan) {
                        openCompare()->compareExperiment(session, plan);
                    });
            dialog->show();
            emit planOpened(dialog);
        });
    });
}

// One recorder at a time: the experiment records the machine itself, into the live view, and
// the recording it replaced starts again when it ends.
void MainWindow::wireExperiment(ExperimentDialog* dialog) {
    dialog->setObserver(&m_buffer);
    connect(dialog, &ExperimentDialog::aboutToRun, this, [this, dialog] {
        disconnectPrometheus();
        m_resumeRecording = m_liveSession != 0;
        if (m_liveSession == 0)
            return;
        // The recording stops on its own thread: the experiment starts once it has, not
        // beside it (a second recorder of this machine for a moment), or after 10 s whatever.
        dialog->holdStart();
        connect(m_live, &LiveRecording::stopped, dialog, &ExperimentDialog::releaseStart,
                Qt::SingleShotConnection);
        QTimer::singleShot(10'000, dialog, &ExperimentDialog::releaseStart);
        stopRecording();
    });
    connect(dialog, &ExperimentDialog::recordingStarted, this,
            [this](qint64 id, const std::vector<DeviceRecord>& devices) {
                m_experimentSession = id;
                m_experimentRun.clear();
                m_liveDevices = devices;
                m_liveMarkers.clear();
                m_chartedSeries = 0; // the experiment's engines are new series
                m_record->setEnabled(false);
                if (isLive()) {
                    m_devices->setDevices(devices);
                    m_timeline->setMarkers(m_liveMarkers);
                }
                setStatus();
                refreshSessions();
            });
    connect(dialog, &ExperimentDialog::runStartedAt, this,
            [this](qint64 atNs, const QString& description) {
                m_experimentRun = description;
                m_liveMarkers.push_back({atNs, description});
                if (isLive())
                    m_timeline->setMarkers(m_liveMarkers);
                setStatus();
            });
    connect(dialog, &ExperimentDialog::experimentFinished, this, [this](qint64 sessionId, bool) {
        m_experimentSession = 0;
        m_experimentRun.clear();
        m_record->setEnabled(true);
        setStatus();
        refreshSessions();
        if (sessionId > 0)
            openSession(sessionId);
        if (std::exchange(m_resumeRecording, false))
            startRecording();
    });
}

} // namespace tierscope
