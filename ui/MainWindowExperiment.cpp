// MainWindow's experiments: a plan opened in the experiment dialog, kept apart from
// MainWindow.cpp so the experiment wiring stays in one place.
#include "ui/ExperimentDialog.h"
#include "ui/MainWindow.h"
#include "ui/StoreReader.h"
#include "ui/compare/CompareDialog.h"

#include <QFile>
#include <QFileInfo>
#include <QStatusBar>

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
            // One recorder at a time: the experiment records the machine itself.
            connect(dialog, &ExperimentDialog::aboutToRun, this, [this] {
                if (m_liveSession != 0)
                    stopRecording();
            });
            connect(dialog, &ExperimentDialog::experimentFinished, this,
                    [this](qint64 sessionId, bool) {
                        refreshSessions();
                        if (sessionId > 0)
                            openSession(sessionId);
                    });
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

} // namespace tierscope
