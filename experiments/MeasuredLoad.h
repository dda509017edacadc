#pragma once

#include "core/model/RequestRecord.h"
#include "experiments/ColdRecoveryEvidence.h"
#include "loadgen/Datasets.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// The prompts and the KV arithmetic of a measured load run, whoever asks for it: `tierscope
// load` from its flags, an experiment's load and cold-recovery workloads from their plan. One
// dataset switch, one rule for the KV bytes per token, one set of cold-recovery checks, so a
// plan's run and the same run by hand send the same prompts and are judged alike.
struct MeasuredLoad {
    std::string dataset = "synthetic"; // synthetic | shared-prefix | jsonl | cold-recovery
    std::string datasetPath;           // jsonl
    int count = 0;                     // synthetic: prompts to make, warm-ups included
    int inputMin = 512;
    int inputMax = 512;
    int outputLen = 64;
    int users = 8;             // shared-prefix
    int systemTokens = 1000;   // shared-prefix
    int rounds = 4;            // shared-prefix
    int questionTokens = 64;   // shared-prefix and cold-recovery
    int documents = 16;        // cold-recovery
    int documentTokens = 8000; // cold-recovery
    int questions = 4;         // cold-recovery
    std::uint64_t seed = 1;
    std::optional<double> kvBytesPerToken;

    bool coldRecovery() const { return dataset == "cold-recovery"; }
    // The measured prompts, and for cold recovery the documents sent first (populate). Throws
    // std::invalid_argument for sizes over Datasets' limits, std::runtime_error for a bad
    // JSONL file, WorkloadError for an unknown dataset.
    Datasets::ColdRecovery prompts() const;
    // The KV the measured phase must bring back: every document's prefix once (distinct
    // prefixes); absent without the bytes per token. From the engine's own token counts of the
    // populate phase (its usage chunks) when every document reported them, since a real
    // tokenizer makes two to three tokens of a word; else from the documents' words.
    std::optional<ImpliedKv> impliedKv(const std::vector<RequestRecord>& populate = {}) const;
    // The cold-recovery sizes, for the run's recorded parameters.
    nlohmann::json coldParams() const;

    // KV bytes per token from an explicit figure, else from a geometry preset (see `storage
    // geometries`); absent with neither. Throws WorkloadError for an unknown geometry.
    static std::optional<double> bytesPerToken(std::optional<double> explicitBytes,
                                               const std::string& geometry);
    // The checks of a cold-recovery run's measured phase. The storage and page-cache checks
    // need the KV store's directory (`kvPathKnown`); the cache check needs the engine's
    // counters unless `cacheRequired` (a plan's arm promises an engine that exports them).
    static void addEvidenceChecks(nlohmann::json& checks, const ColdRecoveryEvidence& evidence,
                                  bool kvPathKnown, bool cacheRequired);
};

} // namespace tierscope
