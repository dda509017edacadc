#include "ui/sessions/StoreReader.h"

#include "core/analysis/EngineRoles.h"
#include "core/analysis/MultipathHeads.h"
#include "core/engine/EngineMetricCatalog.h"
#include "core/store/SessionState.h"
#include "core/store/Store.h"
#include "core/store/StoreError.h"
#include "core/util/WallClock.h"
#include "core/view/EngineAbsence.h"
#include "core/view/RequestCharts.h"
#include "core/view/TimelineFrame.h"

#include <QFileInfo>
#include <algorithm>
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
        auto sessions = store.sessions();
        const std::int64_t now = WallClock::systemNowNs();
        for (auto& s : sessions) // as `tierscope sessions` judges them
            if (!s.endNs)
                s.state = SessionState::of(store, s, store.metrics(s.id), now);
        emit sessionsListed(sessions);
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
    }
}

namespace {

// The schema canary of each engine endpoint of the session, as a device of its own: the
// catalog roles it served and, by their titles, those it never did (absent in every chart,
// never a zero).
void addEngineRoles(Store& store, SessionView& view) {
    const auto& catalog = EngineMetricCatalog::active();
    for (const auto& [endpoint, roles] :
         EngineRoles::read(store, view.metrics, view.t0Ns, view.t1Ns)) {
        std::string missing;
        int served = 0;
        for (const auto& [role, yes] : roles) {
            if (yes) {
                ++served;
                continue;
            }
            const auto* r = catalog.role(role);
            missing += (missing.empty() ? "" : ", ") + (r ? r->title : role);
        }
        nlohmann::json attrs = {{"served", served}};
        if (!missing.empty())
            attrs["not_served"] = missing;
        view.devices.push_back({"engine-roles", endpoint, attrs.dump()});
    }
}

// NVMe multipath: the session's per-path traffic judged (a skewed path, a path not
// optimized), as `analyze` judges it, one device entry per finding.
void addPathFindings(Store& store, SessionView& view) {
    auto heads = MultipathHeads::fromDevices(view.devices);
    if (heads.empty())
        return;
    MultipathHeads::addTraffic(heads, store, view.info.id, view.t0Ns, view.t1Ns);
    for (const auto& f : PathSkew::judge(heads).findings)
        view.devices.push_back(
            {"path-finding", f.path,
             nlohmann::json{{"finding", PathSkew::kindName(f.kind)}, {"text", f.text}}.dump()});
}

} // namespace

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
        view.t0Ns = info->startNs;
        // An open or interrupted session runs until now, or a day at most.
        view.t1Ns = info->endNs.value_or(
            std::min<std::int64_t>(WallClock().nowNs(), info->startNs + 86400LL * 1000000000LL));
        view.t1Ns = std::max<std::int64_t>(view.t1Ns, view.t0Ns + 1000000000LL);
        addEngineRoles(store, view);
        addPathFindings(store, view);
        const auto events = store.events(sessionId);
        for (const auto& event : events)
            if (const QString text = markerText(event.kind, event.text); !text.isEmpty())
                view.markers.push_back({event.tNs, text, isRoutineEvent(event.kind)});
        std::vector<StoredRequest> requests;
        std::vector<std::pair<RunInfo, std::vector<StoredRequest>>> runs;
        const auto runInfos = store.runsOfSession(sessionId);
        view.sections = PhaseSections::build(runInfos, events);
        for (const auto& run : runInfos) {
            view.spans.push_back(spanOf(run));
            auto r = store.requests(run.id);
            requests.insert(requests.end(), r.begin(), r.end());
            runs.emplace_back(run, std::move(r));
        }
        view.runs = RunRequestSummary::of(runs);
        auto requestCharts = RequestCharts::of(requests);
        view.requestData = std::move(requestCharts.data);
        view.charts = TimelineFrame::charts(
            {view.metrics, view.devices, EngineAbsence::urlsOf(view.devices), false,
             EngineAbsence::Scrape::Unknown, std::move(requestCharts.charts)},
            layout);
        auto request = TimelineFrame::Request::recorded(view.t0Ns, view.t1Ns, 2 * columns);
        request.ceilings = SessionAnalysis::ceilings(store, sessionId);
        // The request series were made whole from the requests: they are not in the store.
        auto frame = TimelineFrame::build(
            view.charts, view.metrics,
            [&store, &view](std::int64_t id, std::int64_t t0, std::int64_t t1, int points) {
                if (id < 0) {
                    const auto it = view.requestData.find(id);
                    return it == view.requestData.end() ? std::vector<Bucket>{} : it->second;
                }
                return store.readDecimated(id, t0, t1, points);
            },
            request);
        view.data = std::move(frame.data);
        view.bottlenecks = std::move(*frame.bottlenecks);
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
