#include "workloads/KvRestoreWorkload.h"

#include "workloads/WorkloadError.h"
#include "workloads/WorkloadSummary.h"

namespace tierscope {

KvRestoreWorkload::KvRestoreWorkload(Options options, const StorageManifest& manifest)
    : m_options(std::move(options)), m_dir(manifest.dir()) {
    // Refused while the chunks' preparation is incomplete: unwritten extents read as zeros.
    m_layout =
        StorageDataset::KvLayout::fromJson(StorageDataset::completeDataset(manifest, "kv-restore"));
    m_tokens = m_options.tokens > 0 ? m_options.tokens : m_layout.tokens;
    if (m_tokens > m_layout.tokens)
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "--tokens " + std::to_string(m_tokens) + " is longer than the " +
                                std::to_string(m_layout.tokens) + "-token prefixes prepared in " +
                                m_dir);
    m_requests = m_options.requests > 0 ? m_options.requests : m_layout.prefixes;
    if (m_options.requests < 0 || m_options.tokens < 0)
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "kv-restore requests and tokens must not be negative");
    // Every chunk read is planned up front (a path each): bounded before anything is
    // allocated, so 2e9 requests are a clear refusal, not an exhausted memory.
    constexpr std::int64_t kMaxReads = 4'000'000;
    const std::int64_t reads =
        std::int64_t{m_requests} *
        ((std::int64_t{m_tokens} + m_layout.chunkTokens - 1) / m_layout.chunkTokens);
    if (reads > kMaxReads)
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "kv-restore of " + std::to_string(m_requests) + " requests plans " +
                                std::to_string(reads) + " chunk reads; the limit is " +
                                std::to_string(kMaxReads) + ": use fewer requests");
}

IoJob KvRestoreWorkload::job(const std::atomic<bool>* cancel) const {
    const int chunks = (m_tokens + m_layout.chunkTokens - 1) / m_layout.chunkTokens;
    const std::uint64_t chunkFile = StorageDataset::alignUp(m_layout.chunkBytes());
    IoJob job;
    for (int r = 0; r < m_requests; ++r) {
        if (cancel && r % 1024 == 0 && cancel->load())
            break;
        std::vector<FileSpan> stream;
        for (int c = 0; c < chunks; ++c)
            stream.push_back(
                {m_dir + "/" + StorageDataset::kvChunkName(r % m_layout.prefixes, c), chunkFile});
        job.streams.push_back(std::move(stream));
    }
    job.concurrency = m_options.concurrency;
    job.depth = m_options.depth;
    job.blockSize = m_options.blockSize;
    job.direct = m_options.direct;
    return job;
}

nlohmann::json KvRestoreWorkload::params() const {
    return {{"path", m_dir},
            {"concurrency", m_options.concurrency},
            {"requests", m_requests},
            {"tokens", m_tokens},
            {"queue_depth", m_options.depth},
            {"block_size", m_options.blockSize},
            {"direct", m_options.direct},
            {"layout", m_layout.toJson()}};
}

nlohmann::json KvRestoreWorkload::summarize(const IoRunner::Result& result) const {
    nlohmann::json s = WorkloadSummary::common("kv-restore", result);
    const auto restore = WorkloadSummary::distribution(result.streamSeconds);
    const int chunks = (m_tokens + m_layout.chunkTokens - 1) / m_layout.chunkTokens;
    s["requests"] = m_requests;
    s["concurrency"] = m_options.concurrency;
    s["tokens_per_request"] = m_tokens;
    s["chunks_per_request"] = chunks;
    s["bytes_per_request"] = StorageDataset::alignUp(m_layout.chunkBytes()) * chunks;
    s["geometry"] = m_layout.geometry.name;
    s["bytes_per_token"] = m_layout.geometry.bytesPerToken();
    s["restore_seconds"] = restore;
    if (!restore.empty()) {
        s["ttft_io_component_p50_s"] = restore["p50"];
        s["ttft_io_component_p99_s"] = restore["p99"];
    }
    if (m_requests > m_layout.prefixes)
        s["reuse_note"] = "more requests than prepared prefixes: some prefixes were read again";
    return s;
}

} // namespace tierscope
