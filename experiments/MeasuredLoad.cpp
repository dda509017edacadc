#include "experiments/MeasuredLoad.h"

#include "workloads/KvGeometry.h"
#include "workloads/WorkloadError.h"

namespace tierscope {

Datasets::ColdRecovery MeasuredLoad::prompts() const {
    if (coldRecovery())
        return Datasets::coldRecovery(documents, documentTokens, questions, questionTokens,
                                      outputLen, seed);
    Datasets::ColdRecovery out;
    if (dataset == "synthetic")
        out.measured = Datasets::synthetic(count, inputMin, inputMax, outputLen, seed);
    else if (dataset == "shared-prefix")
        out.measured =
            Datasets::sharedPrefix(users, systemTokens, rounds, questionTokens, outputLen, seed);
    else if (dataset == "jsonl")
        out.measured = Datasets::jsonl(datasetPath, outputLen);
    else
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "unknown dataset \"" + dataset +
                                "\" (synthetic, shared-prefix, jsonl or cold-recovery)");
    return out;
}

std::optional<ImpliedKv> MeasuredLoad::impliedKv(const std::vector<RequestRecord>& populate) const {
    if (!kvBytesPerToken)
        return std::nullopt;
    ImpliedKv out;
    out.tokens = static_cast<double>(documents) * documentTokens;
    double counted = 0;
    bool complete = static_cast<int>(populate.size()) == documents;
    for (const auto& r : populate) {
        if (!r.ok() || !r.promptTokens) {
            complete = false;
            break;
        }
        counted += *r.promptTokens;
    }
    if (complete && counted > 0) {
        out.tokens = counted;
        out.from = "prompt_tokens";
    }
    out.bytes = *kvBytesPerToken * out.tokens;
    return out;
}

nlohmann::json MeasuredLoad::coldParams() const {
    return {{"documents", documents},
            {"document_tokens", documentTokens},
            {"questions", questions},
            {"question_tokens", questionTokens}};
}

std::optional<double> MeasuredLoad::bytesPerToken(std::optional<double> explicitBytes,
                                                  const std::string& geometry) {
    if (explicitBytes)
        return explicitBytes;
    if (geometry.empty())
        return std::nullopt;
    return static_cast<double>(KvGeometry::preset(geometry).bytesPerToken());
}

void MeasuredLoad::addEvidenceChecks(nlohmann::json& checks, const ColdRecoveryEvidence& evidence,
                                     bool kvPathKnown, bool cacheRequired) {
    if (kvPathKnown)
        checks.push_back(evidence.storageCheck());
    if (cacheRequired || evidence.hasCounters())
        checks.push_back(evidence.cacheCheck());
    // A recompute baseline reads no KV, so no read of it can have come from the page cache.
    if (kvPathKnown && evidence.hasDevice() && !evidence.recompute())
        checks.push_back(evidence.pageCacheCheck());
}

} // namespace tierscope
