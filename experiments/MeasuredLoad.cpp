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

std::optional<double> MeasuredLoad::impliedKvBytes() const {
    if (!kvBytesPerToken)
        return std::nullopt;
    return *kvBytesPerToken * documents * documentTokens;
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
    if (kvPathKnown && evidence.hasDevice())
        checks.push_back(evidence.pageCacheCheck());
}

} // namespace tierscope
