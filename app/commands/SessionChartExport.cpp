#include "app/commands/SessionChartExport.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "app/common/WorkspaceOpener.h"
#include "core/store/Store.h"
#include "core/store/StoreError.h"
#include "ui/AppPalette.h"
#include "ui/MainWindow.h"
#include "ui/compare/CompareDialog.h"
#include "ui/timeline/ChartRenderer.h"
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineView.h"
#include "ui/timeline/ViewExporter.h"

#include <QApplication>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QThread>
#include <QTimer>
#include <QToolBar>
#include <functional>
#include <iostream>
#include <memory>

namespace tierscope {

namespace {

constexpr int kTimeoutMs = 120000; // to read and draw a session: a day's session takes seconds

// Runs the event loop until `done` holds, a signal comes or the time is up.
bool waitFor(const std::function<bool()>& done, QElapsedTimer& clock) {
    while (!done()) {
        if (CancelOnSignal::flag() || clock.elapsed() > kTimeoutMs)
            return false;
        QApplication::processEvents(QEventLoop::AllEvents, 20);
        QThread::msleep(5);
    }
    return true;
}

int notDrawn(std::int64_t session) {
    const bool interrupted = CancelOnSignal::flag();
    std::cerr << "tierscope export chart: session " << session
              << (interrupted ? " was not drawn: interrupted\n" : " was not drawn in time\n");
    return interrupted ? 128 + CancelOnSignal::signalNumber() : kExitFailure;
}

QString listOf(const TimelineView& view) {
    QStringList ids{"view"};
    for (const auto& spec : view.specs())
        ids << QString::fromStdString(spec.id);
    return ids.join(", ");
}

// Fonts need a QApplication; no display is needed for that.
std::unique_ptr<QApplication> offscreenApp() {
    if (qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "tierscope";
    static char* argv[] = {name, nullptr};
    // The off-screen platform warns of every window hint it cannot honour, and Qt's SVG reader
    // of the pattern fills it cannot read back; the export's own errors are reported below.
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& text) {
        if (type == QtCriticalMsg || type == QtFatalMsg)
            std::cerr << text.toStdString() << "\n";
    });
    return std::make_unique<QApplication>(argc, argv);
}

} // namespace

int SessionChartExport::compareView(const GlobalOptions& global, const ExportCommand::Options& o) {
    const auto size = ExportCommand::sizeOf(o.size);
    const auto format = ChartRenderer::formatOf(QString::fromStdString(o.out));
    if (o.out.empty() || !format || !size) {
        std::cerr << "tierscope export chart --chart view: "
                  << (!size ? "--size is WIDTHxHEIGHT, from 200x150 to 10000x10000"
                            : "--out FILE.png, FILE.svg or FILE.pdf (the format is the suffix)")
                  << "\n";
        return kExitUsage;
    }
    WorkspaceOpener::openExisting(global.dbPath()); // a clear error for a missing workspace
    auto app = offscreenApp();
    AppPalette::apply(o.theme == "dark" ? Settings::Theme::Dark : Settings::Theme::Light);
    CompareDialog dialog(QString::fromStdString(global.dbPath()));
    dialog.resize(size->first, size->second);
    dialog.show();
    QString gates;
    for (const auto& g : o.gates)
        gates += (gates.isEmpty() ? "" : "; ") + QString::fromStdString(g);
    dialog.setGates(gates, o.presets.empty() ? QString() : QString::fromStdString(o.presets[0]));
    dialog.setSides(QString::fromStdString(o.a), QString::fromStdString(o.b));
    QString error;
    bool shown = false, written = false;
    QObject::connect(&dialog, &CompareDialog::comparisonShown, [&] { shown = true; });
    QObject::connect(&dialog, &CompareDialog::comparisonFailed, [&](const QString& e) {
        error = e;
        shown = true;
    });
    QObject::connect(&dialog, &CompareDialog::exported, [&](const QString&, const QString& e) {
        error = e;
        written = true;
    });
    QElapsedTimer clock;
    clock.start();
    QApplication::processEvents();
    dialog.compare();
    if (!waitFor([&] { return shown; }, clock) || !error.isEmpty()) {
        std::cerr << "tierscope export chart: "
                  << (error.isEmpty() ? std::string("not compared in time") : error.toStdString())
                  << "\n";
        return error.isEmpty() ? kExitFailure : kExitUsage;
    }
    dialog.saveImageTo(QString::fromStdString(o.out), size->first, o.dpi);
    if (!waitFor([&] { return written; }, clock) || !error.isEmpty()) {
        std::cerr << "tierscope export chart: "
                  << (error.isEmpty() ? std::string("not written") : error.toStdString()) << "\n";
        return kExitCannotWrite;
    }
    std::cerr << "wrote the compare view (" << size->first << " wide) to " << o.out << "\n";
    return kExitOk;
}

int SessionChartExport::run(const GlobalOptions& global, const ExportCommand::Options& o) {
    const std::string what = o.chart.empty() ? "view" : o.chart;
    const auto size = ExportCommand::sizeOf(o.size);
    const auto format = ChartRenderer::formatOf(QString::fromStdString(o.out));
    if (o.out.empty() || !format || !size || (!o.format.empty() && !o.out.ends_with(o.format))) {
        std::cerr << "tierscope export chart --session: "
                  << (!size ? "--size is WIDTHxHEIGHT, from 200x150 to 10000x10000"
                            : "--out FILE.png, FILE.svg or FILE.pdf (the format is the suffix)")
                  << "\n";
        return kExitUsage;
    }
    SessionInfo info;
    {
        auto store = WorkspaceOpener::openExisting(global.dbPath());
        const auto found = store->session(o.session);
        if (!found)
            throw StoreError(StoreError::Code::NotFound,
                             "no session " + std::to_string(o.session) + " in " + global.dbPath());
        info = *found;
    }
    auto app = offscreenApp();
    MainWindow::Options options;
    options.db = QString::fromStdString(global.dbPath());
    options.session = o.session;
    options.record = false;
    options.exportOnly = true;
    options.theme = o.theme == "dark" ? Settings::Theme::Dark : Settings::Theme::Light;
    MainWindow window(options);
    // The view alone: the docks and tool bars would take the width the charts are drawn for.
    for (auto* dock : window.findChildren<QDockWidget*>())
        dock->hide();
    for (auto* bar : window.findChildren<QToolBar*>())
        bar->hide();
    const QSize wanted(size->first, size->second);
    window.resize(wanted);
    window.show();
    QElapsedTimer clock;
    clock.start();
    auto settled = [&] { return window.sessionSettled(); };
    if (!waitFor(settled, clock))
        return notDrawn(o.session);
    TimelineView* view = window.timeline();
    TimelineChart* chart = what == "view" ? nullptr : view->chart(what);
    if (what != "view" && !chart) {
        std::cerr << "tierscope export chart: session " << o.session << " has no chart \"" << what
                  << "\"; it has " << listOf(*view).toStdString() << "\n";
        return kExitNotFound;
    }
    // Drawn at the size asked for, not stretched to it: the window grows by what the status
    // bar and the axis title take, and a chart takes the height asked for.
    QWidget* drawn = chart ? static_cast<QWidget*>(chart) : view;
    auto off = [&] {
        return QSize(wanted.width() - drawn->width(),
                     chart ? 0 : wanted.height() - drawn->height());
    };
    for (int tries = 0; tries < 5 && !off().isNull(); ++tries) {
        window.resize(window.size() + off());
        QApplication::processEvents();
        if (!waitFor(settled, clock))
            return notDrawn(o.session);
    }
    if (chart) { // after the resize: the view fits its charts' heights to the window on one
        chart->setChartHeight(wanted.height());
        QApplication::processEvents();
    }
    QString error;
    bool written = false;
    QObject::connect(&window, &MainWindow::viewExported, &window,
                     [&](const QString&, const QString& e) {
                         error = e;
                         written = true;
                     });
    if (chart)
        window.exportChart(QString::fromStdString(what), QString::fromStdString(o.out), wanted,
                           o.dpi);
    else // the whole session is in view
        window.exportView(QString::fromStdString(o.out), wanted.width(), o.dpi,
                          ViewExporter::sessionTitle(
                              info, info.startNs,
                              info.endNs.value_or(info.startNs + static_cast<std::int64_t>(
                                                                     view->rangeEnd() * 1e9))));
    if (!waitFor([&] { return written; }, clock) && CancelOnSignal::flag())
        return 128 + CancelOnSignal::signalNumber(); // the file is written beside and renamed
    if (!written || !error.isEmpty()) {
        std::cerr << "tierscope export chart: "
                  << (error.isEmpty() ? std::string("not written") : error.toStdString()) << "\n";
        return kExitCannotWrite;
    }
    std::cerr << "wrote " << what << " of session " << o.session << " (" << o.size << ") to "
              << o.out << "\n";
    return kExitOk;
}

} // namespace tierscope
