#pragma once

#include "core/model/MetricInfo.h"
#include "core/model/Sample.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace tierscope {

class Store;

// The GPUs' energy over one run, from their gpu/<n>/energy_j counters (NVML's and rocm-smi's
// hardware counters, or power readings integrated where a backend has none: labelled
// "integrated"). All GPUs of the machine count, idle ones included, as both arms of an
// experiment on one machine share them. A GPU without an energy series adds nothing, and with
// none the energy is absent, never zero.
struct RunEnergy {
    std::optional<double> joules; // the GPUs' increases over the run, added up
    int gpus = 0;                 // how many GPUs that adds up
    int integratedGpus = 0;       // of them, integrated from power readings

    static RunEnergy read(Store& store, const std::vector<MetricInfo>& metrics,
                          std::int64_t startNs, std::int64_t endNs);
    // A counter's increase over the run: the increases between consecutive samples, for each
    // sample in (start, end], the first measured from the last sample at or before the start
    // (so the interval that began before the run counts whole, as the run's other interval
    // figures do). A value below the one before is a counter that restarted from zero: its
    // value is the increase, Prometheus' increase() rule. Absent without two samples to
    // difference. `samples` are sorted by time and may begin before the run.
    static std::optional<double> increase(const std::vector<Sample>& samples, std::int64_t startNs,
                                          std::int64_t endNs);
};

} // namespace tierscope
