#include "ui/compare/OverlayWorker.h"

#include "core/compare/ComparisonBuilder.h"
#include "core/compare/RunKpis.h"
#include "core/store/Store.h"
#include "core/store/StoreError.h"
#include "core/util/WallClock.h"

#include <algorithm>
#include <map>
#include <set>

namespace tierscope {

namespace {

std::int64_t sessionNumber(const std::string& spec) {
    const std::string digits = spec.substr(spec.find(':') + 1);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
        throw ComparisonBuilder::UsageError("\"" + spec + "\" is not session:N");
    return std::stoll(digits);
}

bool isSession(const std::string& spec) {
    return spec.rfind("session:", 0) == 0;
}

// Reads the ranges' series, each session's catalog listed once.
class SideReader {
  public:
    explicit SideReader(Store& store) : m_store(store) {}

    OverlayFrame::Side read(const std::string& spec) {
        OverlayFrame::Side side;
        if (isSession(spec)) {
            const std::int64_t id = sessionNumber(spec);
            const auto s = m_store.session(id);
            if (!s)
                throw StoreError(StoreError::Code::NotFound, "no session " + std::to_string(id));
            OverlayFrame::Range r;
            r.t0Ns = s->startNs;
            r.t1Ns = s->endNs.value_or(WallClock().nowNs()); // still recording: until now
            for (const auto& run : m_store.runsOfSession(id)) {
                const auto requests = m_store.requests(run.id);
                r.requests.insert(r.requests.end(), requests.begin(), requests.end());
            }
            side.label = "session " + std::to_string(id) +
                         (s->label.empty() ? "" : " \"" + s->label + "\"") +
                         (s->storageProfile.empty() ? "" : " [" + s->storageProfile + "]");
            r.label = side.label;
            fill(r, id);
            side.ranges.push_back(std::move(r));
            return side;
        }
        const auto resolved = ComparisonBuilder::resolve(m_store, spec);
        side.label = resolved.label;
        // Warm-up and failed runs are no measurement, as in the comparison: drawn only where
        // the side has nothing else.
        const bool measured =
            std::any_of(resolved.runs.begin(), resolved.runs.end(), RunKpis::isMeasurement);
        for (std::size_t i = 0; i < resolved.runs.size(); ++i) {
            const auto& run = resolved.runs[i];
            if (measured && !RunKpis::isMeasurement(run))
                continue;
            OverlayFrame::Range r;
            r.t0Ns = run.startNs;
            r.t1Ns = run.endNs.value_or(WallClock().nowNs());
            r.requests = resolved.requests[i];
            r.label = "run " + std::to_string(run.id) + " (" +
                      (run.arm.empty() ? run.workload : run.arm) +
                      (run.repetition > 0 ? " r" + std::to_string(run.repetition) : "") + ")";
            fill(r, run.sessionId);
            side.ranges.push_back(std::move(r));
        }
        return side;
    }

    // Every series either side offers, by metric path, in the order first seen.
    std::vector<OverlayFrame::Series> series(bool requests) const {
        std::vector<OverlayFrame::Series> out;
        if (requests)
            for (const auto& s : OverlayFrame::catalog({}, {}, true))
                out.push_back(s);
        std::set<std::string> seen;
        for (const auto& [id, list] : m_catalogs)
            for (const auto& s : list)
                if (seen.insert(s.key).second)
                    out.push_back(s);
        return out;
    }

  private:
    void fill(OverlayFrame::Range& r, std::int64_t sessionId) {
        auto it = m_catalogs.find(sessionId);
        if (it == m_catalogs.end())
            it = m_catalogs
                     .emplace(sessionId, OverlayFrame::catalog(m_store.metrics(sessionId),
                                                               m_store.devices(sessionId), false))
                     .first;
        for (const auto& s : it->second) {
            auto buckets =
                m_store.readDecimated(s.metricId, r.t0Ns, r.t1Ns, OverlayWorker::kPoints);
            if (!buckets.empty())
                r.series[s.key] = std::move(buckets);
        }
        OverlayFrame::addRequestSeries(r);
    }

    Store& m_store;
    std::map<std::int64_t, std::vector<OverlayFrame::Series>> m_catalogs;
};

bool hasRequests(const OverlayFrame::Side& side) {
    return std::any_of(side.ranges.begin(), side.ranges.end(),
                       [](const OverlayFrame::Range& r) { return !r.requests.empty(); });
}

} // namespace

OverlayWorker::OverlayWorker(QObject* parent) : QObject(parent) {
    qRegisterMetaType<tierscope::OverlayData>();
}

void OverlayWorker::load(const QString& db, const QString& a, const QString& b, quint64 request) {
    try {
        Store store(db.toStdString(), Store::Mode::ReadOnly);
        std::string specA = a.trimmed().toStdString(), specB = b.trimmed().toStdString();
        if (specB.empty() && isSession(specA)) {
            // One session: its arms, in the order they first ran.
            const std::int64_t id = sessionNumber(specA);
            std::vector<std::pair<std::string, std::string>> arms;
            for (const auto& run : store.runsOfSession(id)) {
                const std::pair<std::string, std::string> arm{run.experiment, run.arm};
                if (!run.arm.empty() && std::find(arms.begin(), arms.end(), arm) == arms.end())
                    arms.push_back(arm);
            }
            if (arms.size() < 2)
                throw ComparisonBuilder::UsageError("session " + std::to_string(id) +
                                                    " has no two arms to overlay: pick B");
            auto spec = [id](const std::pair<std::string, std::string>& arm) {
                return "arm:" + arm.first + "/" + arm.second + "@" + std::to_string(id);
            };
            specA = spec(arms[0]);
            specB = spec(arms[1]);
        }
        if (specA.empty() || specB.empty())
            throw ComparisonBuilder::UsageError("pick both sides to overlay");
        SideReader reader(store);
        OverlayData data;
        data.a = reader.read(specA);
        data.b = reader.read(specB);
        data.series = reader.series(hasRequests(data.a) || hasRequests(data.b));
        emit loaded(request, data);
    } catch (const std::exception& e) {
        emit failed(request, QString::fromStdString(e.what()));
    }
}

} // namespace tierscope
