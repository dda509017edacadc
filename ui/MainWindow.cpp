#include "ui/MainWindow.h"

#include "core/util/UnitFormat.h"
#include "core/util/Version.h"
#include "core/util/WallClock.h"
#include "core/view/ChartCatalog.h"
#include "core/view/StatTiles.h"
#include "ui/AppPalette.h"
#include "ui/DevicesView.h"
#include "ui/EngineAbsence.h"
#include "ui/LiveRecording.h"
#include "ui/PrometheusDialog.h"
#include "ui/PrometheusFeed.h"
#include "ui/RemoteFeed.h"
#include "ui/RunsPanel.h"
#include "ui/SavedLayouts.h"
#include "ui/SessionBrowser.h"
#include "ui/SessionListModel.h"
#include "ui/SettingsDialog.h"
#include "ui/compare/CompareDialog.h"
#include "ui/timeline/BottleneckBand.h"
#include "ui/timeline/ChartRenderer.h"
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

constexpr std::int64_t kSecond = 1000000000LL;
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
        // Saved on a larger screen, or at a smaller scale factor: fit this one.
        if (const QScreen* s = screen())
            resize(size().boundedTo(s->availableGeometry().size()));
    }
    applySettings();

    connect(m_reader, &StoreReader::sessionsListed, this,
            [this](const std::vector<SessionInfo>& sessions) {
                m_listing = false;
                const qint64 selected = m_browser->currentSession();
                if (m_sessions->setSessions(sessions) && selected != 0)
                    m_browser->select(selected);
                // The first item added to an empty combo box becomes its text: keep what the
                // user typed (or nothing), or live sessions get filed under a past profile.
                const QString typed = m_profile->currentText();
                for (const auto& s : sessions)
                    if (!s.storageProfile.empty() &&
                        m_profile->findText(QString::fromStdString(s.storageProfile)) < 0)
                        m_profile->addItem(QString::fromStdString(s.storageProfile));
                if (m_profile->currentText() != typed) {
                    m_profile->setCurrentIndex(m_profile->findText(typed));
                    m_profile->setEditText(typed);
                }
                emit sessionsRefreshed();
            });
    connect(m_reader, &StoreReader::sessionOpened, this, &MainWindow::onSessionOpened);
    connect(m_reader, &StoreReader::rangeLoaded, this,
            [this](quint64 request, const SeriesMap& data) {
                if (request != m_rangeRequest || isLive())
                    return;
                m_rangeAnswered = request;
                SeriesMap all = data;
                all.insert(m_requestData.begin(), m_requestData.end());
                m_timeline->setData(all, m_shownOrigin);
            });
    connect(m_reader, &StoreReader::ceilingsRead, this,
            [this](qint64 sessionId, const SessionAnalysis::Ceilings& ceilings) {
                if (sessionId != m_ceilingSession)
                    return; // asked for a session that is no longer live
                m_liveCeilings = ceilings;
                m_bandAt = 0; // judge the band again with them
            });
    connect(m_reader, &StoreReader::failed, this, [this](const QString& message) {
        m_listing = false;
        statusBar()->showMessage(message, 10000);
    });
    connect(m_live, &LiveRecording::started, this,
            [this](qint64 id, const std::vector<DeviceRecord>& devices) {
                m_liveSession = id;
                m_liveDevices = devices;
                m_chartedSeries = 0;   // absent-source reasons come from the devices
                m_liveMarkers.clear(); // a new session: the old one's notes stay with it
                if (isLive())
                    m_timeline->setMarkers(m_liveMarkers);
                if (isLive())
                    m_devices->setDevices(devices);
                m_record->setChecked(true);
                m_record->setEnabled(true);
                m_record->setText(tr("Stop"));
                m_record->setIcon(mediaIcon(Media::Stop, QApplication::palette()));
                if (std::exchange(m_restarting, false))
                    statusBar()->showMessage(
                        tr("Recording restarted with the new settings as session %1").arg(id),
                        10000);
                setStatus();
                refreshSessions();
                emit recordingStarted(id);
            });
    connect(m_feed, &PrometheusFeed::started, this, [this](qint64 id) {
        m_feedSession = id;
        m_disconnect->setEnabled(true);
        statusBar()->showMessage(
            tr("Live from Prometheus %1, recorded as session %2").arg(m_feedUrl).arg(id));
        refreshSessions();
        emit prometheusConnected(id);
    });
    connect(m_feed, &PrometheusFeed::failed, this, [this](const QString& message) {
        statusBar()->showMessage(tr("Prometheus: %1 (partial data kept; retrying)").arg(message),
                                 15000);
    });
    connect(m_live, &LiveRecording::stopped, this, [this](qint64 id, const QString& error) {
        m_liveSession = 0;
        m_record->setChecked(false);
        m_record->setEnabled(m_experimentSession == 0); // an experiment records the machine
        m_record->setText(tr("Record"));
        m_record->setIcon(mediaIcon(Media::Record, QApplication::palette()));
        if (!error.isEmpty())
            statusBar()->showMessage(
                tr("Recording stopped: %1. Everything recorded before it is kept in session %2.")
                    .arg(error)
                    .arg(id));
        setStatus();
        refreshSessions();
        emit recordingStopped(id);
    });
    connect(m_live, &LiveRecording::failed, this, [this](const QString& message) {
        m_restarting = false;
        m_record->setChecked(false);
        m_record->setEnabled(true);
        statusBar()->showMessage(tr("Cannot record: %1").arg(message));
    });
    connect(m_live, &LiveRecording::markerAdded, this, [this](qint64 tNs, const QString& text) {
        m_liveMarkers.push_back({tNs, text});
        if (isLive())
            m_timeline->setMarkers(m_liveMarkers);
        statusBar()->showMessage(tr("Marker added: %1").arg(text), 5000);
    });

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

MainWindow::~MainWindow() {
    if (!m_options.exportOnly) {
        QSettings saved("tierscope", "tierscope");
        saved.setValue("window/geometry", saveGeometry());
        saved.setValue("window/state", saveState());
    }
    delete m_remote; // it writes into m_buffer until its thread ends
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
        m_drawnVersion = 0;
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
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open experiment plan"), QString(), tr("Experiment plans (*.toml)"));
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
    connect(bar->addAction(style()->standardIcon(QStyle::SP_ComputerIcon),
                           tr("Connect to server...")),
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

void MainWindow::buildMenus(const QList<QAction*>& tools, QAction* plan, QAction* settings) {
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(plan);
    auto* exportView = file->addAction(tr("&Export view…"));
    exportView->setShortcut(QKeySequence("Ctrl+E"));
    connect(exportView, &QAction::triggered, this, [this] {
        if (const auto to = askExportTarget(tr("Export view"), "tierscope.png", m_timeline->size()))
            this->exportView(to->first, to->second);
    });
    file->addSeparator();
    file->addAction(settings);
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence("Ctrl+Q")); // QKeySequence::Quit is empty on some platforms
    quit->setMenuRole(QAction::QuitRole);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    auto* view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_liveAction);
    view->addAction(m_pause);
    view->addSeparator();
    for (auto* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    buildLayoutMenu(view);
    auto* full = view->addAction(tr("&Full screen"));
    full->setShortcut(QKeySequence::FullScreen);
    full->setCheckable(true);
    connect(full, &QAction::toggled, this,
            [this](bool on) { on ? showFullScreen() : showNormal(); });

    auto* toolMenu = menuBar()->addMenu(tr("&Tools"));
    toolMenu->addActions(tools);

    auto* help = menuBar()->addMenu(tr("&Help"));
    auto* keys = help->addAction(tr("&Keyboard shortcuts"));
    keys->setShortcut(QKeySequence::HelpContents);
    connect(keys, &QAction::triggered, this, [this] {
        QMessageBox::information(this, tr("Keyboard shortcuts"), shortcutList());
    });
    auto* about = help->addAction(tr("&About tierscope"));
    about->setMenuRole(QAction::AboutRole);
    connect(about, &QAction::triggered, this, [this] {
        QMessageBox::about(
            this, tr("About tierscope"),
            tr("<b>tierscope %1</b><p>Is storage what holds the GPUs back, and by how much does "
               "B beat A? GPU, storage and engine TTFT on one timeline, with A/B experiments "
               "whose every figure carries a 95 % interval over runs.</p><p>Workspace: %2</p>")
                .arg(QString::fromUtf8(kToolVersion), m_db.toHtmlEscaped()));
    });
}

QString MainWindow::shortcutList() const {
    QStringList lines;
    for (auto* menu : menuBar()->findChildren<QMenu*>())
        for (auto* a : menu->actions())
            if (!a->shortcut().isEmpty())
                lines << QString("%1\t%2").arg(a->shortcut().toString(QKeySequence::NativeText),
                                               a->text().remove('&'));
    lines.removeDuplicates();
    return lines.join('\n');
}

void MainWindow::exportView(const QString& path, QSize size) {
    exportWidget(m_timeline, path, size, tr("views"), "1920x1080");
}

void MainWindow::exportChart(const QString& chartId, const QString& path, QSize size) {
    TimelineChart* chart = m_timeline->chart(chartId.toStdString());
    if (!chart) {
        emit viewExported(path, tr("No chart \"%1\" in this view").arg(chartId));
        return;
    }
    exportWidget(chart, path, size, tr("charts"), "1200x400");
}

void MainWindow::askExportChart(const QString& chartId) {
    TimelineChart* chart = m_timeline->chart(chartId.toStdString());
    if (!chart)
        return;
    if (const auto to = askExportTarget(tr("Export chart"), chartId + ".png", chart->size()))
        exportChart(chartId, to->first, to->second);
}

std::optional<std::pair<QString, QSize>>
MainWindow::askExportTarget(const QString& title, const QString& name, QSize current) {
    const QString path = QFileDialog::getSaveFileName(this, title, name,
                                                      tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    if (path.isEmpty())
        return std::nullopt;
    bool ok = false;
    const QString size =
        QInputDialog::getText(this, title, tr("Size in pixels (width x height)"), QLineEdit::Normal,
                              QString("%1x%2").arg(current.width()).arg(current.height()), &ok);
    const QStringList wh = size.split('x');
    if (!ok || wh.size() != 2)
        return std::nullopt;
    return std::pair{path, QSize(wh[0].trimmed().toInt(), wh[1].trimmed().toInt())};
}

void MainWindow::exportWidget(QWidget* widget, const QString& path, QSize size, const QString& what,
                              const char* exampleSize) {
    const auto format = ChartRenderer::formatOf(path);
    if (!format || size.isEmpty()) {
        emit viewExported(path, tr("%1: %2 export as .png, .svg or .pdf at a size such as %3")
                                    .arg(path, what, QString::fromLatin1(exampleSize)));
        return;
    }
    const QByteArray svg = ChartRenderer::svgOf(widget); // painting: the GUI thread's job
    QPointer<MainWindow> self(this);
    QThreadPool::globalInstance()->start([self, svg, path, format, size] {
        const QString error = ChartRenderer::write(svg, path, *format, size);
        if (self)
            QMetaObject::invokeMethod(self, [self, path, error] {
                self->statusBar()->showMessage(error.isEmpty() ? tr("Wrote %1").arg(path) : error,
                                               10000);
                emit self->viewExported(path, error);
            });
    });
}

void MainWindow::connectPrometheus(const QString& url, const QString& nodes, double stepS) {
    PrometheusFeed::Request r;
    r.db = m_db;
    r.url = url;
    r.nodes = nodes;
    r.stepS = stepS;
    r.label = m_label->text().trimmed();
    statusBar()->showMessage(tr("Connecting to Prometheus %1…").arg(url));
    // The live view and the recording switch only once the server answers: a dead server
    // leaves both as they were, and no empty session behind.
    connect(
        m_feed, &PrometheusFeed::probed, this,
        [this, r](const QString& probedUrl, const QString& error) {
            if (probedUrl != r.url)
                return;
            if (!error.isEmpty()) {
                statusBar()->showMessage(
                    tr("Cannot reach Prometheus %1: %2. The live view is unchanged.")
                        .arg(r.url, error),
                    15000);
                emit prometheusRefused(error);
                return;
            }
            switchToPrometheus(r);
        },
        Qt::SingleShotConnection);
    QMetaObject::invokeMethod(m_feed, [feed = m_feed, url] { feed->probe(url); });
}

void MainWindow::switchToPrometheus(const PrometheusFeed::Request& r) {
    if (m_liveSession != 0)
        stopRecording();
    m_feedUrl = r.url;
    m_liveDevices.clear();
    m_liveMarkers.clear();
    m_chartedSeries = std::numeric_limits<std::size_t>::max(); // rebuild the charts
    showLive();
    QMetaObject::invokeMethod(m_feed, [feed = m_feed, r] { feed->start(r); });
}

void MainWindow::disconnectPrometheus() {
    if (m_feedSession == 0)
        return;
    statusBar()->showMessage(
        tr("Disconnected from Prometheus %1; session %2 is kept").arg(m_feedUrl).arg(m_feedSession),
        10000);
    m_feedSession = 0;
    m_disconnect->setEnabled(false);
    QMetaObject::invokeMethod(m_feed, [feed = m_feed] { feed->stop(); });
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
    connect(m_runs, &RunsPanel::runSelected, m_timeline, &TimelineView::selectRun);
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
}

void MainWindow::refreshSessions() {
    m_listing = true;
    QMetaObject::invokeMethod(m_reader,
                              [reader = m_reader, db = m_db] { reader->listSessions(db); });
}

void MainWindow::startRecording() {
    if (m_experimentSession != 0) {
        statusBar()->showMessage(tr("The running experiment records this machine"), 5000);
        m_record->setChecked(false);
        return;
    }
    disconnectPrometheus();      // one live source at a time
    m_record->setEnabled(false); // until the worker says it started or failed
    LiveRecording::Request r;
    r.db = m_db;
    r.label = m_label->text().trimmed().isEmpty() ? tr("live") : m_label->text().trimmed();
    r.storageProfile = m_profile->currentText().trimmed();
    r.intervalMs = m_settings.intervalMs;
    r.engines = m_options.engines.isEmpty() ? m_settings.engineUrls : m_options.engines;
    m_liveEngines = r.engines;
    QMetaObject::invokeMethod(m_live, [live = m_live, r] { live->start(r); });
}

void MainWindow::stopRecording() {
    m_record->setEnabled(false);
    QMetaObject::invokeMethod(m_live, [live = m_live] { live->stop(); });
}

void MainWindow::addMarker() {
    if (m_liveSession == 0) {
        statusBar()->showMessage(tr("Markers go into a recording: press Record first"), 5000);
        return;
    }
    const qint64 at = WallClock().nowNs(); // the moment of the key press, not of the dialog
    bool ok = false;
    const QString text =
        QInputDialog::getText(this, tr("Marker"), tr("Note"), QLineEdit::Normal, QString(), &ok);
    if (!ok)
        return;
    QMetaObject::invokeMethod(m_live, [live = m_live, text, at] { live->addMarker(text, at); });
}

qint64 MainWindow::windowNs() const {
    return m_window->currentData().toLongLong() * kSecond;
}

void MainWindow::refreshLive() {
    if (!isLive() || m_pause->isChecked())
        return;
    const auto version = m_buffer.version();
    if (version == m_drawnVersion)
        return;
    m_drawnVersion = version;
    const std::int64_t t1 = WallClock().nowNs();
    // The catalog parses every series' labels: build it when a series appears, not per frame.
    const auto scrape = engineScrape(t1);
    if (const auto series = m_buffer.seriesCount();
        series != m_chartedSeries || scrape != m_chartedScrape) {
        m_chartedSeries = series;
        m_chartedScrape = scrape;
        const auto metrics = m_buffer.metrics();
        auto charts = ChartCatalog::build(metrics, m_liveDevices);
        if (m_feedSession == 0 && m_liveSession != 0)
            EngineAbsence::explain(charts, m_liveEngines, true, scrape);
        m_timeline->setCharts(m_layout.apply(std::move(charts), metrics));
    }
    // A recording's first seconds fill the plot instead of a sliver at its right edge: the
    // window grows in 10 s steps (one rescale per step, not per frame) up to the length set.
    const std::int64_t held = m_buffer.oldestNs() > 0 ? t1 - m_buffer.oldestNs() : 0;
    const std::int64_t grown =
        std::max<std::int64_t>(1, (held + 10 * kSecond - 1) / (10 * kSecond)) * 10 * kSecond;
    const std::int64_t t0 =
        t1 - (windowNs() > 0 ? std::min<std::int64_t>(windowNs(), grown) : grown);
    const int columns = m_timeline->plotWidth();
    SeriesMap data;
    for (auto* chart : m_timeline->charts())
        for (const auto& s : chart->spec().series)
            data[s.metricId] = m_buffer.decimated(s.metricId, t0, t1, columns);
    m_timeline->setTimeRange(static_cast<double>(t0 - t1) / 1e9, 0, tr("seconds ago"));
    m_timeline->setData(data, t1);
    refreshLiveBand(t0, t1);
    emit liveRefreshed();
}

// Whether the engine endpoints answered in the last few seconds (their scrape_ok series).
EngineAbsence::Scrape MainWindow::engineScrape(std::int64_t nowNs) const {
    if (m_liveEngines.isEmpty() || m_liveSession == 0)
        return EngineAbsence::Scrape::Unknown;
    auto state = EngineAbsence::Scrape::Unknown;
    for (const auto& m : m_buffer.metrics()) {
        const auto& path = m.descriptor.path;
        if (!path.starts_with("engine/") || !path.ends_with("/scrape_ok"))
            continue;
        const auto recent = m_buffer.decimated(m.id, nowNs - 5 * kSecond, nowNs, 1);
        if (recent.empty())
            continue;
        if (recent.front().max > 0)
            return EngineAbsence::Scrape::Answering;
        state = EngineAbsence::Scrape::Failing;
    }
    return state;
}

// Classified from the in-memory buffer, at most once a second: a window is seconds long.
void MainWindow::refreshLiveBand(std::int64_t t0, std::int64_t t1) {
    if (t1 - m_bandAt < kSecond && m_bandAt != 0)
        return;
    m_bandAt = t1;
    requestLiveCeilings(t1);
    const std::int64_t window = std::max<std::int64_t>(2 * kSecond, (t1 - t0) / 120);
    // Windows on fixed boundaries, so the bands do not shift as the view scrolls.
    const std::int64_t start = t0 / window * window;
    const auto analysis = SessionAnalysis::analyzeSeries(
        m_buffer.metrics(),
        [this](std::int64_t id, std::int64_t from, std::int64_t to, int points) {
            return m_buffer.decimated(id, from, to, points);
        },
        start, t1, window, m_liveCeilings);
    m_timeline->bottleneckBand()->setSpans(BottleneckBand::spansOf(analysis, t1));
    m_timeline->tiles()->setTiles(StatTiles::compute(
        m_buffer.metrics(), m_timeline->specs(),
        [this](std::int64_t id, std::int64_t from, std::int64_t to, int points) {
            return m_buffer.decimated(id, from, to, points);
        },
        t0, t1, 60, &analysis));
}

// Asked again for new devices, a new session, or once a minute (history may have a new best).
void MainWindow::requestLiveCeilings(std::int64_t nowNs) {
    const qint64 session = liveSourceSession();
    if (session != m_ceilingSession)
        m_liveCeilings.clear();
    if (session == 0)
        return;
    std::set<std::string> devices;
    for (const auto& m : m_buffer.metrics())
        if (const auto s = SessionAnalysis::storageOf(m))
            devices.insert(s->first);
    if (session == m_ceilingSession && devices == m_ceilingDevices &&
        nowNs - m_ceilingsAt < 60 * kSecond)
        return;
    m_ceilingSession = session;
    m_ceilingDevices = devices;
    m_ceilingsAt = nowNs;
    QMetaObject::invokeMethod(m_reader, [reader = m_reader, db = m_db, session, devices] {
        reader->readCeilings(db, session, devices);
    });
}

void MainWindow::openSession(qint64 sessionId) {
    m_shownSession = sessionId;
    m_sessionDrawn = false;
    m_rangeAnswered = ++m_rangeRequest; // a range read for the session shown before is stale
    m_timeline->setInteractive(true);
    statusBar()->showMessage(tr("Opening session %1 ...").arg(sessionId));
    const int columns = m_fetchedColumns = m_timeline->plotWidth();
    QMetaObject::invokeMethod(
        m_reader, [reader = m_reader, db = m_db, sessionId, columns, layout = m_layout] {
            reader->openSession(db, sessionId, columns, layout);
        });
}

void MainWindow::onSessionOpened(const SessionView& view) {
    if (view.info.id != m_shownSession)
        return; // the user went on to another session or back to live
    m_shownOrigin = view.t0Ns;
    m_requestData = view.requestData;
    m_shownMetrics = view.metrics;
    m_sessionDrawn = true;
    m_timeline->tiles()->hide(); // "now" is the live view's
    m_timeline->setCharts(view.charts);
    m_timeline->setBounds(0, static_cast<double>(view.t1Ns - view.t0Ns) / 1e9);
    m_timeline->setTimeRange(
        0, static_cast<double>(view.t1Ns - view.t0Ns) / 1e9,
        tr("seconds since %1").arg(QString::fromStdString(UnitFormat::utcTime(view.t0Ns))));
    m_timeline->setData(view.data, view.t0Ns);
    m_timeline->setMarkers(view.markers);
    m_timeline->setSpans(view.spans);
    m_timeline->bottleneckBand()->setSpans(BottleneckBand::spansOf(view.bottlenecks, view.t0Ns));
    m_devices->setDevices(view.devices);
    m_runs->setRows(view.runs);
    if (!view.runs.empty() && m_runsDock->isHidden()) {
        m_runsDock->show();
        resizeDocks({m_runsDock}, {std::max(180, height() / 4)}, Qt::Vertical);
    } else if (view.runs.empty()) {
        m_runsDock->hide();
    }
    m_browser->select(view.info.id);
    statusBar()->clearMessage();
    setStatus();
    refetchForWidth();
    emit sessionShown(view.info.id);
}

bool MainWindow::sessionSettled() const {
    return !isLive() && m_sessionDrawn && !m_rangeTimer->isActive() &&
           m_rangeAnswered == m_rangeRequest && fetchedForWidth();
}

bool MainWindow::fetchedForWidth() const {
    const int width = m_timeline->plotWidth();
    return std::abs(width - m_fetchedColumns) * 10 <= width; // within 10 %
}

// A session opened before the window was laid out (at start-up) was read for a guessed width;
// too few buckets on a wide plot draw their min/max strokes as a false sawtooth.
void MainWindow::refetchForWidth() {
    if (isLive() || !m_sessionDrawn || fetchedForWidth())
        return;
    m_pendingX0 = m_timeline->rangeStart();
    m_pendingX1 = m_timeline->rangeEnd();
    m_rangeTimer->start();
}

void MainWindow::requestRange(double x0, double x1) {
    if (isLive())
        return;
    const qint64 t0 = m_shownOrigin + static_cast<qint64>(x0 * 1e9);
    const qint64 t1 = m_shownOrigin + static_cast<qint64>(x1 * 1e9);
    const int columns = m_fetchedColumns = m_timeline->plotWidth();
    const quint64 request = ++m_rangeRequest;
    std::vector<std::int64_t> ids; // the stored series shown; the request series stay as read
    for (const auto* chart : m_timeline->charts())
        for (const auto& s : chart->spec().series)
            if (s.metricId > 0)
                ids.push_back(s.metricId);
    QMetaObject::invokeMethod(m_reader,
                              [reader = m_reader, db = m_db, t0, t1, columns, ids, request] {
                                  reader->loadRange(db, t0, t1, columns, ids, request);
                              });
}

void MainWindow::showLive() {
    m_shownSession = 0;
    m_drawnVersion = 0;
    m_bandAt = 0;
    m_chartedSeries = 0; // the session view replaced the charts
    m_timeline->setInteractive(false);
    m_timeline->tiles()->show();
    m_devices->setDevices(m_liveDevices);
    m_timeline->setMarkers(m_liveMarkers);
    m_timeline->setSpans({});
    m_runs->setRows({});
    m_runsDock->hide();
    m_browser->clearSelection();
    setStatus();
    refreshLive();
}

void MainWindow::setStatus() {
    QString text;
    if (!isLive())
        text = tr("Session %1 (drag to pan, wheel to zoom)").arg(m_shownSession);
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
