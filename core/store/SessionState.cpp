#include "core/store/SessionState.h"

#include "core/store/Store.h"
#include "core/store/WriterRegistry.h"

namespace tierscope {

namespace {

constexpr std::int64_t kRecentNs = 15'000'000'000LL;

// Without a live owner to ask (an older file, a pulled copy, a writer in another container),
// samples arriving (one within 15 s of now) are the only sign of recording.
bool samplesArriving(Store& store, const std::vector<MetricInfo>& metrics, std::int64_t nowNs) {
    for (const auto& m : metrics)
        for (const auto& b : store.readDecimated(m.id, nowNs - kRecentNs, nowNs + kRecentNs, 1))
            if (b.count > 0)
                return true;
    return false;
}

} // namespace

// An open session is "recording" while the process that opened it runs, whether or not its
// samples are recent (an idle or retrying recorder has none, a remote clock may lag ours), and
// "interrupted" once that process ended without closing it (a crash, a kill, a full disk).
std::string SessionState::of(Store& store, const SessionInfo& s,
                             const std::vector<MetricInfo>& metrics, std::int64_t nowNs) {
    if (s.endNs)
        return "finished";
    switch (WriterRegistry::sessionOwner(store.db(), s.id)) {
    case WriterRegistry::Owner::Alive:
        return "recording";
    case WriterRegistry::Owner::Gone:
        return "interrupted";
    case WriterRegistry::Owner::None:
    case WriterRegistry::Owner::Unknown:
        break;
    }
    return samplesArriving(store, metrics, nowNs) ? "recording" : "interrupted";
}

} // namespace tierscope
