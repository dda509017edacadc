// MainWindow's section track: a recorded session's phases and runs above the charts (a click
// reads a section in the Range dock, a Ctrl+click compares two), and an experiment running here
// growing its sections as its runs finish.
#include "core/store/Store.h"
#include "core/view/PhaseSections.h"
#include "ui/MainWindow.h"
#include "ui/experiment/ExperimentDialog.h"
#include "ui/timeline/SectionCompareDialog.h"
#include "ui/timeline/SectionTrack.h"
#include "ui/timeline/TimelineView.h"

#include <QStatusBar>
#include <exception>

namespace tierscope {

void MainWindow::wirePhases() {
    auto* track = m_timeline->sectionTrack();
    // After onSessionOpened, which connected first: the session's sections on its time axis.
    connect(m_reader, &StoreReader::sessionOpened, this, [this](const SessionView& view) {
        if (view.info.id == m_shownSession)
            m_timeline->sectionTrack()->setSections(view.sections);
    });
    connect(track, &SectionTrack::compareRequested, this,
            [this](const PhaseSections::Section& a, const PhaseSections::Section& b) {
                if (isLive()) {
                    statusBar()->showMessage(
                        tr("Open the experiment's session to compare its sections"), 5000);
                    return;
                }
                if (!m_sectionCompare)
                    m_sectionCompare = new SectionCompareDialog(this);
                m_sectionCompare->setSession(m_db, m_shownSession, m_shownOrigin);
                m_sectionCompare->setMetricIds(m_timeline->storedMetricIds());
                m_sectionCompare->compare(a, b);
                m_sectionCompare->show();
                m_sectionCompare->raise();
            });
    // A plan run from here: its sections as its runs finish (a run starting means the one
    // before it is stored). Its end opens the session, which shows them all.
    connect(this, &MainWindow::planOpened, this, [this](ExperimentDialog* dialog) {
        connect(dialog, &ExperimentDialog::recordingStarted, this, &MainWindow::readLivePhases);
        connect(dialog, &ExperimentDialog::runStartedAt, this, &MainWindow::readLivePhases);
    });
}

void MainWindow::showLivePhases() {
    m_timeline->sectionTrack()->setSections({});
    readLivePhases();
}

// The experiment's runs and events, read on the reader's thread.
void MainWindow::readLivePhases() {
    const qint64 session = m_experimentSession;
    if (session == 0 || !isLive())
        return;
    QMetaObject::invokeMethod(m_reader, [this, db = m_db.toStdString(), session] {
        std::vector<PhaseSections::Section> sections;
        try {
            Store store(db, Store::Mode::ReadOnly);
            sections = PhaseSections::build(store.runsOfSession(session), store.events(session));
        } catch (const std::exception&) {
            return; // the next run reads again
        }
        QMetaObject::invokeMethod(this, [this, session, sections = std::move(sections)] {
            if (isLive() && session == m_experimentSession)
                m_timeline->sectionTrack()->setSections(sections, true);
        });
    });
}

} // namespace tierscope
