#include "app/commands/GuiCommand.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "core/util/DurationParser.h"
#include "core/util/TimeRangeText.h"
#include "ui/MainWindow.h"
#include "ui/compare/CompareDialog.h"
#include "ui/compare/OverlayView.h"

#include <QApplication>
#include <QScreen>
#include <QTimer>
#include <cstdlib>
#include <iostream>

namespace tierscope {

CLI::App* GuiCommand::attach(CLI::App& parent, Options& o) {
    auto* cmd = parent.add_subcommand(
        "gui", "Open the desktop window: the live timeline of this machine, past sessions and "
               "devices (also what `tierscope` alone does when a display is available)");
    auto* session = cmd->add_option("--session", o.session,
                                    "Open this recorded session instead of the live view");
    cmd->add_option("--range", o.range,
                    "Zoom the session to this range since its start: 10s..40s, ..40s or 10s.. "
                    "(File > Copy link writes the view's)")
        ->needs(session);
    cmd->add_option("--runs", o.runs, "Select these runs of the session: 3,5")
        ->delimiter(',')
        ->needs(session);
    cmd->add_option("--window", o.window, "Live time window: 1m, 5m, 30m or all")
        ->capture_default_str()
        ->check(CLI::IsMember({"1m", "5m", "30m", "all"}));
    cmd->add_flag("--no-record", o.noRecord, "Do not start recording this machine at once");
    cmd->add_option("--engine", o.engines,
                    "Engine /metrics URL to scrape while recording (repeatable; default: the "
                    "URLs in Settings)");
    cmd->add_option(
           "--compare", o.compare,
           "Open the compare view on A and B (run:N, session:N or arm:EXPERIMENT/ARM[@SESSION])")
        ->expected(2);
    cmd->add_option("--overlay", o.overlay,
                    "Open the A/B overlay on A and B (as --compare; a single session:N overlays "
                    "its two arms)")
        ->expected(1, 2)
        ->excludes("--compare");
    cmd->add_option("--target", o.target,
                    "Watch this server over SSH (ssh://[user@]host[:port]) instead of this "
                    "machine");
    cmd->add_option("--screenshot", o.screenshot,
                    "Save a PNG of the window, at the screen's size, after --after, then quit (for "
                    "docs and checks)");
    cmd->add_option("--after", o.after, "Delay before --screenshot")->capture_default_str();
    return cmd;
}

bool GuiCommand::displayAvailable(bool acceptQtPlatform) {
    for (const char* variable : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) {
        const char* value = std::getenv(variable);
        if (value && *value && (acceptQtPlatform || std::string(variable) != "QT_QPA_PLATFORM"))
            return true;
    }
    return false;
}

int GuiCommand::run(const char* argv0, const GlobalOptions& global, const Options& o) {
    const auto delay = DurationParser::parse(o.after);
    if (!delay) {
        std::cerr << "tierscope gui: --after takes a duration such as 5s\n";
        return kExitUsage;
    }
    std::optional<TimeRangeText::Range> range;
    if (!o.range.empty() && !(range = TimeRangeText::parse(o.range))) {
        std::cerr << "tierscope gui: --range takes FROM..TO since the session's start, such as "
                     "10s..40s, ..40s or 10s..\n";
        return kExitUsage;
    }
    if (!displayAvailable(true)) {
        std::cerr << "tierscope gui: no display (DISPLAY and WAYLAND_DISPLAY are unset). Record "
                     "headless with `tierscope record`, or run under xvfb-run.\n";
        return kExitUsage;
    }
    int argc = 1;
    char* argv[] = {const_cast<char*>(argv0), nullptr};
    QApplication app(argc, argv);
    QApplication::setApplicationName("tierscope");
    QApplication::setOrganizationName("tierscope");
    MainWindow::Options options;
    options.db = QString::fromStdString(global.db);
    options.session = o.session;
    if (range) {
        options.rangeFromNs = range->fromNs;
        options.rangeToNs = range->toNs;
    }
    for (const long long run : o.runs)
        options.runs << run;
    options.record = !o.noRecord && o.session == 0;
    options.windowSeconds = o.window == "1m"    ? 60
                            : o.window == "30m" ? 1800
                            : o.window == "all" ? 0
                                                : 300;
    for (const auto& url : o.engines)
        options.engines << QString::fromStdString(url);
    if (o.target != "local")
        options.target = QString::fromStdString(o.target);
    MainWindow window(options);
    // A screenshot is of the whole screen's size, as the docs' "1920x1080" promises; without
    // a window manager (xvfb-run) nothing else would maximize the window.
    if (!o.screenshot.empty() && window.screen())
        window.resize(window.screen()->availableGeometry().size());
    window.show();
    QWidget* shown = &window;
    if (o.compare.size() == 2)
        shown = window.openCompare(QString::fromStdString(o.compare[0]),
                                   QString::fromStdString(o.compare[1]));
    if (!o.overlay.empty())
        shown = window.openOverlay(QString::fromStdString(o.overlay[0]),
                                   o.overlay.size() > 1 ? QString::fromStdString(o.overlay[1])
                                                        : QString());
    int rc = kExitOk;
    if (!o.screenshot.empty()) {
        QTimer::singleShot(
            std::chrono::duration_cast<std::chrono::milliseconds>(*delay), &window, [&] {
                if (!shown->grab().save(QString::fromStdString(o.screenshot))) {
                    std::cerr << "tierscope gui: cannot write " << o.screenshot << "\n";
                    rc = kExitCannotWrite;
                }
                app.quit();
            });
    }
    // SIGINT and SIGTERM close the window as the user would: the recording stops and is kept.
    QTimer signalWatch;
    QObject::connect(&signalWatch, &QTimer::timeout, &app, [&] {
        if (CancelOnSignal::flag())
            app.quit();
    });
    signalWatch.start(50);
    const int loop = app.exec();
    return rc != kExitOk ? rc : loop;
}

} // namespace tierscope
