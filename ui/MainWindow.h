#pragma once

#include "core/model/DeviceRecord.h"
#include "core/store/LiveBuffer.h"
#include "core/view/ChartLayout.h"
#include "core/view/EngineAbsence.h"
#include "core/view/LiveFramePacer.h"
#include "ui/Settings.h"
#include "ui/feeds/PrometheusFeed.h"
#include "ui/sessions/StoreReader.h"
#include "ui/timeline/ViewExporter.h"

#include <QMainWindow>
#include <QThread>
#include <memory>
#include <optional>
#include <utility>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QTimer;
class QTreeView;

namespace tierscope {

class ChartPickerDialog;
class CompareDialog;
class DevicesView;
class ExperimentDialog;
class LiveRecording;
class GpuPanel;
class GpuProcessSampler;
class ProcessIoPanel;
class OverlayView;
class RangePanel;
class SectionCompareDialog;
class ProcessIoSampler;
class ProcessIoTableModel;
class PrometheusFeed;
class RemoteFeed;
class RunsPanel;
class SessionBrowser;
class SessionListModel;
class TimelineView;

// The observatory's window: a live timeline of this machine (or a recorded session), the
// session browser and the devices view. Every store access runs on worker threads.
class MainWindow : public QMainWindow {
    Q_OBJECT
  public:
    struct Options {
        QString db;         // empty: the settings' workspace
        qint64 session = 0; // open this recorded session instead of the live view
        bool record = true; // start the live recording at once
        int windowSeconds = 300;
        QStringList engines; // /metrics URLs to scrape; empty: the settings' list
        QString target;      // ssh://host: watch that server instead of this machine
        // A window that only draws a session for `tierscope export chart --session`: the saved
        // window geometry is neither used nor overwritten, and `theme` replaces the saved one.
        bool exportOnly = false;
        Settings::Theme theme = Settings::Theme::Light;
        // A deep link into `session` (gui --range, --runs): the range shown, in ns since its
        // start (absent: its start, its end), and the runs selected.
        std::optional<std::int64_t> rangeFromNs;
        std::optional<std::int64_t> rangeToNs;
        QList<qint64> runs;
    };

    explicit MainWindow(Options options, QWidget* parent = nullptr);
    ~MainWindow() override;

    TimelineView* timeline() const { return m_timeline; }
    SessionListModel* sessionModel() const { return m_sessions; }
    SessionBrowser* sessionBrowser() const { return m_browser; }
    DevicesView* devicesView() const { return m_devices; }
    RunsPanel* runsPanel() const { return m_runs; }
    // The live view's "Top I/O processes" dock (MainWindowProcessIo.cpp).
    ProcessIoPanel* processIoPanel() const { return m_processIoPanel; }
    QDockWidget* processIoDock() const { return m_processIoDock; }
    // The live view's "GPUs" dock (MainWindowGpu.cpp).
    GpuPanel* gpuPanel() const { return m_gpuPanel; }
    QDockWidget* gpuDock() const { return m_gpuDock; }
    // The figures of the range selected on the timeline (its "Range" dock).
    RangePanel* rangePanel() const { return m_rangePanel; }
    QDockWidget* rangeDock() const { return m_rangeDock; }
    // Two sections of the timeline side by side (Ctrl+click on the section track); null until
    // first asked for (MainWindowPhases.cpp).
    SectionCompareDialog* sectionCompare() const { return m_sectionCompare; }
    QString database() const { return m_db; }
    qint64 liveSessionId() const { return m_liveSession; }
    // The shortest time between two live frames (Settings::redrawMs, at least one refresh).
    std::int64_t liveRedrawPeriodNs() const { return m_pacer.period(); }
    // The experiment running on this machine, shown live; 0 when none runs.
    qint64 experimentSessionId() const { return m_experimentSession; }
    QString statusText() const;
    qint64 shownSessionId() const { return m_shownSession; }
    bool isLive() const { return m_shownSession == 0; }
    // The shown session is drawn, with data read for the plots' present width: no read is
    // waiting or due. What an export waits for.
    bool sessionSettled() const;

  public slots:
    void startRecording();
    void stopRecording();
    void openSession(qint64 sessionId);
    void showLive();
    void addMarker();
    void refreshSessions();
    // Saves them; a changed engine list or interval restarts a running recording with them.
    void setSettings(const tierscope::Settings& settings);
    // The compare view, optionally with A and B filled in.
    CompareDialog* openCompare(const QString& a = {}, const QString& b = {});
    // The A/B overlay of two sides (specs as Compare takes them; b empty: a session's arms).
    OverlayView* openOverlay(const QString& a, const QString& b = {});
    // Reads the plan off the GUI thread, then shows it (planOpened) for the user to start.
    void openPlan(const QString& path);
    // The live view (and a new session) from a Prometheus server's nodes instead of this
    // machine; local recording stops.
    void connectPrometheus(const QString& url, const QString& nodes, double stepS);
    void disconnectPrometheus();
    // The whole live or session view (every chart, not the part scrolled into view) under a
    // title block, as PNG, SVG or PDF (by the suffix), `width` logical pixels wide (0: as
    // shown; the height follows) at `dpi`; the file is written off the GUI thread
    // (viewExported). `title`: in place of viewTitle().
    void exportView(const QString& path, int width = 0, int dpi = 96,
                    const std::optional<ViewExporter::Title>& title = std::nullopt);
    // The session's label, profile, time range in view, host and tool version; live: the host.
    ViewExporter::Title viewTitle() const;
    void askExportView(); // File > Export view
    // One chart of the view ("load-ttft", "gpu-busy", ...) the same way; an id the view does
    // not show is an error (viewExported).
    void exportChart(const QString& chartId, const QString& path, QSize size, int dpi = 96);
    // Every action with a shortcut, one "Ctrl+Q  Quit" line each, for Help > Shortcuts.
    QString shortcutList() const;
    // The command that opens this view again (File > Copy link, MainWindowMenus.cpp).
    QString viewLink() const;
    // `tierscope --db DB gui --session N [--range A..B] [--runs 3,5]`, shell-quoted.
    static QString linkFor(const QString& db, qint64 session, std::optional<std::int64_t> fromNs,
                           std::optional<std::int64_t> toNs, const QList<qint64>& runs);
    // Where File > Open plan starts: the example plans installed beside the binary
    // (share/doc/tierscope/examples) or a build's source tree (resources/plans); else empty.
    static QString examplePlansDir(const QString& appDir);
    qint64 prometheusSessionId() const { return m_feedSession; }
    PrometheusFeed* prometheusFeed() const { return m_feed; }
    // The live view from a server over SSH (`tierscope stream` there, which records into the
    // server's workspace), mirrored into a local session; local recording stops.
    void connectServer(const QString& target);
    // Writes `widget` off the GUI thread (viewExported); a path that is no .png, .svg or .pdf,
    // or an empty size, is an error that names what exports ("views") and a size for it.
    void exportWidget(QWidget* widget, const QString& path, QSize size, const QString& what,
                      const char* exampleSize, int dpi = 96);
    // Asks for a file and a size (default: `current`); absent when the user cancels.
    std::optional<std::pair<QString, QSize>> askExportTarget(const QString& title,
                                                             const QString& name, QSize current);
    void askExportChart(const QString& chartId);
    RemoteFeed* remoteFeed() const { return m_remote; }
    // What the timeline shows (MainWindowLayouts.cpp): the layout in use, saved as the current
    // one; the view is rebuilt with it.
    void setChartLayout(const tierscope::ChartLayout& layout);
    const ChartLayout& chartLayout() const { return m_layout; }
    // Every metric of the view (the live buffer's, or the shown session's), for the picker.
    std::vector<MetricInfo> viewMetrics() const;
    // View > Charts…: the picker, non-modal; accepted, its layout is applied.
    ChartPickerDialog* pickCharts();

  signals:
    void sessionShown(qint64 sessionId); // a recorded session is drawn
    void liveRefreshed();                // the live view was redrawn
    void recordingStarted(qint64 sessionId);
    void recordingStopped(qint64 sessionId);
    void sessionsRefreshed();
    void planOpened(tierscope::ExperimentDialog* dialog);
    void prometheusConnected(qint64 sessionId);
    void serverConnected(qint64 sessionId, const QString& host);
    void viewExported(const QString& path, const QString& error);
    void prometheusRefused(const QString& error); // the server did not answer; nothing changed

  private:
    static constexpr std::int64_t kSecond = 1'000'000'000;
    void buildToolbar();
    void wireRemoteFeed();                         // MainWindowRemote.cpp
    void wireExperiment(ExperimentDialog* dialog); // MainWindowExperiment.cpp
    qint64 liveSourceSession() const; // the session whose samples the live buffer receives
    void askServer();
    void buildMenus(const QList<QAction*>& tools, QAction* plan, QAction* settings);
    void switchToPrometheus(const PrometheusFeed::Request& r);
    void buildDocks();
    void buildRangeDock();
    void buildProcessIoDock();      // MainWindowProcessIo.cpp
    void updateProcessIoSampling(); // on while this machine's live view shows the dock
    void stopProcessIo();
    void buildGpuDock();   // MainWindowGpu.cpp
    void wirePhases();     // MainWindowPhases.cpp
    void showLivePhases(); // the live view: a running experiment's sections, else none
    void readLivePhases();
    void updateGpuSampling(); // on while this machine's live view shows the dock
    void stopGpu();
    void buildLayoutMenu(QMenu* view); // MainWindowLayouts.cpp
    void fitToScreen();                // the window and its frame on the screen's free area
    void fillLayoutsMenu(QMenu* menu);
    void connectReader();
    void connectLiveSources();
    void showRecording(bool recording);
    void refreshLive();
    void applySettings();
    void requestRange(double x0, double x1);
    void refetchForWidth();
    bool fetchedForWidth() const; // the shown data was read for about the plots' width
    void setStatus();
    void requestLiveCeilings(std::int64_t nowNs);
    void onSessionOpened(const SessionView& view);
    void applyDeepLink(double sessionSeconds); // once, on the linked session's first view
    qint64 windowNs() const;
    EngineAbsence::Scrape engineScrape(std::int64_t nowNs) const;

    Options m_options;
    Settings m_settings;
    ChartLayout m_layout;
    std::vector<MetricInfo> m_shownMetrics; // of the shown session
    QString m_db;
    LiveBuffer m_buffer;
    QThread m_readerThread;
    QThread m_liveThread;
    StoreReader* m_reader = nullptr;
    LiveRecording* m_live = nullptr;
    PrometheusFeed* m_feed = nullptr;
    RemoteFeed* m_remote = nullptr;
    qint64 m_feedSession = 0;
    QString m_feedUrl;
    QAction* m_disconnect = nullptr;

    TimelineView* m_timeline = nullptr;
    SessionListModel* m_sessions = nullptr;
    SessionBrowser* m_browser = nullptr;
    DevicesView* m_devices = nullptr;
    RunsPanel* m_runs = nullptr;
    QDockWidget* m_runsDock = nullptr;
    RangePanel* m_rangePanel = nullptr;
    SectionCompareDialog* m_sectionCompare = nullptr;
    QDockWidget* m_rangeDock = nullptr;
    // Per-process I/O, scanned on its own thread: a /proc walk must not wait behind a
    // recording's start or stop on the live thread.
    QThread m_processIoThread;
    ProcessIoSampler* m_processIo = nullptr;
    ProcessIoTableModel* m_processIoModel = nullptr;
    ProcessIoPanel* m_processIoPanel = nullptr;
    QDockWidget* m_processIoDock = nullptr;
    bool m_processIoSampling = false;
    // The processes on each GPU, listed on their own thread (the vendor libraries open slowly).
    QThread m_gpuThread;
    GpuProcessSampler* m_gpuSampler = nullptr;
    GpuPanel* m_gpuPanel = nullptr;
    QDockWidget* m_gpuDock = nullptr;
    bool m_gpuSampling = false;
    QAction* m_record = nullptr;
    QAction* m_pause = nullptr;
    QAction* m_liveAction = nullptr;
    QAction* m_marker = nullptr;
    QLineEdit* m_label = nullptr;
    QComboBox* m_profile = nullptr;
    QComboBox* m_window = nullptr;
    QLabel* m_status = nullptr;
    QTimer* m_liveTimer = nullptr;
    QTimer* m_rangeTimer = nullptr;
    QTimer* m_sessionsTimer = nullptr;
    bool m_listing = false; // a session list is being read

    std::vector<DeviceRecord> m_liveDevices;
    qint64 m_liveSession = 0;
    qint64 m_shownSession = 0;
    std::int64_t m_shownOrigin = 0;
    SeriesMap m_requestData;   // the shown session's request series: not in a range reload
    LiveFramePacer m_pacer;    // when the live view draws its next frame
    std::int64_t m_bandAt = 0; // when the live band was last classified
    // The live band judges storage on the same ceilings as `analyze`, read off the GUI thread.
    SessionAnalysis::Ceilings m_liveCeilings; // of m_ceilingSession
    qint64 m_ceilingSession = 0;
    std::set<std::string> m_ceilingDevices; // what the last request asked about
    std::int64_t m_ceilingsAt = 0;          // when
    std::size_t m_chartedSeries = 0;        // live series the charts were built for; 0: rebuild
    EngineAbsence::Scrape m_chartedScrape = EngineAbsence::Scrape::Unknown;
    std::vector<TimelineMarker> m_liveMarkers; // of the running recording
    QStringList m_liveEngines;                 // the endpoints the running recording scrapes
    bool m_restarting = false;                 // a settings change restarts the recording
    qint64 m_experimentSession = 0;            // a plan running here, recording the machine
    QString m_experimentRun;                   // its current run, in words
    bool m_resumeRecording = false;            // the recording it stopped starts again after
    quint64 m_rangeRequest = 0;
    quint64 m_rangeAnswered = 0; // the latest range read whose reply has arrived
    double m_pendingX0 = 0;
    double m_pendingX1 = 0;
    int m_fetchedColumns = 0;    // the plot width the shown session's data was read for
    bool m_sessionDrawn = false; // the shown session's reply has arrived
    bool m_linkApplied = false;  // the deep link's range and runs
};

} // namespace tierscope
