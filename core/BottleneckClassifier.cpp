#include "core/BottleneckClassifier.h"

#include <cstdio>

namespace tierscope {

namespace {

std::string number(const char* format, double v) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, v);
    return buffer;
}

std::string gpuText(const BottleneckClassifier::Window& w) {
    return w.gpuBusyPct ? "GPU busy " + number("%.0f %%", *w.gpuBusyPct) : "no GPU data";
}

} // namespace

BottleneckClassifier::Verdict BottleneckClassifier::classify(const Window& w, const Thresholds& t) {
    const double waiting = w.requestsWaiting.value_or(0);
    const double preempting = w.preemptionsPerS.value_or(0);
    if (w.kvUsage && *w.kvUsage >= t.kvNearFull && (waiting >= t.waitingQueue || preempting > 0))
        return {Class::KvCapacityBound, "KV cache " + number("%.0f %%", *w.kvUsage * 100) +
                                            " full, " + number("%.0f", waiting) + " waiting, " +
                                            number("%.2f", preempting) + " preemptions/s"};
    const bool nearCeiling = w.storageShare && *w.storageShare >= t.storageNearCeiling;
    const bool deviceBusy = w.storageUtilPct && *w.storageUtilPct >= t.storageUtilBusy;
    const bool gpuStarved = !w.gpuBusyPct || *w.gpuBusyPct < t.gpuUnderBusy;
    const bool ttftHigh = !w.ttftS || *w.ttftS >= t.ttftHighS;
    if ((nearCeiling || deviceBusy) && gpuStarved && ttftHigh) {
        std::string evidence;
        if (w.storageShare)
            evidence +=
                "storage at " + number("%.0f %%", *w.storageShare * 100) + " of its ceiling";
        if (w.storageUtilPct)
            evidence += (evidence.empty() ? "" : ", ") + std::string("device busy ") +
                        number("%.0f %%", *w.storageUtilPct);
        evidence += ", " + gpuText(w);
        if (w.ttftS)
            evidence += ", TTFT " + number("%.2f s", *w.ttftS);
        return {Class::StorageBound, evidence};
    }
    if (w.gpuBusyPct && *w.gpuBusyPct >= t.gpuBusy)
        return {Class::GpuComputeBound, gpuText(w)};
    if (waiting >= t.waitingQueue)
        return {Class::EngineQueueing,
                number("%.0f", waiting) + " requests waiting, " + gpuText(w)};
    std::string evidence = gpuText(w);
    if (w.storageShare)
        evidence += ", storage at " + number("%.0f %%", *w.storageShare * 100) + " of its ceiling";
    return {Class::Idle, evidence};
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
        break;
    }
    return "idle/client-bound";
}

const std::vector<BottleneckClassifier::Class>& BottleneckClassifier::all() {
    static const std::vector<Class> classes = {Class::StorageBound, Class::GpuComputeBound,
                                               Class::KvCapacityBound, Class::EngineQueueing,
                                               Class::Idle};
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
        break;
    }
    return "#a0a0a0";
}

} // namespace tierscope
