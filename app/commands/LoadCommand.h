#pragma once

#include "app/commands/LoadRecording.h"
#include "app/common/GlobalOptions.h"
#include "loadgen/TraceSchedule.h"

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

namespace tierscope {

class LoadCommand {
  public:
    struct Options {
        std::string url;
        std::string model;
        std::string api = "completions";
        int concurrency = 0;
        double rate = 0;
        double burstiness = 1.0;
        int requests = 0;
        std::string duration;
        int warmup = 0;
        std::string dataset = "synthetic";
        std::string datasetPath;
        std::string inputLen = "512";
        int outputLen = 128;
        int users = 8;
        int systemTokens = 1000;
        int rounds = 4;
        int questionTokens = 64;
        int documents = 16;        // cold-recovery
        int documentTokens = 8000; // cold-recovery
        int questions = 4;         // cold-recovery: per document
        bool resetPrefixCache = false;
        std::string reset;
        std::string goodput;
        // Validity checks of the measured phase (as an experiment's runs get them).
        std::optional<double> maxFailureRate; // errors: fail above it; absent: warn on any
        std::string kvPath;         // where the KV store reads from: storage and page-cache checks
        std::string geometry;       // KV geometry preset: the KV bytes the documents imply
        double kvBytesPerToken = 0; // or the bytes per token directly
        std::string out;
        std::string label;
        std::string storageProfile;
        std::string tokenEnv;
        bool insecure = false;
        bool ignoreEos = false;
        std::string extraBody; // a JSON object merged into every request body
        std::uint64_t seed = 0;
        std::string requestTimeout = "600s";
        int clientThreads = 0;            // event loops; 0: one per core
        LoadRecording::Options recording; // the machine and the engine, in the same session
        TraceSchedule::Options trace;     // --dataset trace
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
