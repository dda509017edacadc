#include "core/analysis/BottleneckClassifier.h"

#include "core/util/UnitFormat.h"

#include <algorithm>
#include <cstdio>

namespace tierscope {

const char* const BottleneckClassifier::kRulesText =
    "Bottleneck rules, per window, first match wins. A value a source did not report is\n"
    "absent, never zero, and a missing measurement never wins a class by elimination.\n"
    "  kv-capacity-bound  KV-cache usage >= 90 % with >= 1 request waiting or preemptions.\n"
    "  storage-bound      a storage device is saturated: bandwidth or IOPS >= 80 % of its\n"
    "                     ceiling, or await >= 3x its unloaded await at queue depth >= 8\n"
    "                     (where the runs name their KV tier's directory, a device under it);\n"
    "                     AND GPU data exists with every GPU < 60 % busy; AND the engine\n"
    "                     shows work waiting on storage: storage wait (KV lookup wait, KV\n"
    "                     retrieve, KV load back) or prefill >= 50 % of TTFT where it\n"
    "                     reports them (the histograms' means over the window; their p50s\n"
    "                     where it reports no sums), or >= 1 request deferred for its KV\n"
    "                     (vLLM's waiting reason \"deferred\"), else >= 1 request waiting.\n"
    "                     Without any it is unknown (no-engine-evidence).\n"
    "                     Device %util is shown but is never evidence: a device serving\n"
    "                     requests in parallel is 100 % busy with one request in flight.\n"
    "  gpu-compute-bound  some GPU (each on its own, not the mean) >= 85 % busy while the\n"
    "                     engine runs requests (requests running >= 1, or a TTFT measured).\n"
    "  engine-queueing    >= 1 request waiting, or queue time >= 50 % of TTFT (means, as\n"
    "                     above), while every GPU < 85 % busy and every storage device has\n"
    "                     headroom.\n"
    "  idle/client-bound  idle: the engine runs no requests and storage moves < 1 MB/s; or\n"
    "                     client-bound: requests run, none wait, and GPUs, storage and the KV\n"
    "                     cache all have headroom (the offered load is the limit).\n"
    "  unknown            the evidence a class needs is missing (no GPU data, no engine data,\n"
    "                     no storage data, no ceiling) or the measurements fit no rule.\n"
    "Ceilings: a device probed with `tierscope storage probe --path DIR` (its latest probe\n"
    "on this host) is judged against the probe: bandwidth (the faster of sequential read and\n"
    "write), 4 KiB random-read IOPS and the QD 1 latency as unloaded await. A device never\n"
    "probed uses the best 1 s bandwidth (read + write) recorded on it (same host, same\n"
    "device name) in the workspace's other sessions, labelled\n"
    "\"ceiling from history, not probed\", with no IOPS or latency ceiling. A storage\n"
    "workload's target is judged against the probe of its directory (or one above it),\n"
    "never against its own bandwidth; unprobed, it has no ceiling.\n";

namespace {

using Storage = BottleneckClassifier::Storage;
using Thresholds = BottleneckClassifier::Thresholds;
using Window = BottleneckClassifier::Window;
using Verdict = BottleneckClassifier::Verdict;
using Class = BottleneckClassifier::Class;

std::string number(const char* format, double v) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, v);
    return buffer;
}

// Latencies from microseconds (a drive's await) to minutes (a cold TTFT).
std::string duration(double s) {
    if (s >= 1)
        return number("%.2f s", s);
    if (s >= 1e-3)
        return number("%.2f ms", s * 1e3);
    return number("%.0f us", s * 1e6);
}

std::optional<double> bandwidthShare(const Storage& s) {
    if (!s.bytesPerS || !s.bandwidthCeiling || *s.bandwidthCeiling <= 0)
        return std::nullopt;
    return *s.bytesPerS / *s.bandwidthCeiling;
}

std::optional<double> iopsShare(const Storage& s) {
    if (!s.iops || !s.iopsCeiling || *s.iopsCeiling <= 0)
        return std::nullopt;
    return *s.iops / *s.iopsCeiling;
}

// The larger of the bandwidth and IOPS shares of their ceilings; absent without a ceiling.
std::optional<double> load(const Storage& s) {
    const auto bw = bandwidthShare(s), io = iopsShare(s);
    if (bw && io)
        return std::max(*bw, *io);
    return bw ? bw : io;
}

bool latencyHigh(const Storage& s, const Thresholds& t) {
    return s.awaitS && s.unloadedAwaitS && *s.unloadedAwaitS > 0 && s.queueDepth &&
           *s.queueDepth >= t.highQueueDepth && *s.awaitS >= t.latencyRise * *s.unloadedAwaitS;
}

bool saturated(const Storage& s, const Thresholds& t) {
    const auto l = load(s);
    return (l && *l >= t.storageNearCeiling) || latencyHigh(s, t);
}

bool quiet(const Storage& s, const Thresholds& t) {
    return s.bytesPerS && *s.bytesPerS < t.idleBytesPerS;
}

// True: every device has headroom; false: one is saturated; absent: a device moves data
// but has no ceiling to compare with, or there is no storage data at all.
std::optional<bool> storageHeadroom(const Window& w, const Thresholds& t) {
    if (w.storage.empty())
        return std::nullopt;
    bool known = true;
    for (const auto& s : w.storage) {
        if (saturated(s, t))
            return false;
        if (!load(s) && !quiet(s, t))
            known = false;
    }
    return known ? std::optional<bool>(true) : std::nullopt;
}

bool noIo(const Window& w, const Thresholds& t) {
    return !w.storage.empty() && std::all_of(w.storage.begin(), w.storage.end(),
                                             [&](const Storage& s) { return quiet(s, t); });
}

// The device that says most: the most loaded against its ceiling, else the busiest.
const Storage* hottest(const Window& w) {
    const Storage* best = nullptr;
    for (const auto& s : w.storage) {
        if (!best) {
            best = &s;
            continue;
        }
        const auto a = load(s), b = load(*best);
        if (a && (!b || *a > *b))
            best = &s;
        else if (!a && !b && s.bytesPerS.value_or(0) > best->bytesPerS.value_or(0))
            best = &s;
    }
    return best;
}

// The busiest saturated device; where the runs name their KV tier's devices, only one of them:
// a saturated disk that holds no KV is not what the requests wait on.
const Storage* saturatedDevice(const Window& w, const Thresholds& t) {
    const bool tierKnown =
        std::any_of(w.storage.begin(), w.storage.end(), [](const Storage& s) { return s.kvTier; });
    const Storage* best = nullptr;
    for (const auto& s : w.storage)
        if ((!tierKnown || s.kvTier) && saturated(s, t) &&
            (!best || load(s).value_or(0) > load(*best).value_or(0)))
            best = &s;
    return best;
}

std::optional<std::pair<std::string, double>> busiestGpu(const Window& w) {
    std::optional<std::pair<std::string, double>> out;
    for (const auto& [id, busy] : w.gpuBusy)
        if (!out || busy > out->second)
            out = std::make_pair(id, busy);
    return out;
}

bool engineReported(const Window& w) {
    return w.requestsRunning || w.requestsWaiting || w.ttftS || w.kvUsage || w.queueS ||
           w.prefillS || w.retrieveS || w.preemptionsPerS || !w.means.empty();
}

// A part's share of TTFT: from the means where the window has them (and at least one request),
// else from the p50s; absent when either side is.
std::optional<double> share(const Window& w, std::optional<double> (TtftBreakdown::*mean)() const,
                            const std::optional<double>& p50) {
    const auto ttft = w.means.meanTtftS();
    if (ttft && w.means.requests().value_or(0) > 0) {
        const auto part = (w.means.*mean)();
        if (!part || *ttft <= 0)
            return std::nullopt;
        return *part / *ttft;
    }
    if (!p50 || !w.ttftS || *w.ttftS <= 0)
        return std::nullopt;
    return *p50 / *w.ttftS;
}

std::optional<double> storageShare(const Window& w) {
    const auto retrieve = share(w, &TtftBreakdown::storageWaitS, w.retrieveS);
    const auto prefill = share(w, &TtftBreakdown::meanPrefillS, w.prefillS);
    if (!retrieve && !prefill)
        return std::nullopt;
    return std::max(retrieve.value_or(0), prefill.value_or(0));
}

std::string storageText(const Window& w, const Storage* s, const Thresholds& t) {
    if (w.storage.empty())
        return "no storage data";
    if (!s)
        s = hottest(w);
    std::string out = s->name + (s->kvTier ? " (KV tier)" : "") + " " +
                      (s->bytesPerS ? UnitFormat::bytesPerSecond(*s->bytesPerS) : "no bandwidth");
    if (const auto share = bandwidthShare(*s))
        out += " = " + number("%.0f %%", *share * 100) + " of its " +
               UnitFormat::bytesPerSecond(*s->bandwidthCeiling) + " ceiling" +
               (s->probed ? " (probed)" : " (ceiling from history, not probed)");
    else if (s->bytesPerS && !quiet(*s, t))
        out += " (no ceiling)";
    if (s->iops) {
        out += ", " + number("%.0f IOPS", *s->iops);
        if (const auto share = iopsShare(*s))
            out += " = " + number("%.0f %% of its probed ceiling", *share * 100);
    }
    if (s->awaitS) {
        out += ", await " + duration(*s->awaitS);
        if (s->queueDepth)
            out += number(" at QD %.1f", *s->queueDepth);
        if (s->unloadedAwaitS)
            out += " (unloaded " + duration(*s->unloadedAwaitS) + ")";
    }
    if (s->utilPct)
        out += number(", util %.0f %%", *s->utilPct);
    if (w.storage.size() > 1)
        out += " (busiest of " + std::to_string(w.storage.size()) + " devices)";
    return out;
}

std::string gpuText(const Window& w) {
    const auto g = busiestGpu(w);
    if (!g)
        return "no GPU data";
    std::string out = "GPU " + g->first + " busy " + number("%.0f %%", g->second);
    if (w.gpuBusy.size() > 1)
        out += " (busiest of " + std::to_string(w.gpuBusy.size()) + " GPUs)";
    return out;
}

std::string engineText(const Window& w) {
    if (!engineReported(w))
        return "no engine data";
    std::vector<std::string> parts;
    if (w.requestsRunning)
        parts.push_back(number("%.0f running", *w.requestsRunning));
    if (w.requestsWaiting)
        parts.push_back(number("%.0f waiting", *w.requestsWaiting));
    if (w.requestsDeferred)
        parts.push_back(number("%.0f deferred for KV", *w.requestsDeferred));
    if (w.kvUsage)
        parts.push_back("KV cache " + number("%.0f %%", *w.kvUsage * 100));
    if (w.preemptionsPerS)
        parts.push_back(number("%.2f preemptions/s", *w.preemptionsPerS));
    // With the histograms' sums the breakdown of means says where TTFT went; the p50s are
    // listed without shares, which they cannot give.
    const bool means = w.means.meanTtftS().has_value() && w.means.requests().value_or(0) > 0;
    if (means)
        parts.push_back(w.means.text());
    auto part = [&](const char* what, const std::optional<double>& v) {
        if (!v)
            return;
        std::string text = std::string(what) + " p50 " + duration(*v);
        if (!means && w.ttftS && *w.ttftS > 0 && &v != &w.ttftS)
            text += number(" (%.0f %%)", *v / *w.ttftS * 100);
        parts.push_back(text);
    };
    part("TTFT", w.ttftS);
    part("queue", w.queueS);
    part("prefill", w.prefillS);
    part("KV retrieve", w.retrieveS);
    std::string out;
    for (const auto& p : parts)
        out += (out.empty() ? "" : ", ") + p;
    return out;
}

enum class Lead { Storage, Gpu, Engine };

// Every part of the window, the one that decided the verdict first.
std::string facts(const Window& w, const Storage* s, const Thresholds& t,
                  Lead lead = Lead::Storage) {
    const std::string storage = storageText(w, s, t), gpu = gpuText(w), eng = engineText(w);
    switch (lead) {
    case Lead::Gpu:
        return gpu + "; " + eng + "; " + storage;
    case Lead::Engine:
        return eng + "; " + gpu + "; " + storage;
    case Lead::Storage:
        break;
    }
    return storage + "; " + gpu + "; " + eng;
}

Verdict unknown(const std::string& rule, const std::string& reason, const Window& w,
                const Storage* s, const Thresholds& t) {
    return {Class::Unknown, rule, reason + "; " + facts(w, s, t)};
}

// What is missing, for a window no rule could name.
Verdict unexplained(const Window& w, const Thresholds& t) {
    std::string rule, reason;
    auto missing = [&](const char* id, const std::string& why) {
        if (rule.empty())
            rule = id;
        reason += (reason.empty() ? "" : ", ") + why;
    };
    if (w.gpuBusy.empty())
        missing("no-gpu-data", "no GPU data");
    if (!engineReported(w))
        missing("no-engine-data", "no engine data");
    if (w.storage.empty())
        missing("no-storage-data", "no storage data");
    for (const auto& s : w.storage)
        if (!load(s) && !quiet(s, t))
            missing("no-ceiling", "no ceiling for " + s.name);
    if (rule.empty())
        return unknown("no-rule", "the measurements fit no rule", w, nullptr, t);
    return unknown(rule, reason, w, nullptr, t);
}

} // namespace

BottleneckClassifier::Verdict BottleneckClassifier::classify(const Window& w, const Thresholds& t) {
    if (w.storage.empty() && w.gpuBusy.empty() && !engineReported(w))
        return {Class::Unknown, "no-data", "nothing was recorded in this window"};
    const bool waiting = w.requestsWaiting && *w.requestsWaiting >= t.waitingQueue;
    if (w.kvUsage && *w.kvUsage >= t.kvNearFull &&
        (waiting || (w.preemptionsPerS && *w.preemptionsPerS > 0)))
        return {Class::KvCapacityBound, "kv-full", facts(w, nullptr, t, Lead::Engine)};

    const auto gpu = busiestGpu(w);
    if (const Storage* hot = saturatedDevice(w, t)) {
        if (!gpu)
            return unknown("no-gpu-data",
                           "storage saturated, but no GPU data to show that GPUs wait on it", w,
                           hot, t);
        // A busy device beside idle GPUs is not enough: the engine must show work waiting on
        // storage, in its TTFT parts where it reports them, else in waiting requests.
        const auto part = storageShare(w);
        const bool deferred = w.requestsDeferred && *w.requestsDeferred >= t.waitingQueue;
        const bool waitsOnStorage = deferred || (part ? *part >= t.ttftStorageShare : waiting);
        if (gpu->second < t.gpuUnderBusy && !part && !waiting && !deferred)
            return unknown("no-engine-evidence",
                           "storage saturated beside idle GPUs, but no engine evidence (TTFT "
                           "parts, deferred or waiting requests) that work waits on it",
                           w, hot, t);
        if (gpu->second < t.gpuUnderBusy && waitsOnStorage) {
            const auto bw = bandwidthShare(*hot), io = iopsShare(*hot);
            const char* rule = bw && *bw >= t.storageNearCeiling   ? "storage-bandwidth"
                               : io && *io >= t.storageNearCeiling ? "storage-iops"
                                                                   : "storage-latency";
            return {Class::StorageBound, rule, facts(w, hot, t)};
        }
    }

    const bool requests = (w.requestsRunning && *w.requestsRunning >= 1) || w.ttftS.has_value() ||
                          w.means.requests().value_or(0) > 0;
    if (gpu && gpu->second >= t.gpuBusy) {
        if (requests)
            return {Class::GpuComputeBound, "gpu-busy", facts(w, nullptr, t, Lead::Gpu)};
        if (!engineReported(w))
            return unknown("no-engine-data",
                           "GPU busy, but no engine data to show requests running", w, nullptr, t);
    }

    const auto queueShare = share(w, &TtftBreakdown::meanQueueS, w.queueS);
    const bool queued = waiting || (queueShare && *queueShare >= t.ttftQueueShare);
    const auto headroom = storageHeadroom(w, t);
    if (queued && gpu && gpu->second < t.gpuBusy && headroom == true)
        return {Class::EngineQueueing, "queueing", facts(w, nullptr, t, Lead::Engine)};

    const bool noneWaiting = w.requestsWaiting && *w.requestsWaiting < t.waitingQueue;
    if (w.requestsRunning && *w.requestsRunning < 1 && !queued && noIo(w, t))
        return {Class::Idle, "idle", facts(w, nullptr, t, Lead::Engine)};
    if (requests && noneWaiting && !queued && gpu && gpu->second < t.gpuBusy && headroom == true &&
        (!w.kvUsage || *w.kvUsage < t.kvNearFull))
        return {Class::Idle, "client-bound", facts(w, nullptr, t, Lead::Engine)};
    return unexplained(w, t);
}

const char* BottleneckClassifier::name(Class c) {
    switch (c) {
    case Class::KvCapacityBound:
        return "kv-capacity-bound";
    case Class::StorageBound:
        return "storage-bound";
    case Class::GpuComputeBound:
        return "gpu-compute-bound";
    case Class::EngineQueueing:
        return "engine-queueing";
    case Class::Idle:
        return "idle/client-bound";
    case Class::Unknown:
        break;
    }
    return "unknown";
}

const std::vector<BottleneckClassifier::Class>& BottleneckClassifier::all() {
    static const std::vector<Class> classes = {
        Class::StorageBound, Class::GpuComputeBound, Class::KvCapacityBound, Class::EngineQueueing,
        Class::Idle,         Class::Unknown};
    return classes;
}

const char* BottleneckClassifier::color(Class c) {
    switch (c) {
    case Class::KvCapacityBound:
        return "#8e5ec4";
    case Class::StorageBound:
        return "#d62728";
    case Class::GpuComputeBound:
        return "#2ca02c";
    case Class::EngineQueueing:
        return "#e0a100";
    case Class::Idle:
        return "#a0a0a0";
    case Class::Unknown:
        break;
    }
    return "#e4e0d4"; // pale, so unknown never reads as a measured class
}

} // namespace tierscope
