#include "app/common/PrometheusSource.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "collectors/prometheus/PrometheusRecording.h"
#include "core/store/RecordingSession.h"
#include "core/util/DurationParser.h"
#include "core/util/TimeSpec.h"
#include "core/util/WallClock.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace tierscope {

namespace {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

PrometheusImport::Options importOptions(const PrometheusSource::Options& o) {
    PrometheusImport::Options out;
    out.url = o.url;
    out.nodes = o.nodes;
    if (o.url.rfind("http://", 0) != 0 && o.url.rfind("https://", 0) != 0)
        throw UsageError("--prometheus/--url must be an http:// or https:// URL");
    try {
        std::regex check(o.nodes); // Prometheus uses RE2; a regex std::regex rejects is wrong
    } catch (const std::regex_error&) {
        throw UsageError("--nodes \"" + o.nodes + "\" is not a regular expression");
    }
    const auto step = DurationParser::parse(o.step);
    if (!step || *step < std::chrono::milliseconds(100))
        throw UsageError("--step must be a duration of at least 100ms");
    out.stepS = std::chrono::duration<double>(*step).count();
    const auto timeout = DurationParser::parse(o.timeout);
    if (!timeout || *timeout < std::chrono::milliseconds(100))
        throw UsageError("--timeout must be a duration of at least 100ms");
    out.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(*timeout);
    if (!o.templates.empty()) {
        std::ifstream in(o.templates);
        if (!in)
            throw UsageError("cannot read --templates " + o.templates);
        std::stringstream text;
        text << in.rdbuf();
        try {
            out.templates = PrometheusTemplate::merged(PrometheusTemplate::parse(text.str()));
        } catch (const std::exception& e) {
            throw UsageError(o.templates + ": " + e.what());
        }
    }
    return out;
}

void report(const PrometheusImport::Summary& s, bool quiet) {
    for (const auto& e : s.errors)
        std::cerr << "tierscope: query failed, kept the rest: " << e << "\n";
    for (const auto& w : s.warnings)
        std::cerr << "tierscope: Prometheus warns: " << w << "\n";
    for (const auto& u : s.unmapped)
        std::cerr << "tierscope: not imported: " << u << "\n";
    if (quiet)
        return;
    std::string nodes;
    for (const auto& n : s.nodes)
        nodes += (nodes.empty() ? "" : ", ") + n;
    std::cerr << s.series << " series, " << s.points << " points from " << s.nodes.size()
              << " node(s)" << (nodes.empty() ? "" : ": " + nodes) << "\n";
}

} // namespace

int PrometheusSource::importRange(const GlobalOptions& global, const Options& o) {
    PrometheusImport::Options options;
    double start = 0, end = 0;
    try {
        options = importOptions(o);
        const double now = static_cast<double>(WallClock::systemNowNs()) / 1e9;
        const auto s = TimeSpec::parse(o.start, now);
        const auto e = TimeSpec::parse(o.end, now);
        if (!s || !e)
            throw UsageError("--start and --end are now, -15m, unix seconds or "
                             "2026-11-30T11:00:00Z");
        if (*e <= *s)
            throw UsageError("--end must be after --start");
        start = *s;
        end = *e;
    } catch (const UsageError& e) {
        std::cerr << "tierscope import prometheus: " << e.what() << "\n";
        return kExitUsage;
    }
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(global.dbPath()).parent_path(), ec);
    RecordingSession target(
        {global.dbPath(), {}, nullptr},
        PrometheusRecording::sessionInfo(options, o.label, o.storageProfile,
                                         static_cast<std::int64_t>(start * 1e9)));
    const bool progress = !o.quiet && ::isatty(2);
    const auto summary = PrometheusImport::run(
        options, start, end, target.sink(), [&](std::size_t done, std::size_t total) {
            if (progress)
                std::cerr << "\rquery " << done << "/" << total << std::flush;
        });
    if (progress)
        std::cerr << "\n";
    const bool closed = target.finish(static_cast<std::int64_t>(end * 1e9));
    report(summary, o.quiet);
    if (summary.series == 0) {
        std::cerr << "tierscope import prometheus: nothing imported (session " << target.id()
                  << " is empty); check --url, --nodes and the time range\n";
        return summary.errors.empty() ? kExitNotFound : kExitFailure;
    }
    if (!closed) {
        std::cerr << "tierscope import prometheus: session " << target.id()
                  << " is imported but could not be closed (" << target.error().value_or("")
                  << "); it shows as interrupted\n";
        return kExitCannotWrite;
    }
    std::cout << "imported " << o.url << " as session " << target.id() << "\n";
    return kExitOk;
}

int PrometheusSource::record(const GlobalOptions& global, const Options& o,
                             std::optional<std::chrono::nanoseconds> duration) {
    PrometheusImport::Options options;
    try {
        options = importOptions(o);
    } catch (const UsageError& e) {
        std::cerr << "tierscope record: " << e.what() << "\n";
        return kExitUsage;
    }
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(global.dbPath()).parent_path(), ec);
    const double started = static_cast<double>(WallClock::systemNowNs()) / 1e9;
    PrometheusRecording recording({global.dbPath(), options, o.label, o.storageProfile, started});
    CancelOnSignal cancel;
    const double period = std::max(1.0, options.stepS);
    std::string lastError;
    while (!CancelOnSignal::flag()) {
        const double now = static_cast<double>(WallClock::systemNowNs()) / 1e9;
        const bool last =
            duration && now - started >= std::chrono::duration<double>(*duration).count();
        // Prometheus holds a scrape back until it is written: the recording stays two steps
        // behind now, but for the last poll.
        if (const auto s = recording.poll(now, last)) {
            const std::string error = s->errors.empty() ? "" : s->errors.front();
            if (!error.empty() && error != lastError)
                std::cerr << "tierscope record: " << error << " (retrying)\n";
            lastError = error;
        }
        if (last)
            break;
        for (int i = 0; i < static_cast<int>(period * 10) && !CancelOnSignal::flag(); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const bool closed = recording.finish(WallClock::systemNowNs());
    report(recording.total(), o.quiet);
    if (!closed) {
        std::cerr << "tierscope record: session " << recording.session()
                  << " could not be closed; it shows as interrupted\n";
        return kExitCannotWrite;
    }
    std::cout << "recorded " << o.url << " as session " << recording.session() << "\n";
    return kExitOk;
}

} // namespace tierscope
