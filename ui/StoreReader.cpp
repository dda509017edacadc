#include "ui/StoreReader.h"

#include "core/store/Store.h"
#include "core/store/StoreError.h"
#include "core/util/WallClock.h"
#include "ui/EngineAbsence.h"

#include <QFileInfo>
#include <algorithm>

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

void StoreReader::openSession(const QString& db, qint64 sessionId, int columns) {
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
        view.charts = ChartCatalog::build(store.metrics(sessionId), view.devices);
        EngineAbsence::explain(view.charts, EngineAbsence::urlsOf(view.devices), false);
        view.t0Ns = info->startNs;
        // An open or interrupted session runs until now, or a day at most.
        view.t1Ns = info->endNs.value_or(
            std::min<std::int64_t>(WallClock().nowNs(), info->startNs + 86400LL * 1000000000LL));
        view.t1Ns = std::max<std::int64_t>(view.t1Ns, view.t0Ns + 1000000000LL);
        for (const auto& chart : view.charts)
            for (const auto& s : chart.series)
                view.data[s.metricId] =
                    store.readDecimated(s.metricId, view.t0Ns, view.t1Ns, 2 * columns);
        // The store has no reader for events of one kind: read them here, on this thread.
        auto markers = store.db().prepare(
            "SELECT t_ns, text FROM event WHERE session_id = ? AND kind = 'marker' ORDER BY t_ns");
        markers.bind(1, static_cast<std::int64_t>(sessionId));
        while (markers.step())
            view.markers.push_back(
                {markers.columnInt(0), QString::fromStdString(markers.columnText(1))});
        // About two hundred windows across the session, none shorter than a second.
        view.bottlenecks = SessionAnalysis::analyzeRange(
            store, sessionId, view.t0Ns, view.t1Ns,
            std::max<std::int64_t>(1000000000LL, (view.t1Ns - view.t0Ns) / 200));
        emit sessionOpened(view);
    } catch (const std::exception& e) {
        emit failed(QString::fromStdString(e.what()));
    }
}

void StoreReader::loadRange(const QString& db, qint64 sessionId, qint64 t0Ns, qint64 t1Ns,
                            int columns, quint64 request) {
    try {
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        SeriesMap data;
        for (const auto& chart : ChartCatalog::build(store.metrics(sessionId), {}))
            for (const auto& s : chart.series)
                data[s.metricId] = store.readDecimated(s.metricId, t0Ns, t1Ns, 2 * columns);
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
