#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <string>

namespace tierscope {

// `tierscope storage prepare|run|clean|geometries|probe`: the storage workloads that reproduce AI
// I/O (model load, KV-cache restore, checkpoint save) on the user's own storage.
class StorageCommand {
  public:
    struct Options {
        std::string action; // prepare, run, clean, geometries, probe (the chosen subcommand)
        std::string workload;
        std::string path;
        // data set and workload shape
        std::string size = "8GiB";
        int files = 0; // 0: the workload's default
        std::string geometry;
        int layers = 0;
        int kvHeads = 0;
        int headDim = 0;
        int dtypeBytes = 2;
        int mlaLatentDim = 0;
        int tokens = 0;
        int prefixes = 16;
        int chunkTokens = 256;
        int parallel = 0;
        int concurrency = 16;
        int requests = 0;
        int depth = 4;
        std::string blockSize = "1MiB";
        bool restore = false;
        bool keep = false;
        bool preallocate = false;
        // how to run and record
        bool buffered = false;
        bool dropCaches = false;
        std::string label;
        std::string storageProfile;
        std::string json;
        std::string target; // run: ssh://host runs it there, progress streamed here
        bool quiet = false;
        // probe
        std::string probeSize = "4GiB";
        std::string probeDuration = "20s";
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
