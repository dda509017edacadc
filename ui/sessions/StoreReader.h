#pragma once

#include "core/analysis/SessionAnalysis.h"
#include "core/model/Bucket.h"
#include "core/model/DeviceRecord.h"
#include "core/model/RunInfo.h"
#include "core/model/SessionInfo.h"
#include "core/view/ChartCatalog.h"
#include "core/view/ChartLayout.h"
#include "core/view/PhaseSections.h"
#include "core/view/RunRequestSummary.h"
#include "ui/timeline/TimelineMarker.h"
#include "ui/timeline/TimelineSpan.h"

#include <QMetaType>
#include <QObject>
#include <QString>
#include <map>
#include <set>
#include <vector>

namespace tierscope {

using SeriesMap = std::map<std::int64_t, std::vector<Bucket>>;

// Everything the timeline needs to draw a recorded session.
struct SessionView {
    SessionInfo info;
    std::vector<DeviceRecord> devices;
    std::vector<ChartCatalog::Chart> charts; // as the layout asked
    std::vector<MetricInfo> metrics;         // every one recorded, for the metric picker
    SeriesMap data;
    SessionAnalysis::Result bottlenecks;          // the band above the charts
    std::vector<TimelineMarker> markers;          // every stored event but the session's own bounds
    std::vector<TimelineSpan> spans;              // its runs
    std::vector<PhaseSections::Section> sections; // its phases and runs by name
    SeriesMap requestData; // series made of its requests (negative ids), also in `data`
    std::vector<RunRequestSummary::Row> runs; // its runs that sent requests, for the runs panel
    std::int64_t t0Ns = 0;
    std::int64_t t1Ns = 0;
};

// Reads the store for the GUI. It lives on a worker thread: every query runs there and the
// results come back through queued signals, so the GUI thread never waits on SQLite. Each
// call opens the workspace read-only for its own duration.
class StoreReader : public QObject {
    Q_OBJECT
  public:
    explicit StoreReader(QObject* parent = nullptr);

    // The span a run draws: its arm (or workload) and repetition, warm-up, INVALID when a
    // validity check of its summary failed.
    static TimelineSpan spanOf(const RunInfo& run);
    // The line an event draws: a marker's note, else "<kind>: <text>"; none (empty) for the
    // events that only bound the session or hold a whole file (the experiment plan).
    static QString markerText(const std::string& kind, const std::string& text);
    // An event every run repeats, drawn as a tick rather than a labelled line.
    static bool isRoutineEvent(const std::string& kind);
    void listSessions(const QString& db);
    // Decimated to about `columns` buckets per series over the whole session, with the charts
    // that `layout` shows.
    void openSession(const QString& db, qint64 sessionId, int columns, const ChartLayout& layout);
    // The stored metrics `metricIds` (those the view shows) over [t0Ns, t1Ns].
    void loadRange(const QString& db, qint64 t0Ns, qint64 t1Ns, int columns,
                   const std::vector<std::int64_t>& metricIds, quint64 request);
    // The ceilings `analyze` would use for a session (probes, else workspace history), also
    // for devices the live view measured before their series reached the store.
    void readCeilings(const QString& db, qint64 sessionId, const std::set<std::string>& devices);

  signals:
    void sessionsListed(const std::vector<tierscope::SessionInfo>& sessions);
    void sessionOpened(const tierscope::SessionView& view);
    void rangeLoaded(quint64 request, const tierscope::SeriesMap& data);
    void ceilingsRead(qint64 sessionId, const tierscope::SessionAnalysis::Ceilings& ceilings);
    void failed(const QString& message);
};

} // namespace tierscope

Q_DECLARE_METATYPE(tierscope::SessionView)
Q_DECLARE_METATYPE(tierscope::SeriesMap)
Q_DECLARE_METATYPE(tierscope::SessionAnalysis::Ceilings)
Q_DECLARE_METATYPE(std::vector<tierscope::SessionInfo>)
