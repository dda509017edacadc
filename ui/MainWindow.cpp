#include "ui/MainWindow.h"

#include "core/util/UnitFormat.h"
#include "core/util/Version.h"
#include "core/util/WallClock.h"
#include "core/view/ChartCatalog.h"
#include "core/view/EngineAbsence.h"
#include "core/view/StatTiles.h"
#include "ui/AppPalette.h"
#include "ui/DevicesView.h"
#include "ui/SavedLayouts.h"
#include "ui/SettingsDialog.h"
#include "ui/compare/CompareDialog.h"
#include "ui/compare/OverlayView.h"
#include "ui/experiment/RunsPanel.h"
#include "ui/feeds/LiveRecording.h"
#include "ui/feeds/PrometheusDialog.h"
#include "ui/feeds/PrometheusFeed.h"
#include "ui/feeds/RemoteFeed.h"
#include "ui/sessions/SessionBrowser.h"
#include "ui/sessions/SessionListModel.h"
#include "ui/timeline/BottleneckBand.h"
#include "ui/timeline/ChartRenderer.h"
#include "ui/timeline/RangePanel.h"
#include "ui/timeline/StatTileRow.h"
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineView.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPixmap>
#include <QPointer>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QThreadPool>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>
#include <limits>
#include <utility>

namespace tierscope {

namespace {

constexpr int kLiveRepaintMs = 100; // live updates are batched, never per sample
constexpr int kSessionListRefreshMs = 3000;

// The style's media icons are black, and vanish on a dark palette: drawn here in the
// palette's text colour (Record in red, as recorders show it).
enum class Media { Record, Stop, Pause };
QIcon mediaIcon(Media kind, const QPalette& palette) {
    QIcon icon;
    for (const QPalette::ColorGroup group : {QPalette::Active, QPalette::Disabled}) {
        QPixmap pixmap(32, 32);
        pixmap.fill(Qt::transparent);
        QPainter p(&pixmap);
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(Qt::NoPen);
        const QColor ink = palette.color(group, QPalette::WindowText);
        switch (kind) {
        case Media::Record:
            p.setBrush(group == QPalette::Active ? QColor(0xd3, 0x2f, 0x2f) : ink);
            p.drawEllipse(QRectF(6, 6, 20, 20));
            break;
        case Media::Stop:
            p.setBrush(ink);
            p.drawRoundedRect(QRectF(7, 7, 18, 18), 2, 2);
            break;
        case Media::Pause:
            p.setBrush(ink);
            p.drawRect(QRectF(8, 6, 6, 20));
            p.drawRect(QRectF(18, 6, 6, 20));
            break;
        }
        p.end();
        icon.addPixmap(pixmap, group == QPalette::Active ? QIcon::Normal : QIcon::Disabled);
    }
    return icon;
}

} // namespace

MainWindow::MainWindow(Options options, QWidget* parent)
    : QMainWindow(parent), m_options(std::move(options)), m_settings(Settings::load()),
      m_buffer(3600 * kSecond) {
    m_db = m_options.db.isEmpty() ? m_settings.databaseOrDefault() : m_options.db;
    if (m_options.exportOnly) { // the default layout, so an export is the same anywhere
        m_settings.theme = m_options.theme;
        m_settings.openGl = false; // an export paints with QPainter: GL items would be blank
    } else {
        m_layout = SavedLayouts::current();
    }
    setWindowTitle(tr("tierscope"));
    // 1600x1000 where there is room; on a small screen, or at QT_SCALE_FACTOR=2 (a 1280x720
    // screen is 640x360 then), no larger than the screen.
    if (const QScreen* s = screen())
        resize(QSize(1600, 1000).boundedTo(s->availableGeometry().size()));
    else
        resize(1600, 1000);

    m_reader = new StoreReader;
    m_reader->moveToThread(&m_readerThread);
    connect(&m_readerThread, &QThread::finished, m_reader, &QObject::deleteLater);
    m_live = new LiveRecording(m_buffer);
    m_live->moveToThread(&m_liveThread);
    m_feed = new PrometheusFeed(m_buffer);
    m_feed->moveToThread(&m_liveThread);
    m_remote = new RemoteFeed(m_buffer, this);
    m_readerThread.start();
    m_liveThread.start();

    m_timeline = new TimelineView(this);
    setCentralWidget(m_timeline);
    buildDocks();
    buildToolbar(); // its menus list the docks
    m_status = new QLabel(this);
    statusBar()->addWidget(m_status, 1);
    if (!m_options.exportOnly) {
        QSettings saved("tierscope", "tierscope");
        restoreGeometry(saved.value("window/geometry").toByteArray());
        restoreState(saved.value("window/state").toByteArray());
        fitToScreen(); // saved on a larger screen, or at a smaller scale factor
    }
    // The runs and a range's figures belong to a recorded session, none of which is shown yet:
    // a saved layout would bring them back empty over the live charts.
    m_runsDock->hide();
    m_rangeDock->hide();
    applySettings();

    connectReader();
    wirePhases();
    connectLiveSources();

    m_liveTimer = new QTimer(this);
    m_liveTimer->setInterval(kLiveRepaintMs);
    connect(m_liveTimer, &QTimer::timeout, this, &MainWindow::refreshLive);
    m_liveTimer->start();
    m_rangeTimer = new QTimer(this);
    m_rangeTimer->setSingleShot(true);
    m_rangeTimer->setInterval(120); // one query per burst of wheel or drag events
    connect(m_rangeTimer, &QTimer::timeout, this,
            [this] { requestRange(m_pendingX0, m_pendingX1); });
    connect(m_timeline, &TimelineView::rangeChanged, this, [this](double x0, double x1) {
        m_pendingX0 = x0;
        m_pendingX1 = x1;
        m_rangeTimer->start();
    });
    connect(m_timeline, &TimelineView::plotWidthChanged, this, &MainWindow::refetchForWidth);
    // A chart scrolled into view was skipped by the live frames: the next tick draws it.
    connect(m_timeline, &TimelineView::viewportMoved, this, [this] { m_pacer.invalidate(); });
    connect(m_timeline, &TimelineView::runSelected, m_runs, &RunsPanel::highlightRun);
    connect(m_timeline, &TimelineView::chartExportRequested, this, &MainWindow::askExportChart);
    m_timeline->setHiddenSeries(m_layout.hiddenSeries);
    connect(m_timeline, &TimelineView::seriesToggled, this, [this] {
        m_layout.hiddenSeries = m_timeline->hiddenSeries();
        if (!m_options.exportOnly)
            SavedLayouts::setCurrent(m_layout);
    });
    connect(m_timeline, &TimelineView::runSelected, this, [this](qint64 runId) {
        for (const auto& s : m_timeline->spans())
            if (s.runId == runId)
                statusBar()->showMessage(s.label + " - " + s.detail, 15000);
    });

    // CLI commands write sessions into the same workspace: poll for them, off the GUI thread.
    m_sessionsTimer = new QTimer(this);
    m_sessionsTimer->setInterval(kSessionListRefreshMs);
    connect(m_sessionsTimer, &QTimer::timeout, this, [this] {
        if (!m_listing)
            refreshSessions();
    });
    m_sessionsTimer->start();

    refreshSessions();
    if (m_options.session > 0)
        openSession(m_options.session);
    else
        setStatus();
    wireRemoteFeed();
    if (!m_options.target.isEmpty())
        connectServer(m_options.target);
    else if (m_options.record)
        startRecording();
}

// The Record button as the recording is: checked, "Stop" and its icon while recording.
void MainWindow::showRecording(bool recording) {
    m_record->setChecked(recording);
    m_record->setText(recording ? tr("Stop") : tr("Record"));
    m_record->setIcon(mediaIcon(recording ? Media::Stop : Media::Record, QApplication::palette()));
}

MainWindow::~MainWindow() {
    if (!m_options.exportOnly) {
        QSettings saved("tierscope", "tierscope");
        saved.setValue("window/geometry", saveGeometry());
        saved.setValue("window/state", saveState());
    }
    delete m_remote; // it writes into m_buffer until its thread ends
    stopProcessIo();
    stopGpu();
    // The recording stops on its own thread: stopping joins collector threads and writes.
    QMetaObject::invokeMethod(
        m_live, [this] { m_live->stop(); }, Qt::BlockingQueuedConnection);
    QMetaObject::invokeMethod(
        m_live, [this] { delete m_live; }, Qt::BlockingQueuedConnection);
    QMetaObject::invokeMethod(
        m_feed, [this] { delete m_feed; }, Qt::BlockingQueuedConnection);
    m_liveThread.quit();
    m_readerThread.quit();
    m_liveThread.wait();
    m_readerThread.wait();
}

void MainWindow::buildToolbar() {
    auto* bar = addToolBar(tr("Recording"));
    bar->setObjectName("recording"); // saveState needs it
    bar->setMovable(false);
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_record = bar->addAction(mediaIcon(Media::Record, QApplication::palette()), tr("Record"));
    m_record->setCheckable(true);
    m_record->setToolTip(tr("Start or stop recording this machine (Ctrl+R)"));
    m_record->setShortcut(QKeySequence("Ctrl+R"));
    connect(m_record, &QAction::triggered, this,
            [this](bool on) { on ? startRecording() : stopRecording(); });
    m_label = new QLineEdit(this);
    m_label->setPlaceholderText(tr("session label"));
    m_label->setMaximumWidth(220);
    bar->addWidget(m_label);
    m_profile = new QComboBox(this);
    m_profile->setObjectName("storageProfile");
    m_profile->setEditable(true);
    m_profile->lineEdit()->setPlaceholderText(tr("storage profile"));
    m_profile->setMinimumWidth(200);
    m_profile->setToolTip(tr("The storage configuration under test, e.g. local-nvme"));
    bar->addWidget(m_profile);
    m_marker = bar->addAction(style()->standardIcon(QStyle::SP_DialogApplyButton), tr("Marker"));
    m_marker->setShortcut(QKeySequence("Ctrl+M"));
    m_marker->setToolTip(tr("Add a note at the current time (Ctrl+M)"));
    connect(m_marker, &QAction::triggered, this, &MainWindow::addMarker);
    bar->addSeparator();
    m_window = new QComboBox(this);
    m_window->addItem(tr("Last 1 min"), 60);
    m_window->addItem(tr("Last 5 min"), 300);
    m_window->addItem(tr("Last 30 min"), 1800);
    m_window->addItem(tr("All"), 0);
    m_window->setCurrentIndex(std::max(0, m_window->findData(m_options.windowSeconds)));
    connect(m_window, &QComboBox::currentIndexChanged, this, [this] {
        m_pacer.invalidate();
        refreshLive();
    });
    bar->addWidget(m_window);
    m_pause = bar->addAction(mediaIcon(Media::Pause, QApplication::palette()), tr("Pause"));
    m_pause->setCheckable(true);
    m_pause->setShortcut(QKeySequence(Qt::Key_Space));
    m_pause->setToolTip(tr("Freeze the live view; recording goes on (Space)"));
    m_liveAction = bar->addAction(style()->standardIcon(QStyle::SP_BrowserReload), tr("Live"));
    m_liveAction->setToolTip(tr("Back to the live view of this machine"));
    connect(m_liveAction, &QAction::triggered, this, &MainWindow::showLive);
    bar->addAction(m_timeline->resetZoomAction());
    bar->addSeparator();
    auto* compare =
        bar->addAction(style()->standardIcon(QStyle::SP_FileDialogContentsView), tr("Compare"));
    compare->setToolTip(tr("Compare two sessions, runs or experiment arms (Ctrl+K)"));
    compare->setShortcut(QKeySequence("Ctrl+K"));
    connect(compare, &QAction::triggered, this, [this] { openCompare(); });
    auto* plan = bar->addAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("Run plan"));
    plan->setToolTip(tr("Open an experiment plan (TOML), review it and run it"));
    connect(plan, &QAction::triggered, this, [this] {
        // The shipped examples to start from, not whatever directory the app started in.
        const QString path =
            QFileDialog::getOpenFileName(this, tr("Open experiment plan"),
                                         examplePlansDir(QCoreApplication::applicationDirPath()),
                                         tr("Experiment plans (*.toml)"));
        if (!path.isEmpty())
            openPlan(path);
    });
    auto* prometheus =
        bar->addAction(style()->standardIcon(QStyle::SP_DriveNetIcon), tr("Prometheus"));
    prometheus->setToolTip(tr("Watch the nodes of a Prometheus server instead of this machine"));
    connect(prometheus, &QAction::triggered, this, [this] {
        PrometheusDialog dialog(m_feed, m_feedUrl, this);
        if (dialog.exec() == QDialog::Accepted)
            connectPrometheus(dialog.url(), dialog.nodes(), dialog.stepS());
    });
    connect(
        bar->addAction(style()->standardIcon(QStyle::SP_ComputerIcon), tr("Connect to server...")),
        &QAction::triggered, this, &MainWindow::askServer);
    m_disconnect = bar->addAction(style()->standardIcon(QStyle::SP_BrowserStop), tr("Disconnect"));
    m_disconnect->setToolTip(tr("Stop watching the Prometheus server; its session is kept"));
    m_disconnect->setEnabled(false);
    connect(m_disconnect, &QAction::triggered, this, &MainWindow::disconnectPrometheus);
    auto* settings =
        bar->addAction(style()->standardIcon(QStyle::SP_FileDialogDetailedView), tr("Settings"));
    connect(settings, &QAction::triggered, this, [this] {
        SettingsDialog dialog(m_settings, this);
        if (dialog.exec() == QDialog::Accepted)
            setSettings(dialog.settings());
    });
    settings->setShortcut(QKeySequence("Ctrl+,"));
    plan->setShortcut(QKeySequence::Open);
    buildMenus({m_record, m_marker, compare, prometheus, m_disconnect}, plan, settings);
}

OverlayView* MainWindow::openOverlay(const QString& a, const QString& b) {
    return OverlayView::open(m_db, a, b, this);
}

CompareDialog* MainWindow::openCompare(const QString& a, const QString& b) {
    auto* dialog = new CompareDialog(m_db, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    if (!a.isEmpty())
        dialog->setSides(a, b);
    dialog->show();
    if (!a.isEmpty() && !b.isEmpty())
        connect(
            dialog, &CompareDialog::choicesLoaded, dialog,
            [dialog, a, b] {
                dialog->setSides(a, b);
                dialog->compare();
            },
            Qt::SingleShotConnection);
    return dialog;
}

void MainWindow::buildDocks() {
    m_sessions = new SessionListModel(this);
    m_browser = new SessionBrowser(m_sessions, this);
    m_browser->setDatabase(m_db);
    m_browser->setBusy([this](qint64 id) {
        return id == m_liveSession || id == m_feedSession || id == m_experimentSession;
    });
    connect(m_browser, &SessionBrowser::openRequested, this, [this](qint64 id) {
        if (id != m_shownSession)
            openSession(id);
    });
    connect(m_browser, &SessionBrowser::compareRequested, this,
            [this](const QString& a, const QString& b) { openCompare(a, b); });
    connect(m_browser, &SessionBrowser::overlayRequested, this,
            [this](const QString& a, const QString& b) { openOverlay(a, b); });
    connect(m_browser, &SessionBrowser::changed, this, &MainWindow::refreshSessions);
    connect(m_browser, &SessionBrowser::done, this,
            [this](const QString& message, const QString& error) {
                statusBar()->showMessage(error.isEmpty() ? message : error, 10000);
            });
    auto* sessionsDock = new QDockWidget(tr("Sessions"), this);
    sessionsDock->setObjectName("sessions");
    sessionsDock->setWidget(m_browser);
    addDockWidget(Qt::LeftDockWidgetArea, sessionsDock);

    m_devices = new DevicesView(this);
    auto* devicesDock = new QDockWidget(tr("Devices"), this);
    devicesDock->setObjectName("devices");
    devicesDock->setWidget(m_devices);
    addDockWidget(Qt::LeftDockWidgetArea, devicesDock);
    tabifyDockWidget(sessionsDock, devicesDock);
    sessionsDock->raise();
    resizeDocks({sessionsDock}, {380}, Qt::Horizontal);

    m_runs = new RunsPanel(this);
    m_runsDock = new QDockWidget(tr("Runs"), this);
    m_runsDock->setObjectName("runs");
    m_runsDock->setWidget(m_runs);
    addDockWidget(Qt::BottomDockWidgetArea, m_runsDock);
    m_runsDock->hide(); // a session with requests shows it
    connect(m_runs, &RunsPanel::runsSelected, m_timeline, &TimelineView::selectRuns);
    buildProcessIoDock();
    buildGpuDock();
    buildRangeDock();
}

// Shown while a range of a recorded session is selected; its figures are read off this thread.
void MainWindow::buildRangeDock() {
    m_rangePanel = new RangePanel(this);
    m_rangeDock = new QDockWidget(tr("Range"), this);
    m_rangeDock->setObjectName("range");
    m_rangeDock->setWidget(m_rangePanel);
    addDockWidget(Qt::BottomDockWidgetArea, m_rangeDock);
    m_rangeDock->hide();
    connect(this, &MainWindow::sessionShown, m_rangePanel,
            [this](qint64 id) { m_rangePanel->setSession(m_db, id); });
    connect(m_timeline, &TimelineView::rangeSelected, this, [this](double x0, double x1) {
        m_rangePanel->setMetricIds(m_timeline->storedMetricIds());
        m_rangePanel->setRange(x0, x1);
        m_rangeDock->show();
    });
    connect(m_timeline, &TimelineView::selectionCleared, this, [this] {
        m_rangePanel->clear();
        m_rangeDock->hide();
    });
}

void MainWindow::setSettings(const Settings& settings) {
    const bool enginesChanged = settings.engineUrls != m_settings.engineUrls;
    const bool restart =
        m_liveSession != 0 && (enginesChanged || settings.intervalMs != m_settings.intervalMs);
    if (enginesChanged)
        m_options.engines.clear(); // the list just edited wins over the command line's
    m_settings = settings;
    m_settings.save();
    applySettings();
    // The collectors are fixed when a recording starts: a new endpoint or interval takes a new
    // recording (a new session; the old one is closed and kept).
    if (restart) {
        m_restarting = true;
        startRecording();
    }
}

void MainWindow::applySettings() {
    const bool dark = AppPalette::apply(m_settings.theme);
    m_record->setIcon(
        mediaIcon(m_liveSession != 0 ? Media::Stop : Media::Record, QApplication::palette()));
    m_pause->setIcon(mediaIcon(Media::Pause, QApplication::palette()));
    m_timeline->setRenderer(m_settings.openGl ? TimelineChart::Renderer::OpenGl
                                              : TimelineChart::Renderer::Painter);
    m_timeline->setDark(dark);
    m_runs->setDark(dark);
    // As often as the user asked, and never faster than the display refreshes.
    const QScreen* on = screen();
    const double hz = on && on->refreshRate() > 1 ? on->refreshRate() : 60.0;
    m_pacer.setPeriod(std::max(std::int64_t{m_settings.redrawMs} * 1'000'000,
                               static_cast<std::int64_t>(1e9 / hz)));
}

void MainWindow::refreshSessions() {
    m_listing = true;
    QMetaObject::invokeMethod(m_reader,
                              [reader = m_reader, db = m_db] { reader->listSessions(db); });
}

void MainWindow::showLive() {
    m_shownSession = 0;
    m_pacer.invalidate();
    m_bandAt = 0;
    m_chartedSeries = 0; // the session view replaced the charts
    m_timeline->setInteractive(false);
    m_timeline->tiles()->show();
    m_devices->setDevices(m_liveDevices);
    m_timeline->setMarkers(m_liveMarkers);
    m_timeline->setSpans({});
    showLivePhases();
    m_runs->setRows({});
    m_runsDock->hide();
    m_rangePanel->clear();
    m_rangeDock->hide();
    m_browser->clearSelection();
    setStatus();
    refreshLive();
}

void MainWindow::setStatus() {
    QString text;
    if (!isLive())
        text = tr("Session %1 (drag to pan, wheel to zoom, Shift+drag to read a range)")
                   .arg(m_shownSession);
    else if (m_experimentSession > 0)
        text = tr("Live: experiment session %1%2")
                   .arg(m_experimentSession)
                   .arg(m_experimentRun.isEmpty() ? QString() : ", " + m_experimentRun);
    else if (m_liveSession > 0)
        text = tr("Live: recording session %1 every %2 ms into %3")
                   .arg(m_liveSession)
                   .arg(m_settings.intervalMs)
                   .arg(m_db);
    else
        text = tr("Not recording. Press Record to watch this machine; workspace %1").arg(m_db);
    m_status->setText(text);
    m_window->setEnabled(isLive());
    m_pause->setEnabled(isLive());
    m_liveAction->setEnabled(!isLive());
}

QString MainWindow::statusText() const {
    return m_status->text();
}

qint64 MainWindow::liveSourceSession() const {
    if (m_feedSession != 0)
        return m_feedSession;
    return m_experimentSession != 0 ? m_experimentSession : m_liveSession;
}

} // namespace tierscope
