// GUI costs (issue 6), offscreen:
//  1. Frame cost of the live timeline with 64 series at 10 Hz over a 5 min window: decimate
//     each series from the live buffer, hand the points to the charts, repaint the charts in
//     view. Baselines in the same run: the same frame drawn by QtCharts' own line series, and
//     the tierscope frame with every raw sample plotted (no decimation).
//     BENCH_OPENGL=1 (under xvfb, QT_QPA_PLATFORM=xcb) adds QtCharts' OpenGL series.
//  2. The live view's CPU share: a live buffer fed at 10 Hz for 60 s from another thread (as
//     the recorder feeds it) while a 100 ms timer draws frames as MainWindow::refreshLive
//     does: paced by LiveFramePacer (a frame when the view moved a pixel), only the charts in
//     view read and drawn, every chart once a second (the band's frame). CPU time of the GUI
//     thread over the minute, 1900 x 950 timeline. Baselines in the same run: the same loop
//     with QtCharts' own line series, and tierscope drawing every chart at every tick (the
//     view before the pacing).
//  3. Opening a recorded 1-hour session of 100 metrics at 10 Hz until the overview is drawn,
//     with its annotations: 120 runs of two arms (warm-ups among them) and 60 events.
//     Baseline in the same run: reading those samples raw from the store, without drawing.
#include "BenchSupport.h"
#include "core/store/LiveBuffer.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"
#include "core/util/WallClock.h"
#include "core/view/LiveFramePacer.h"
#include "core/view/TimelineFrame.h"
#include "ui/MainWindow.h"
#include "ui/timeline/TimelineChart.h"
#include "ui/timeline/TimelineView.h"

#include <QApplication>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <thread>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1000000000LL;

std::vector<ChartCatalog::Chart> liveCharts(int charts, int perChart) {
    std::vector<ChartCatalog::Chart> out;
    std::int64_t id = 1;
    for (int c = 0; c < charts; ++c) {
        ChartCatalog::Chart chart{"c" + std::to_string(c),
                                  "chart " + std::to_string(c),
                                  ChartCatalog::Unit::BytesPerSecond,
                                  {},
                                  {}};
        for (int s = 0; s < perChart; ++s, ++id)
            chart.series.push_back({id, "series " + std::to_string(id), false});
        out.push_back(chart);
    }
    return out;
}

// Median ms per frame over `frames` frames.
double frameCost(TimelineView& view, const LiveBuffer& buffer, std::int64_t t1, bool decimate,
                 int frames) {
    std::vector<double> ms;
    const std::int64_t t0 = t1 - 300 * kSecond;
    for (int f = 0; f < frames; ++f) {
        // The events the last frame left (its repaint into the offscreen window among them)
        // run outside the clock: each frame is charged for one paint, its own grab().
        QApplication::processEvents();
        const auto start = std::chrono::steady_clock::now();
        // Without decimation every sample is its own bucket: 3,000 per series.
        const int columns = decimate ? view.plotWidth() : 3000;
        // The live view's frame between two band updates: the series only.
        const auto frame = TimelineFrame::build(
            view.specs(), {},
            [&buffer](std::int64_t id, std::int64_t from, std::int64_t to, int points) {
                return buffer.decimated(id, from, to, points);
            },
            TimelineFrame::Request::live(t0, t1, columns, false));
        const auto decimatedAt = std::chrono::steady_clock::now();
        view.setData(frame.data, t1);
        const auto replacedAt = std::chrono::steady_clock::now();
        view.grab(); // paints the charts in view, as a repaint of the window does
        if (qEnvironmentVariableIsSet("BENCH_SPLIT"))
            std::printf("    decimate %.1f ms, replace %.1f ms, paint %.1f ms\n",
                        std::chrono::duration<double, std::milli>(decimatedAt - start).count(),
                        std::chrono::duration<double, std::milli>(replacedAt - decimatedAt).count(),
                        bench::seconds(replacedAt) * 1e3);
        ms.push_back(bench::seconds(start) * 1e3);
    }
    return bench::median(ms);
}

struct Frame {
    double ms = 0;
    int points = 0;
};

Frame liveFrame(const LiveBuffer& buffer, std::int64_t t1, TimelineChart::Renderer renderer,
                bool decimate) {
    TimelineView view;
    view.setRenderer(renderer);
    view.resize(1600, 1000); // the window's timeline: about four charts in view
    view.setCharts(liveCharts(8, 8));
    view.setTimeRange(-300, 0, "seconds ago");
    view.show();
    QApplication::processEvents();
    frameCost(view, buffer, t1, decimate, 5); // warm-up: fonts, caches
    Frame out;
    out.ms = frameCost(view, buffer, t1, decimate, 30);
    for (auto* c : view.charts())
        out.points += c->pointCount();
    return out;
}

void liveFrames() {
    LiveBuffer buffer(3600 * kSecond);
    std::vector<MetricDescriptor> metrics;
    for (int i = 0; i < 64; ++i)
        metrics.push_back({"m/" + std::to_string(i), "bytes/s", "gauge", "{}"});
    const std::int64_t t1 = 1'790'000'000LL * kSecond;
    for (int k = 0; k < 3000; ++k) { // 5 min at 10 Hz
        std::vector<Reading> readings;
        for (int i = 0; i < 64; ++i)
            readings.push_back({metrics[i], 1e9 + 5e8 * std::sin(k / 20.0 + i)});
        buffer.write(t1 - 300 * kSecond + k * kSecond / 10, readings);
    }
    using R = TimelineChart::Renderer;
    const Frame painter = liveFrame(buffer, t1, R::Painter, true);
    const Frame series = liveFrame(buffer, t1, R::Series, true);
    const Frame raw = liveFrame(buffer, t1, R::Painter, false);
    std::printf("live frame, 64 series x 3,000 samples (5 min at 10 Hz), 1600 x 1000 timeline:\n"
                "  tierscope %.1f ms per repaint (%d points in the charts drawn)\n"
                "  QtCharts line series %.1f ms (%d points); ratio %.3f\n"
                "  tierscope, every raw sample %.1f ms (%d points); ratio %.3f\n",
                painter.ms, painter.points, series.ms, series.points, painter.ms / series.ms,
                raw.ms, raw.points, painter.ms / raw.ms);
    if (std::getenv("BENCH_OPENGL")) {
        const Frame gl = liveFrame(buffer, t1, R::OpenGl, true);
        std::printf("  QtCharts OpenGL series %.1f ms (%d points); ratio %.3f\n", gl.ms, gl.points,
                    painter.ms / gl.ms);
    }
}

// The live view's redraw period (Settings::redrawMs): BENCH_LIVE_REDRAW_MS, 500 by default.
std::int64_t redrawMs() {
    const char* set = std::getenv("BENCH_LIVE_REDRAW_MS");
    return set ? std::max(0, std::atoi(set)) : 500;
}

// Seconds of GUI-thread CPU per second of wall time while the live view runs for `seconds`.
double liveShare(TimelineChart::Renderer renderer, bool paced, int seconds) {
    const std::int64_t window = 300 * kSecond;
    LiveBuffer buffer(window + 10 * kSecond);
    std::vector<MetricDescriptor> metrics;
    for (int i = 0; i < 64; ++i)
        metrics.push_back({"m/" + std::to_string(i), "bytes/s", "gauge", "{}"});
    const auto write = [&](std::int64_t t, int k) {
        std::vector<Reading> readings;
        for (int i = 0; i < 64; ++i)
            readings.push_back({metrics[i], 1e9 + 5e8 * std::sin(k / 20.0 + i)});
        buffer.write(t, readings);
    };
    // A full window already recorded, then 10 Hz from the recorder's thread.
    const auto now = [] { return WallClock::systemNowNs(); };
    const std::int64_t start = now();
    for (int k = 0; k < 3000; ++k)
        write(start - window + k * kSecond / 10, k);
    std::atomic<bool> stop{false};
    std::thread recorder([&] {
        for (int k = 3000; !stop; ++k) {
            write(now(), k);
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    });

    TimelineView view;
    view.setRenderer(renderer);
    view.resize(1900, 950);
    view.setCharts(liveCharts(8, 8));
    view.show();
    LiveFramePacer pacer;
    pacer.setPeriod(redrawMs() * 1'000'000);
    std::int64_t fullAt = 0;
    int frames = 0;
    QTimer tick;
    tick.setInterval(100);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        std::optional<std::int64_t> edge = now();
        if (paced)
            edge = pacer.due(*edge, window, view.plotWidth(), buffer.version());
        if (!edge)
            return;
        const std::int64_t t1 = *edge;
        const bool full = !paced || t1 - fullAt >= kSecond;
        const auto frame = TimelineFrame::build(
            full ? view.specs() : view.visibleSpecs(), {},
            [&buffer](std::int64_t id, std::int64_t from, std::int64_t to, int points) {
                return buffer.decimated(id, from, to, points);
            },
            TimelineFrame::Request::live(t1 - window, t1, view.plotWidth(), false));
        view.setTimeRange(-300, 0, "seconds ago");
        if (full) {
            fullAt = t1;
            view.setData(frame.data, t1);
        } else {
            view.setVisibleData(frame.data, t1);
        }
        ++frames;
    });
    QObject::connect(&view, &TimelineView::viewportMoved, [&] { pacer.invalidate(); });
    // Three seconds of frames before the clock starts: the first layout, fonts and caches.
    tick.start();
    QTimer::singleShot(3000, [] { QApplication::exit(0); });
    QApplication::exec();
    frames = 0;
    const double cpu0 = bench::threadCpuSeconds();
    const auto wall0 = std::chrono::steady_clock::now();
    QTimer::singleShot(seconds * 1000, [] { QApplication::exit(0); });
    QApplication::exec();
    const double share = (bench::threadCpuSeconds() - cpu0) / bench::seconds(wall0);
    stop = true;
    recorder.join();
    std::printf("    %s%s: %d frames in %d s\n",
                renderer == TimelineChart::Renderer::Painter ? "tierscope" : "QtCharts",
                paced ? "" : ", every chart every tick", frames, seconds);
    return share;
}

void liveShares() {
    const int seconds = std::getenv("BENCH_LIVE_SECONDS")
                            ? std::max(5, std::atoi(std::getenv("BENCH_LIVE_SECONDS")))
                            : 60;
    using R = TimelineChart::Renderer;
    std::printf("live view, 64 series fed at 10 Hz for %d s, 5 min window, 1900 x 950 timeline, "
                "redraw every %lld ms, GUI thread CPU:\n",
                seconds, static_cast<long long>(redrawMs()));
    const double ours = liveShare(R::Painter, true, seconds);
    if (qEnvironmentVariableIsSet("BENCH_LIVE_OURS")) { // to profile ours alone
        std::printf("  tierscope %.2f %% of a core (target < 3 %%)\n", ours * 100);
        return;
    }
    const double qtcharts = liveShare(R::Series, true, seconds);
    const double everyTick = liveShare(R::Painter, false, seconds);
    std::printf("  tierscope %.2f %% of a core (target < 3 %%)\n"
                "  QtCharts line series, same pacing %.2f %%; ratio %.3f\n"
                "  tierscope drawing every chart at every tick %.2f %%; ratio %.3f\n",
                ours * 100, qtcharts * 100, ours / qtcharts, everyTick * 100, ours / everyTick);
}

std::int64_t writeHour(const std::string& db) {
    std::int64_t id = 0;
    const std::int64_t start = 1'790'000'000LL * kSecond;
    {
        Store store(db, Store::Mode::ReadWrite);
        SessionInfo info;
        info.label = "one hour";
        info.startNs = start;
        id = store.createSession(info);
        store.finishSession(id, start + 3600 * kSecond);
        // An experiment's worth of annotations: a run every 30 s, A and B interleaved, each
        // fourth a warm-up; a marker or clock step every minute.
        for (int r = 0; r < 120; ++r) {
            const auto run = store.createRun(id, "kv-restore", "{}", start + r * 30 * kSecond,
                                             "bench", r % 2 ? "B" : "A", r / 2);
            store.finishRun(run, start + (r * 30 + 25) * kSecond,
                            r % 4 == 0 ? "warmup" : "completed", "{}");
        }
        for (int e = 0; e < 60; ++e)
            store.addEvent(id, start + (e * 60 + 7) * kSecond, e % 2 ? "marker" : "clock-step",
                           "note " + std::to_string(e));
    }
    StoreWriter writer(db, {});
    std::vector<int> handles;
    for (int i = 0; i < 32; ++i)
        handles.push_back(writer.defineMetric(
            id, {"gpu/" + std::to_string(i) + "/busy_pct", "percent", "gauge", "{}"}));
    for (int i = 0; i < 32; ++i)
        for (const char* dir : {"read", "write"})
            handles.push_back(writer.defineMetric(
                id, {"block/nvme" + std::to_string(i) + "n1/" + dir + "_bytes_per_s", "bytes/s",
                     "rate", "{}"}));
    for (const char* p : {"host/cpu/busy_pct", "host/mem/page_cache_bytes", "host/mem/dirty_bytes",
                          "host/mem/writeback_bytes"})
        handles.push_back(writer.defineMetric(id, {p, "", "gauge", "{}"}));
    for (std::size_t k = 0; k < 36000; ++k)
        for (std::size_t h = 0; h < handles.size(); ++h)
            writer.append(handles[h], start + static_cast<std::int64_t>(k) * kSecond / 10,
                          50 + 40 * std::sin(static_cast<double>(k) / 300.0 + h));
    writer.stop();
    return id;
}

void openHour() {
    QTemporaryDir dir;
    const std::string db = dir.filePath("hour.db").toStdString();
    const std::int64_t id = writeHour(db);
    std::size_t metrics = 0;
    const auto rawStart = std::chrono::steady_clock::now();
    std::size_t samples = 0;
    {
        Store store(db, Store::Mode::ReadOnly);
        for (const auto& m : store.metrics(id)) {
            samples += store.readRaw(m.id, 0, INT64_MAX).size();
            ++metrics;
        }
    }
    const double raw = bench::seconds(rawStart) * 1e3;
    std::vector<double> opens;
    for (int rep = 0; rep < 3; ++rep) {
        const auto start = std::chrono::steady_clock::now();
        MainWindow window({QString::fromStdString(db), id, false, 300});
        QSignalSpy shown(&window, &MainWindow::sessionShown);
        window.show();
        if (!shown.wait(30000)) {
            std::fprintf(stderr, "the session did not open\n");
            std::exit(1);
        }
        window.grab(); // drawn
        opens.push_back(bench::seconds(start) * 1e3);
    }
    std::printf("open a 1-hour session, %zu metrics at 10 Hz (%zu samples), 120 runs and 60 "
                "events, until drawn:\n"
                "  %.0f ms (median of 3, window creation included); raw read of every sample "
                "%.0f ms; ratio %.2f\n",
                metrics, samples, bench::median(opens), raw, bench::median(opens) / raw);
}

} // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM",
            qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    // BENCH_SECTION=frame|live|open runs one part (to profile it alone).
    const QByteArray section = qgetenv("BENCH_SECTION");
    if (section.isEmpty() || section == "frame")
        liveFrames();
    if (section.isEmpty() || section == "live")
        liveShares();
    if (section.isEmpty() || section == "open")
        openHour();
    return 0;
}
