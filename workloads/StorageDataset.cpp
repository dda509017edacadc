#include "workloads/StorageDataset.h"

#include "workloads/DataFileName.h"
#include "workloads/SpaceCheck.h"
#include "workloads/WorkloadError.h"

namespace tierscope {

namespace {

std::string baseName(const std::string& path) {
    return path.substr(path.find_last_of('/') + 1);
}

IoJob writeJob(std::vector<FileSpan> files) {
    IoJob job;
    for (auto& f : files)
        job.streams.push_back({std::move(f)});
    job.write = true;
    job.create = false;       // claim() created them, and the runner checks each one's inode
    job.fsyncEachFile = true; // prepared data must be on the device, not in the page cache
    job.preallocate = true;
    job.concurrency = 4;
    job.depth = 8;
    return job;
}

} // namespace

std::uint64_t StorageDataset::KvLayout::chunkBytes() const {
    return geometry.chunkBytes(chunkTokens);
}

std::uint64_t StorageDataset::KvLayout::totalBytes() const {
    return alignUp(chunkBytes()) * static_cast<std::uint64_t>(chunksPerPrefix()) * prefixes;
}

nlohmann::json StorageDataset::KvLayout::toJson() const {
    return {{"geometry",
             {{"name", geometry.name},
              {"layers", geometry.layers},
              {"kv_heads", geometry.kvHeads},
              {"head_dim", geometry.headDim},
              {"dtype_bytes", geometry.dtypeBytes},
              {"mla_latent_dim", geometry.mlaLatentDim},
              {"bytes_per_token", geometry.bytesPerToken()}}},
            {"chunk_tokens", chunkTokens},
            {"tokens", tokens},
            {"prefixes", prefixes},
            {"chunk_bytes", chunkBytes()}};
}

std::string StorageDataset::KvLayout::problem() const {
    if (std::string g = geometry.problem(); !g.empty())
        return "KV geometry: " + g;
    if (chunkTokens <= 0 || tokens <= 0 || prefixes <= 0)
        return "kv-restore needs chunk tokens, tokens and prefixes > 0";
    // One file per chunk of each prefix: a million files is past any cache a test restores,
    // and the bound keeps every size below in 64 bits.
    constexpr std::int64_t kMaxChunkFiles = 1'000'000;
    constexpr std::uint64_t kMaxChunkBytes = 1ull << 32;
    const std::int64_t files = static_cast<std::int64_t>(chunksPerPrefix()) * prefixes;
    if (files > kMaxChunkFiles)
        return "kv-restore would create " + std::to_string(files) + " chunk files (" +
               std::to_string(prefixes) + " prefixes of " + std::to_string(chunksPerPrefix()) +
               "); the limit is " + std::to_string(kMaxChunkFiles) +
               ": use fewer prefixes or more tokens per chunk";
    if (geometry.bytesPerToken() > kMaxChunkBytes / static_cast<std::uint64_t>(chunkTokens))
        return "a kv-restore chunk of " + std::to_string(chunkTokens) + " tokens at " +
               std::to_string(geometry.bytesPerToken()) +
               " bytes per token is over the 4 GiB limit: use fewer tokens per chunk";
    return {};
}

StorageDataset::KvLayout StorageDataset::KvLayout::fromJson(const nlohmann::json& j) {
    KvLayout l;
    try {
        const auto& g = j.at("geometry");
        l.geometry.name = g.at("name").get<std::string>();
        l.geometry.layers = g.at("layers").get<int>();
        l.geometry.kvHeads = g.at("kv_heads").get<int>();
        l.geometry.headDim = g.at("head_dim").get<int>();
        l.geometry.dtypeBytes = g.at("dtype_bytes").get<int>();
        l.geometry.mlaLatentDim = g.at("mla_latent_dim").get<int>();
        l.chunkTokens = j.at("chunk_tokens").get<int>();
        l.tokens = j.at("tokens").get<int>();
        l.prefixes = j.at("prefixes").get<int>();
    } catch (const nlohmann::json::exception& e) {
        throw WorkloadError(WorkloadError::Kind::Refused,
                            std::string("the kv-restore entry of the manifest is damaged: ") +
                                e.what());
    }
    // A manifest is data tierscope wrote, but not necessarily what it reads now: a zero chunk
    // size divides by zero, a negative token count restores nothing in 0.0 s and calls it a
    // run. Validated as a preparation is, or refused.
    if (const std::string problem = l.problem(); !problem.empty())
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "the kv-restore entry of the manifest is damaged: " + problem +
                                ": prepare the data again");
    return l;
}

std::string StorageDataset::shardName(int index, int count) {
    return DataFileName::shard(index, count);
}

std::string StorageDataset::kvChunkName(int prefix, int chunk) {
    return DataFileName::kvChunk(prefix, chunk);
}

std::string StorageDataset::checkpointName(int index, int count) {
    return DataFileName::checkpoint(index, count);
}

void StorageDataset::claim(StorageManifest& manifest, std::vector<FileSpan>& files) {
    std::uint64_t bytes = 0;
    for (const auto& f : files) {
        manifest.requireWritable(baseName(f.path));
        bytes += f.size;
    }
    for (const auto& f : files)
        if (manifest.owns(baseName(f.path)))
            if (const auto refusal = manifest.removeOwned(baseName(f.path))) {
                manifest.save();
                throw WorkloadError(WorkloadError::Kind::Refused, *refusal);
            }
    SpaceCheck::require(manifest.dir(), bytes);
    // Names first, so that a crash while creating leaves no file the manifest does not name;
    // then the files, each with its inode, which is what lets a later clean delete it.
    for (const auto& f : files)
        manifest.add(baseName(f.path), f.size);
    manifest.save();
    try {
        for (auto& f : files)
            f.inode = manifest.create(baseName(f.path));
    } catch (...) {
        manifest.save();
        throw;
    }
    manifest.save();
}

IoJob StorageDataset::prepareModelLoad(StorageManifest& manifest, std::uint64_t totalBytes,
                                       int files) {
    if (files <= 0 || totalBytes == 0)
        throw WorkloadError(WorkloadError::Kind::Refused, "model-load needs a size and files > 0");
    remove(manifest, "model-load");
    const std::uint64_t each = alignUp((totalBytes + files - 1) / files);
    std::vector<FileSpan> spans;
    for (int i = 0; i < files; ++i)
        spans.push_back({manifest.pathOf(shardName(i, files)), each});
    claim(manifest, spans);
    manifest.dataset("model-load") = modelLoadDataset(totalBytes, files);
    manifest.dataset("model-load")["complete"] = false;
    manifest.save();
    return writeJob(std::move(spans));
}

nlohmann::json StorageDataset::modelLoadDataset(std::uint64_t totalBytes, int files) {
    return {{"files", files}, {"file_bytes", alignUp((totalBytes + files - 1) / files)}};
}

void StorageDataset::markComplete(StorageManifest& manifest, const std::string& workload) {
    if (!manifest.findDataset(workload))
        return;
    manifest.dataset(workload)["complete"] = true;
    manifest.save();
}

bool StorageDataset::ready(const StorageManifest& manifest, const std::string& workload,
                           const nlohmann::json& wanted) {
    const nlohmann::json* d = manifest.findDataset(workload);
    if (!d || !d->is_object() || d->value("complete", false) != true)
        return false;
    for (const auto& [key, value] : wanted.items())
        if (!d->contains(key) || d->at(key) != value)
            return false;
    return true;
}

const nlohmann::json& StorageDataset::completeDataset(const StorageManifest& manifest,
                                                      const std::string& workload) {
    const nlohmann::json* d = manifest.findDataset(workload);
    const std::string prepare =
        " (run `tierscope storage prepare " + workload + " --path " + manifest.dir() + "`";
    if (!d)
        throw WorkloadError(WorkloadError::Kind::NotFound, "no " + workload + " data prepared in " +
                                                               manifest.dir() + prepare +
                                                               " first)");
    if (!d->is_object() || d->value("complete", false) != true)
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "the " + workload + " data in " + manifest.dir() +
                                " was never completely written (an interrupted preparation, "
                                "or one by an older tierscope): its unwritten parts would read "
                                "as zeros without touching the device" +
                                prepare + " again)");
    return *d;
}

IoJob StorageDataset::prepareKvRestore(StorageManifest& manifest, const KvLayout& layout) {
    if (const std::string problem = layout.problem(); !problem.empty())
        throw WorkloadError(WorkloadError::Kind::Refused, problem);
    remove(manifest, "kv-restore");
    std::vector<FileSpan> spans;
    for (int p = 0; p < layout.prefixes; ++p)
        for (int c = 0; c < layout.chunksPerPrefix(); ++c)
            spans.push_back({manifest.pathOf(kvChunkName(p, c)), alignUp(layout.chunkBytes())});
    claim(manifest, spans);
    manifest.dataset("kv-restore") = layout.toJson();
    manifest.dataset("kv-restore")["complete"] = false;
    manifest.save();
    return writeJob(std::move(spans));
}

int StorageDataset::remove(StorageManifest& manifest, const std::string& workload,
                           std::vector<std::string>* refusals) {
    std::vector<std::string> names;
    for (const auto& [name, entry] : manifest.files())
        if (workload.empty() || DataFileName::workloadOf(name) == workload)
            names.push_back(name);
    int removed = 0;
    std::vector<std::string> refused;
    for (const auto& name : names) {
        if (auto refusal = manifest.removeOwned(name))
            refused.push_back(std::move(*refusal));
        else
            ++removed;
    }
    if (workload.empty()) {
        for (const char* w : {"model-load", "kv-restore", "checkpoint-save"})
            manifest.dropDataset(w);
    } else {
        manifest.dropDataset(workload);
    }
    manifest.save();
    if (refusals) {
        refusals->insert(refusals->end(), refused.begin(), refused.end());
    } else if (!refused.empty()) {
        std::string text = refused.front();
        if (refused.size() > 1)
            text += " (and " + std::to_string(refused.size() - 1) + " more)";
        throw WorkloadError(WorkloadError::Kind::Refused, text);
    }
    return removed;
}

} // namespace tierscope
