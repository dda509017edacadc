#include "workloads/DatasetRequest.h"

#include "core/util/UnitFormat.h"

namespace tierscope {

nlohmann::json DatasetRequest::wanted() const {
    return workload == "model-load" ? StorageDataset::modelLoadDataset(totalBytes, files)
                                    : layout.toJson();
}

bool DatasetRequest::readyIn(const StorageManifest& manifest) const {
    return StorageDataset::ready(manifest, workload, wanted());
}

IoJob DatasetRequest::prepare(StorageManifest& manifest) const {
    return workload == "model-load" ? StorageDataset::prepareModelLoad(manifest, totalBytes, files)
                                    : StorageDataset::prepareKvRestore(manifest, layout);
}

std::string DatasetRequest::describe() const {
    if (workload == "model-load")
        return "model-load data, " + std::to_string(files) + " shards";
    return "KV chunks, " + std::to_string(layout.prefixes) + " prefixes of " +
           std::to_string(layout.tokens) + " tokens (" + layout.geometry.name + ", " +
           UnitFormat::bytes(static_cast<double>(layout.chunkBytes())) + " per chunk)";
}

} // namespace tierscope
