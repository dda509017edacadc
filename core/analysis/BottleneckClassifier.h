#pragma once

#include "core/stats/TtftBreakdown.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// Names what limited the system in one time window, only from evidence: a value a source did
// not report is absent, never zero, and a missing measurement never wins a class by
// elimination (no GPU data gives no GPU or storage verdict). The rules, first match wins, are
// kRulesText below; `tierscope analyze --help` prints them.
class BottleneckClassifier {
  public:
    enum class Class {
        KvCapacityBound,
        StorageBound,
        GpuComputeBound,
        EngineQueueing,
        Idle,
        Unknown
    };

    // One storage target in one window: a block device, or a storage workload's target.
    struct Storage {
        std::string name;
        std::optional<double> bytesPerS; // read + write
        std::optional<double> iops;      // read + write
        std::optional<double> awaitS;    // mean completion time
        std::optional<double> queueDepth;
        std::optional<double> utilPct; // shown, never evidence: 100 % util is not saturation
        // Absent: no ceiling known. Probed ceilings come from `storage probe`; otherwise the
        // bandwidth ceiling is the best ever recorded on the device in the workspace.
        std::optional<double> bandwidthCeiling;
        std::optional<double> iopsCeiling;
        std::optional<double> unloadedAwaitS;
        bool probed = false;
        // Under a run's KV tier directory (its summary's kv_tier): where the tier is known, only
        // its devices can make a window storage-bound.
        bool kvTier = false;
    };
    struct Window {
        std::vector<Storage> storage;          // empty: no storage data
        std::map<std::string, double> gpuBusy; // percent per GPU; empty: no GPU data
        std::optional<double> requestsRunning;
        std::optional<double> requestsWaiting;
        // Of those, the requests waiting for their KV from a connector (an offload tier,
        // storage: vLLM's reason "deferred"): work that waits on storage, said by the engine.
        std::optional<double> requestsDeferred;
        std::optional<double> preemptionsPerS;
        std::optional<double> kvUsage; // 0..1
        // Engine p50s over the window; the parts of TTFT where the engine exposes them.
        std::optional<double> ttftS;
        std::optional<double> queueS;
        std::optional<double> prefillS;
        std::optional<double> retrieveS; // LMCache time_to_retrieve
        // The same parts as the histograms' sums and counts over the window. The shares of
        // TTFT are judged on these means, which add up: a p50 is only as fine as the buckets
        // (vLLM's queue and prefill buckets start at 0.3 s, so any faster phase has p50
        // 0.15 s, as Prometheus' histogram_quantile says too). The p50s stand in only where
        // the engine reports no sums.
        TtftBreakdown means;
    };
    struct Thresholds {
        double kvNearFull = 0.90;
        double storageNearCeiling = 0.80; // of the bandwidth or IOPS ceiling
        double latencyRise = 3.0;         // await over unloaded await ...
        double highQueueDepth = 8.0;      // ... at this queue depth or more
        double gpuUnderBusy = 60.0;       // every GPU below: GPUs not saturated
        double gpuBusy = 85.0;            // some GPU at or above: GPU-bound
        double ttftStorageShare = 0.5;    // KV retrieve or prefill over TTFT
        double ttftQueueShare = 0.5;      // queue time over TTFT
        double waitingQueue = 1.0;
        double idleBytesPerS = 1e6; // all storage below: no I/O
    };
    struct Verdict {
        Class cls = Class::Unknown;
        std::string rule;     // the rule that fired, e.g. "storage-bandwidth", "no-gpu-data"
        std::string evidence; // the numbers that decided it
    };

    static Verdict classify(const Window& w, const Thresholds& t);
    static Verdict classify(const Window& w) { return classify(w, Thresholds()); }
    static const char* name(Class c);
    // Every class, in the order legends, tables and charts list them.
    static const std::vector<Class>& all();
    // One colour per class, shared by the timeline bands and the comparison charts.
    static const char* color(Class c);
    // The rules with their default thresholds, in words: the one place they are documented.
    static const char* const kRulesText;
};

} // namespace tierscope
