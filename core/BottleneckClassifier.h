#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// Names what limited the system in one time window. Rules, first match wins:
//  1. kv-capacity-bound: KV-cache usage >= kvNearFull, with requests waiting or preemptions;
//  2. storage-bound: storage bandwidth >= storageNearCeiling of its observed ceiling, or a
//     device busy >= storageUtilBusy %, while GPUs are under gpuUnderBusy % (or unmeasured)
//     and TTFT >= ttftHighS (or unmeasured);
//  3. gpu-compute-bound: GPUs busy >= gpuBusy %;
//  4. engine-queueing: at least waitingQueue requests waiting;
//  5. idle/client-bound: none of the above.
// A value a source did not report is absent and never counts as zero.
class BottleneckClassifier {
  public:
    enum class Class { KvCapacityBound, StorageBound, GpuComputeBound, EngineQueueing, Idle };

    struct Window {
        std::optional<double> storageShare;   // bandwidth / the session's observed ceiling
        std::optional<double> storageUtilPct; // busiest block device
        std::optional<double> gpuBusyPct;     // mean over GPUs
        std::optional<double> ttftS;          // engine TTFT p50
        std::optional<double> kvUsage;        // 0..1
        std::optional<double> requestsWaiting;
        std::optional<double> preemptionsPerS;
    };
    struct Thresholds {
        double kvNearFull = 0.90;
        double storageNearCeiling = 0.80;
        double storageUtilBusy = 80.0;
        double gpuUnderBusy = 60.0;
        double gpuBusy = 85.0;
        double ttftHighS = 1.0;
        double waitingQueue = 1.0;
    };
    struct Verdict {
        Class cls = Class::Idle;
        std::string evidence; // the numbers that decided it
    };

    static Verdict classify(const Window& w, const Thresholds& t);
    static Verdict classify(const Window& w) { return classify(w, Thresholds()); }
    static const char* name(Class c);
    // Every class, in the order legends, tables and charts list them.
    static const std::vector<Class>& all();
    // One colour per class, shared by the timeline bands and the comparison charts.
    static const char* color(Class c);
};

} // namespace tierscope
