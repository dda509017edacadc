#pragma once

#include "app/commands/LoadRecording.h"
#include "app/commands/SweepChart.h"
#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

// `tierscope sweep`: one load at several request rates or concurrencies, repeated and
// interleaved, each point with its KPIs' run-level intervals, and with --slo the highest
// point at which the SLOs hold (LoadSweep does the work).
class SweepCommand {
  public:
    struct Options {
        std::string url;
        std::string model;
        std::string api = "completions";
        std::vector<double> rates;
        std::vector<int> concurrency;
        int repetitions = 3;
        double burstiness = 1.0;
        int requests = 0;
        std::string duration;
        std::string dataset = "synthetic";
        std::string inputLen = "512";
        int outputLen = 128;
        int users = 8;
        int systemTokens = 1000;
        int rounds = 4;
        int questionTokens = 64;
        bool ignoreEos = false;
        std::string extraBody;
        std::uint64_t seed = 0;
        std::string goodput;
        std::vector<std::string> slos;
        int bisectSteps = 3;
        int warmup = 0; // requests before the grid, at its lowest point, not measured
        std::string experiment = "sweep";
        std::string format = "text";
        std::string out;
        std::string label;
        std::string storageProfile;
        std::string tokenEnv;
        bool insecure = false;
        std::string requestTimeout = "600s";
        LoadRecording::Options recording;
        SweepChart::Options chart; // --chart: throughput against latency, with intervals
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
