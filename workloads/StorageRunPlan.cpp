#include "workloads/StorageRunPlan.h"

#include "workloads/CheckpointSaveWorkload.h"
#include "workloads/KvRestoreWorkload.h"
#include "workloads/ModelLoadWorkload.h"
#include "workloads/StorageManifest.h"
#include "workloads/WorkloadError.h"

#include <memory>

namespace tierscope {

StorageRunPlan StorageRunPlan::make(const Spec& s, StorageManifest& manifest) {
    StorageRunPlan p;
    if (s.kind == "model-load") {
        auto w = std::make_shared<ModelLoadWorkload>(
            ModelLoadWorkload::Options{s.path, s.parallel, s.depth, s.blockSize, s.direct});
        p.job = w->job();
        p.params = w->params();
        p.summarize = [w, job = p.job](const auto& r, const auto*) { return w->summarize(job, r); };
    } else if (s.kind == "kv-restore") {
        auto w = std::make_shared<KvRestoreWorkload>(
            KvRestoreWorkload::Options{s.path, s.concurrency, s.requests, s.tokens, s.depth,
                                       s.blockSize, s.direct},
            manifest);
        p.job = w->job(s.cancel);
        p.params = w->params();
        p.summarize = [w](const auto& r, const auto*) { return w->summarize(r); };
    } else if (s.kind == "checkpoint-save") {
        auto w = std::make_shared<CheckpointSaveWorkload>(CheckpointSaveWorkload::Options{
            s.path, s.size, s.files, s.parallel, s.depth, s.blockSize, s.direct, s.preallocate});
        p.job = w->saveJob(manifest);
        if (s.restore)
            p.restore = w->restoreJob(p.job);
        p.params = w->params();
        p.summarize = [w](const auto& r, const auto* restore) { return w->summarize(r, restore); };
    } else {
        throw WorkloadError(WorkloadError::Kind::Refused, "no storage workload \"" + s.kind +
                                                              "\"; workloads: model-load, "
                                                              "kv-restore, checkpoint-save");
    }
    return p;
}

} // namespace tierscope
