#include "ui/StoreReader.h"

#include "core/store/Store.h"
#include "core/store/StoreError.h"
#include "core/util/WallClock.h"
#include "ui/EngineAbsence.h"

#include <QFileInfo>
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace tierscope {

StoreReader::StoreReader(QObject* parent) : QObject(parent) {
    qRegisterMetaType<tierscope::SessionView>();
    qRegisterMetaType<tierscope::SeriesMap>();
    qRegisterMetaType<tierscope::SessionAnalysis::Ceilings>();
    qRegisterMetaType<std::vector<tierscope::SessionInfo>>();
}

void StoreReader::listSessions(const QString& db) {
    if (!QFileInfo::exists(db)) { // a first start: nothing recorded yet is not an error
        emit sessionsListed({});
        return;
    }
    try {
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        emit sessionsListed(store.sessions());
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
    }
}

void StoreReader::openSession(const QString& db, qint64 sessionId, int columns,
                              const ChartLayout& layout) {
    try {
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        const auto info = store.session(sessionId);
        if (!info) {
            emit failed(tr("No session %1 in %2").arg(sessionId).arg(db));
            return;
        }
        SessionView view;
        view.info = *info;
        view.devices = store.devices(sessionId);
        view.metrics = store.metrics(sessionId);
        view.charts = ChartCatalog::build(view.metrics, view.devices);
        EngineAbsence::explain(view.charts, EngineAbsence::urlsOf(view.devices), false);
        view.t0Ns = info->startNs;
        // An open or interrupted session runs until now, or a day at most.
        view.t1Ns = info->endNs.value_or(
            std::min<std::int64_t>(WallClock().nowNs(), info->startNs + 86400LL * 1000000000LL));
        view.t1Ns = std::max<std::int64_t>(view.t1Ns, view.t0Ns + 1000000000LL);
        // The store has no reader for events: read them here, on this thread.
        auto events = store.db().prepare(
            "SELECT t_ns, kind, text FROM event WHERE session_id = ? ORDER BY t_ns");
        events.bind(1, static_cast<std::int64_t>(sessionId));
        while (events.step())
            if (const QString text = markerText(events.columnText(1), events.columnText(2));
                !text.isEmpty())
                view.markers.push_back(
                    {events.columnInt(0), text, isRoutineEvent(events.columnText(1))});
        std::vector<StoredRequest> requests;
        std::vector<std::pair<RunInfo, std::vector<StoredRequest>>> runs;
        for (const auto& run : store.runsOfSession(sessionId)) {
            view.spans.push_back(spanOf(run));
            auto r = store.requests(run.id);
            requests.insert(requests.end(), r.begin(), r.end());
            runs.emplace_back(run, std::move(r));
        }
        view.runs = RunRequestSummary::of(runs);
        addRequestCharts(requests, view);
        view.charts = layout.apply(std::move(view.charts), view.metrics);
        for (const auto& chart : view.charts)
            for (const auto& s : chart.series)
                if (s.metricId > 0) // the request series' buckets came with their charts
                    view.data[s.metricId] =
                        store.readDecimated(s.metricId, view.t0Ns, view.t1Ns, 2 * columns);
        // About two hundred windows across the session, none shorter than a second.
        view.bottlenecks = SessionAnalysis::analyzeRange(
            store, sessionId, view.t0Ns, view.t1Ns,
            std::max<std::int64_t>(1000000000LL, (view.t1Ns - view.t0Ns) / 200));
        emit sessionOpened(view);
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
    }
}

TimelineSpan StoreReader::spanOf(const RunInfo& run) {
    TimelineSpan span;
    span.t0Ns = run.startNs;
    span.t1Ns = run.endNs.value_or(run.startNs);
    span.runId = run.id;
    span.group = QString::fromStdString(run.arm.empty() ? run.workload : run.arm);
    span.label = QString("%1 r%2").arg(span.group).arg(run.repetition);
    span.detail =
        QString("run %1: %2 %3, %4")
            .arg(run.id)
            .arg(QString::fromStdString(run.experiment), QString::fromStdString(run.workload),
                 QString::fromStdString(run.status));
    if (run.status == "warmup") {
        span.kind = TimelineSpan::Kind::Warmup;
        span.label = "warm-up " + span.group;
    }
    const auto summary = nlohmann::json::parse(run.summaryJson, nullptr, false);
    if (summary.is_object() && summary.contains("validity") && summary["validity"].is_array())
        for (const auto& check : summary["validity"])
            if (check.is_object() && check.value("status", "") == "fail") {
                span.kind = TimelineSpan::Kind::Invalid;
                span.label = "INVALID " + span.label;
                span.detail += "\n" + QString::fromStdString(check.value("detail", ""));
            }
    return span;
}

void StoreReader::addRequestCharts(const std::vector<StoredRequest>& requests, SessionView& view) {
    constexpr std::int64_t kSecond = 1000000000LL;
    std::vector<Bucket> actual, scheduled;
    // A closed loop stamps its schedule with the send: a second series only under a rate,
    // where some request left later than planned.
    const bool paced = std::any_of(requests.begin(), requests.end(), [](const StoredRequest& r) {
        return r.scheduledNs && *r.scheduledNs > 0 && r.sendNs - *r.scheduledNs > 1000000;
    });
    std::map<std::int64_t, double> tokens; // by second of completion
    for (const auto& r : requests) {
        if (r.ok && r.ttftS) {
            actual.push_back({r.sendNs, 0, *r.ttftS, *r.ttftS, *r.ttftS, 1});
            if (paced && r.scheduledNs && *r.scheduledNs > 0) {
                const double s = r.ttftFromScheduleS().value_or(*r.ttftS);
                scheduled.push_back({*r.scheduledNs, 0, s, s, s, 1});
            }
        }
        if (r.ok && r.e2eS && r.outputTokens)
            tokens[(r.sendNs + static_cast<std::int64_t>(*r.e2eS * 1e9)) / kSecond] +=
                *r.outputTokens;
    }
    if (actual.empty() && tokens.empty())
        return;
    auto byTime = [](const Bucket& a, const Bucket& b) { return a.tNs < b.tNs; };
    std::sort(actual.begin(), actual.end(), byTime);
    std::sort(scheduled.begin(), scheduled.end(), byTime);
    ChartCatalog::Chart ttft{"load-ttft",
                             "Client TTFT per request",
                             ChartCatalog::Unit::Seconds,
                             {{kRequestTtft, "TTFT from the actual send", false, {}, true}},
                             {}};
    if (!scheduled.empty())
        ttft.series.push_back(
            {kRequestTtftScheduled, "TTFT from the scheduled send", false, {}, true});
    std::vector<Bucket> rate;
    if (!tokens.empty()) // every second from the first completion to the last: idle is 0 here
        for (auto s = tokens.begin()->first; s <= tokens.rbegin()->first; ++s) {
            const auto it = tokens.find(s);
            const double v = it == tokens.end() ? 0.0 : it->second;
            rate.push_back({s * kSecond, kSecond, v, v, v, 1});
        }
    ChartCatalog::Chart throughput{"load-throughput",
                                   "Client output tokens/s",
                                   ChartCatalog::Unit::TokensPerSecond,
                                   {{kRequestTokens, "output tokens/s (completed)", false}},
                                   {}};
    view.requestData[kRequestTtft] = std::move(actual);
    if (!scheduled.empty())
        view.requestData[kRequestTtftScheduled] = std::move(scheduled);
    view.requestData[kRequestTokens] = std::move(rate);
    view.charts.insert(view.charts.begin(), {ttft, throughput});
    for (const auto& [id, buckets] : view.requestData)
        view.data[id] = buckets;
}

bool StoreReader::isRoutineEvent(const std::string& kind) {
    return kind == "engine-start" || kind == "engine-stop";
}

QString StoreReader::markerText(const std::string& kind, const std::string& text) {
    if (kind == "record-start" || kind == "record-stop" || kind == "experiment-plan")
        return {};
    if (kind == "marker")
        return QString::fromStdString(text);
    // The event's subject only ("engine-start: disk", not its whole command line): notes
    // crowd a chart.
    const QString first =
        QString::fromStdString(text).section('\n', 0, 0).section(':', 0, 0).left(40);
    return QString::fromStdString(kind) + (first.isEmpty() ? QString() : ": " + first);
}

void StoreReader::loadRange(const QString& db, qint64 t0Ns, qint64 t1Ns, int columns,
                            const std::vector<std::int64_t>& metricIds, quint64 request) {
    try {
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        SeriesMap data;
        for (const auto id : metricIds)
            data[id] = store.readDecimated(id, t0Ns, t1Ns, 2 * columns);
        emit rangeLoaded(request, data);
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
    }
}

void StoreReader::readCeilings(const QString& db, qint64 sessionId,
                               const std::set<std::string>& devices) {
    try {
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        emit ceilingsRead(sessionId, SessionAnalysis::ceilings(store, sessionId, devices));
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
    }
}

} // namespace tierscope
