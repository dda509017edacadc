// Collector cost: CPU time of the host and block collectors per sample cycle on this machine,
// expressed as the share of one core at 10 Hz. Baseline in the same run: only reading the same
// /proc files (no parsing, no rates), the floor any collector pays.
#include "BenchSupport.h"
#include "collectors/storage/BlockStatCollector.h"
#include "collectors/host/HostCollector.h"
#include "collectors/base/SysfsReader.h"

#include <cstdlib>

using namespace tierscope;

namespace {

template <typename F> double cpuUsPerCycle(int cycles, F&& cycle) {
    std::vector<double> perRound;
    for (int round = 0; round < 5; ++round) {
        const double before = bench::threadCpuSeconds();
        for (int i = 0; i < cycles; ++i)
            cycle(i);
        perRound.push_back((bench::threadCpuSeconds() - before) / cycles * 1e6);
    }
    return bench::median(perRound);
}

} // namespace

int main(int argc, char** argv) {
    const int cycles = argc > 1 ? std::atoi(argv[1]) : 2000;
    if (cycles <= 0) {
        std::fprintf(stderr, "usage: bench_collectors [CYCLES > 0]\n");
        return 2;
    }
    HostCollector host({});
    BlockStatCollector block({}, {});
    std::int64_t t = 1'000'000'000;
    std::size_t readings = 0;
    const double collectors = cpuUsPerCycle(cycles, [&](int) {
        t += 100'000'000;
        readings = host.sample(t).size() + block.sample(t).size();
    });
    std::size_t bytes = 0;
    const double readOnly = cpuUsPerCycle(cycles, [&](int) {
        bytes = 0;
        for (const char* f : {"/proc/stat", "/proc/meminfo", "/proc/net/dev", "/proc/diskstats"})
            bytes += SysfsReader::readFile(f).value_or("").size();
    });
    const double pctAt10Hz = collectors * 10 / 1e6 * 100;
    std::printf(
        "bench_collectors: host + block collectors, %d cycles x 5 rounds, %zu readings per cycle\n",
        cycles, readings);
    std::printf("  collectors: %.1f us CPU per cycle = %.3f %% of one core at 10 Hz\n", collectors,
                pctAt10Hz);
    std::printf("  baseline, reading the same /proc files only (%zu bytes): %.1f us per cycle\n",
                bytes, readOnly);
    std::printf("  ratio collectors / read-only baseline: %.2f\n", collectors / readOnly);
    return 0;
}
