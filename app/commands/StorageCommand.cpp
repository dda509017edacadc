#include "app/commands/StorageCommand.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "app/common/RemoteJob.h"
#include "app/common/TargetOption.h"
#include "app/common/TerminalOutput.h"
#include "core/report/ReportFile.h"
#include "core/store/Store.h"
#include "core/util/DurationParser.h"
#include "core/util/SizeParser.h"
#include "core/util/UnitFormat.h"
#include "core/util/WallClock.h"
#include "experiments/RecordedStorageRun.h"
#include "workloads/BandwidthSampler.h"
#include "workloads/DatasetRequest.h"
#include "workloads/KvGeometry.h"
#include "workloads/StorageDataset.h"
#include "workloads/StorageManifest.h"
#include "workloads/StorageProbe.h"
#include "workloads/StorageRunPlan.h"
#include "workloads/WorkloadError.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace tierscope {

namespace {

int exitCodeFor(const WorkloadError& e) {
    switch (e.kind()) {
    case WorkloadError::Kind::NotFound:
        return kExitNotFound;
    case WorkloadError::Kind::Permission:
        return kExitCannotWrite;
    case WorkloadError::Kind::NoSpace:
        return kExitNoSpace;
    case WorkloadError::Kind::Refused:
        return kExitRefused;
    case WorkloadError::Kind::Io:
        break;
    }
    return kExitStorageIo;
}

std::uint32_t blockSizeOf(const StorageCommand::Options& o) {
    const auto size = SizeParser::parse(o.blockSize);
    if (!size || *size < 4096 || *size % 4096 != 0 || *size > (256u << 20))
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "--block-size must be a multiple of 4 KiB up to 256 MiB");
    return static_cast<std::uint32_t>(*size);
}

std::uint64_t totalSizeOf(const StorageCommand::Options& o) {
    const auto size = SizeParser::parse(o.size);
    if (!size || *size == 0)
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "--size must be a size such as 8GiB, 500MB or 1T");
    return *size;
}

// The kernel drops only clean pages, so dirty data is written back first.
void dropCaches() {
    if (geteuid() != 0)
        throw WorkloadError(WorkloadError::Kind::Permission,
                            "--drop-caches needs root: it writes /proc/sys/vm/drop_caches");
    sync();
    const int fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write(fd, "3\n", 2) != 2) {
        const int error = errno;
        if (fd >= 0)
            close(fd);
        throw WorkloadError::fromErrno(error, "cannot drop caches through",
                                       "/proc/sys/vm/drop_caches");
    }
    close(fd);
}

class ProgressLine {
  public:
    ProgressLine(std::string what, bool quiet)
        : m_what(std::move(what)), m_tty(!quiet && isatty(STDERR_FILENO)), m_quiet(quiet),
          m_start(std::chrono::steady_clock::now()), m_lastLine(m_start) {}

    void update(const BandwidthSampler::Rates& r) {
        if (m_quiet)
            return;
        const double elapsed = std::chrono::duration<double>(r.at - m_start).count();
        // Without a terminal, one line every 10 s keeps logs readable.
        if (!m_tty && r.at - m_lastLine < std::chrono::seconds(10))
            return;
        m_lastLine = r.at;
        std::fprintf(stderr, "%s%s: %s read, %s written, %s/s, %s   %s", m_tty ? "\r" : "",
                     m_what.c_str(), UnitFormat::bytes(static_cast<double>(r.bytesRead)).c_str(),
                     UnitFormat::bytes(static_cast<double>(r.bytesWritten)).c_str(),
                     UnitFormat::bytes(r.readBytesPerS + r.writeBytesPerS).c_str(),
                     UnitFormat::seconds(elapsed).c_str(), m_tty ? "" : "\n");
        std::fflush(stderr);
    }
    void finish() const {
        if (m_tty)
            std::fputs("\n", stderr);
    }

  private:
    std::string m_what;
    bool m_tty;
    bool m_quiet;
    std::chrono::steady_clock::time_point m_start;
    std::chrono::steady_clock::time_point m_lastLine;
};

using RatesCallback = std::function<void(const BandwidthSampler::Rates&)>;

IoRunner::Result execute(const IoJob& job, const std::string& what, bool quiet,
                         const RatesCallback& onRates = {}) {
    IoRunner runner(job);
    ProgressLine progress(what, quiet);
    BandwidthSampler sampler(runner, std::chrono::milliseconds(100), [&](const auto& r) {
        if (onRates)
            onRates(r);
        progress.update(r);
    });
    IoRunner::Result result;
    try {
        result = runner.run(&CancelOnSignal::flag());
    } catch (...) {
        sampler.stop();
        progress.finish();
        throw;
    }
    sampler.stop();
    progress.finish();
    return result;
}

KvGeometry geometryOf(const StorageCommand::Options& o) {
    if (!o.geometry.empty() && o.geometry != "custom")
        return KvGeometry::preset(o.geometry);
    KvGeometry g;
    g.name = "custom";
    g.source = "command line";
    g.layers = o.layers;
    g.kvHeads = o.kvHeads;
    g.headDim = o.headDim;
    g.dtypeBytes = o.dtypeBytes;
    g.mlaLatentDim = o.mlaLatentDim;
    if (const std::string problem = g.problem(); !problem.empty())
        throw WorkloadError(WorkloadError::Kind::Refused,
                            "give --geometry PRESET, or --layers with --kv-heads and --head-dim "
                            "(or --mla-latent-dim): " +
                                problem);
    return g;
}

int prepare(const StorageCommand::Options& o) {
    StorageManifest manifest = StorageManifest::load(o.path);
    DatasetRequest dataset;
    dataset.workload = o.workload;
    if (o.workload == "model-load") {
        dataset.files = o.files > 0 ? o.files : 4;
        dataset.totalBytes = totalSizeOf(o);
    } else {
        dataset.layout.geometry = geometryOf(o);
        dataset.layout.chunkTokens = o.chunkTokens;
        dataset.layout.tokens = o.tokens > 0 ? o.tokens : 4096;
        dataset.layout.prefixes = o.prefixes;
    }
    IoJob job = dataset.prepare(manifest);
    const std::string what = dataset.describe();
    job.direct = !o.buffered;
    const auto result = execute(job, "preparing " + what, o.quiet);
    if (result.cancelled) {
        std::cerr << "tierscope storage: prepare interrupted; run it again to finish\n";
        return kExitFailure;
    }
    // Every byte written and synced: only now may a run read the data.
    StorageDataset::markComplete(manifest, o.workload);
    std::printf(
        "prepared %s in %s: %s written in %s (%s/s)\n", what.c_str(), o.path.c_str(),
        UnitFormat::bytes(static_cast<double>(result.bytesWritten)).c_str(),
        UnitFormat::seconds(result.seconds).c_str(),
        UnitFormat::bytes(static_cast<double>(result.bytesWritten) / result.seconds).c_str());
    return kExitOk;
}

std::string rate(double bytes, double seconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f GB/s", seconds > 0 ? bytes / seconds / 1e9 : 0.0);
    return text;
}

std::string cacheNote(const nlohmann::json& s) {
    return s.value("page_cache_bypassed", false) ? "O_DIRECT, page cache bypassed"
                                                 : s.value("note", std::string());
}

void printDistribution(const char* title, const nlohmann::json& d) {
    if (d.empty())
        return;
    std::printf("  %s: p50 %s, p90 %s, p99 %s, max %s\n", title,
                UnitFormat::seconds(d["p50"].get<double>()).c_str(),
                UnitFormat::seconds(d["p90"].get<double>()).c_str(),
                UnitFormat::seconds(d["p99"].get<double>()).c_str(),
                UnitFormat::seconds(d["max"].get<double>()).c_str());
}

void printSummary(const nlohmann::json& s, const std::string& path) {
    const std::string w = s["workload"];
    const double secs = s["seconds"];
    const double read = s["bytes_read"].get<double>();
    const double written = s["bytes_written"].get<double>();
    if (w == "model-load") {
        std::printf("model-load of %s: %d files, %s in %s = %s (%s)\n", path.c_str(),
                    s["files"].get<int>(), UnitFormat::bytes(read).c_str(),
                    UnitFormat::seconds(secs).c_str(), rate(read, secs).c_str(),
                    cacheNote(s).c_str());
        printDistribution("time per file", s["file_seconds"]);
    } else if (w == "kv-restore") {
        std::printf("kv-restore from %s: %d requests x %d tokens (%s, %s/token, %s per request), "
                    "concurrency %d\n",
                    path.c_str(), s["requests"].get<int>(), s["tokens_per_request"].get<int>(),
                    s["geometry"].get<std::string>().c_str(),
                    UnitFormat::bytes(s["bytes_per_token"].get<double>()).c_str(),
                    UnitFormat::bytes(s["bytes_per_request"].get<double>()).c_str(),
                    s["concurrency"].get<int>());
        std::printf("  %s read in %s = %s aggregate (%s)\n", UnitFormat::bytes(read).c_str(),
                    UnitFormat::seconds(secs).c_str(), rate(read, secs).c_str(),
                    cacheNote(s).c_str());
        printDistribution("restore per request (the TTFT I/O component)", s["restore_seconds"]);
    } else {
        std::printf("checkpoint-save to %s: %d files, %s in %s = %s including fsync (%s)\n",
                    path.c_str(), s["files"].get<int>(), UnitFormat::bytes(written).c_str(),
                    UnitFormat::seconds(secs).c_str(), rate(written, secs).c_str(),
                    cacheNote(s).c_str());
        printDistribution("time per file", s["file_seconds"]);
        if (s.contains("restore")) {
            const auto& r = s["restore"];
            const double rs = r["seconds"];
            const double rb = r["bytes_read"].get<double>();
            std::printf("checkpoint restore: %s in %s = %s (%s)\n", UnitFormat::bytes(rb).c_str(),
                        UnitFormat::seconds(rs).c_str(), rate(rb, rs).c_str(),
                        cacheNote(r).c_str());
        }
    }
}

// Files the manifest lists that tierscope cannot prove it created: left alone, and said so.
bool reportRefusals(const std::vector<std::string>& refusals) {
    for (const auto& r : refusals)
        std::cerr << "tierscope storage: " << TerminalOutput::shown(STDERR_FILENO, r) << "\n";
    return !refusals.empty();
}

StorageRunPlan plan(const StorageCommand::Options& o, StorageManifest& manifest) {
    StorageRunPlan::Spec spec;
    spec.kind = o.workload;
    spec.path = o.path;
    spec.depth = o.depth;
    spec.blockSize = blockSizeOf(o);
    spec.direct = !o.buffered;
    spec.concurrency = o.concurrency;
    spec.requests = o.requests;
    spec.tokens = o.tokens;
    spec.size = totalSizeOf(o);
    spec.files = o.files > 0 ? o.files : 8;
    spec.parallel = o.parallel > 0 ? o.parallel : o.workload == "checkpoint-save" ? spec.files : 4;
    spec.preallocate = o.preallocate;
    spec.restore = o.restore;
    spec.cancel = &CancelOnSignal::flag();
    StorageRunPlan p = StorageRunPlan::make(spec, manifest);
    p.params["workload"] = o.workload;
    return p;
}

int runWorkload(const GlobalOptions& global, const StorageCommand::Options& o) {
    // Runs that only read a data set share the directory; a checkpoint writes into it.
    StorageManifest manifest = StorageManifest::load(o.path, o.workload == "checkpoint-save"
                                                                 ? StorageManifest::Access::Write
                                                                 : StorageManifest::Access::Read);
    StorageRunPlan p = plan(o, manifest);
    if (CancelOnSignal::flag().load()) {
        std::cerr << "tierscope storage run: cancelled while planning, before any I/O; nothing "
                     "recorded\n";
        return kExitFailure;
    }
    if (o.dropCaches)
        dropCaches();
    RecordedStorageRun recorded(global.dbPath(), o.workload, o.path,
                                o.label.empty() ? "storage " + o.workload : o.label,
                                o.storageProfile, p.params);
    std::optional<IoRunner::Result> restored;
    IoRunner::Result result;
    try {
        result = execute(p.job, o.workload, o.quiet, recorded.sampler(p.job.write));
        if (p.restore && !result.cancelled) {
            if (o.dropCaches)
                dropCaches();
            restored = execute(*p.restore, "checkpoint restore", o.quiet, recorded.sampler(false));
        }
    } catch (const WorkloadError& e) {
        recorded.finish("failed", {{"error", e.what()}});
        std::vector<std::string> refusals;
        if (o.workload == "checkpoint-save" && !o.keep) // a half-written checkpoint is no data set
            StorageDataset::remove(manifest, "checkpoint-save", &refusals);
        reportRefusals(refusals);
        throw;
    }
    const auto summary = p.summarize(result, restored ? &*restored : nullptr);
    const bool cancelled = result.cancelled || (restored && restored->cancelled);
    const auto failure = recorded.finish(cancelled ? "cancelled" : "completed", summary);
    std::vector<std::string> refusals;
    if (o.workload == "checkpoint-save" && !o.keep)
        StorageDataset::remove(manifest, "checkpoint-save", &refusals);
    printSummary(summary, o.path);
    // The workload's own figures are sound whether or not the workspace took them: the JSON is
    // written in both cases (on another disk, it survives a full workspace).
    bool jsonWritten = true;
    if (!o.json.empty()) {
        try {
            ReportFile::write(o.json, summary.dump(2) + "\n");
        } catch (const std::runtime_error& e) {
            std::cerr << "tierscope storage: " << e.what() << "\n";
            jsonWritten = false;
        }
    }
    if (failure) {
        std::cerr << "tierscope storage: recording into " << recorded.db() << " failed, session "
                  << recorded.session() << " run " << recorded.run()
                  << " are incomplete (the figures above are the workload's own): "
                  << failure->what() << "\n";
        reportRefusals(refusals);
        return failure->exitCode();
    }
    std::printf("stored as session %lld, run %lld in %s\n",
                static_cast<long long>(recorded.session()), static_cast<long long>(recorded.run()),
                recorded.db().c_str());
    if (!jsonWritten)
        return kExitCannotWrite;
    if (reportRefusals(refusals))
        return kExitRefused;
    return cancelled ? kExitFailure : kExitOk;
}

int clean(const StorageCommand::Options& o) {
    StorageManifest manifest = StorageManifest::load(o.path);
    std::vector<std::string> refusals;
    const int removed = StorageDataset::remove(manifest, o.workload, &refusals);
    if (o.workload.empty() && manifest.files().empty())
        manifest.removeManifestFile();
    std::printf("removed %d file%s tierscope had created in %s\n", removed, removed == 1 ? "" : "s",
                o.path.c_str());
    return reportRefusals(refusals) ? kExitRefused : kExitOk;
}

int geometries() {
    std::printf("%-24s %8s %12s  %s\n", "preset", "layers", "bytes/token", "source");
    for (const auto& g : KvGeometry::builtinPresets())
        std::printf("%-24s %8d %12llu  %s\n", g.name.c_str(), g.layers,
                    static_cast<unsigned long long>(g.bytesPerToken()), g.source.c_str());
    return kExitOk;
}

void addRunShape(CLI::App* cmd, StorageCommand::Options& o) {
    cmd->add_option("--queue-depth", o.depth, "Reads or writes in flight per file or request")
        ->capture_default_str()
        ->check(CLI::Range(1, 1024));
    cmd->add_option("--block-size", o.blockSize, "Size of each read or write (4KiB..256MiB)")
        ->capture_default_str();
    cmd->add_flag("--buffered", o.buffered,
                  "Use the page cache instead of O_DIRECT (results are marked as such)");
}

std::string thisHost() {
    char buffer[256] = {};
    if (gethostname(buffer, sizeof buffer - 1) != 0)
        return "unknown"; // as the recorder names it, so probes and recordings match
    return buffer;
}

// Measures the device behind --path and stores its ceilings in the workspace, as a session of
// its own with one "storage-probe" device record; the analysis uses the latest per device.
int probe(const GlobalOptions& global, const StorageCommand::Options& o) {
    const auto size = SizeParser::parse(o.probeSize);
    const auto duration = DurationParser::parse(o.probeDuration);
    if (!size || *size < (1u << 20) || !duration || *duration < std::chrono::seconds(1)) {
        std::cerr << "tierscope storage probe: --size takes a size of at least 1MiB and "
                     "--duration a duration of at least 1s\n";
        return kExitUsage;
    }
    const std::string dir = std::filesystem::absolute(o.path).lexically_normal().string();
    const std::int64_t start = WallClock().nowNs();
    StorageProbe::Options po;
    po.dir = dir;
    po.sizeBytes = *size;
    po.duration = std::chrono::duration_cast<std::chrono::milliseconds>(*duration);
    const auto r = StorageProbe::run(po, &CancelOnSignal::flag());
    if (CancelOnSignal::flag().load()) {
        std::cerr << "tierscope storage probe: cancelled, nothing stored\n";
        return kExitFailure;
    }
    const std::string name = StorageProbe::storageName(r, dir);
    const nlohmann::json attrs = {{"dir", dir},
                                  {"device", r.device},
                                  {"serial", r.serial},
                                  {"subsysnqn", r.subsysNqn},
                                  {"nsid", r.nsid},
                                  {"transport", r.transport},
                                  {"read_bytes_per_s", r.readBytesPerS},
                                  {"write_bytes_per_s", r.writeBytesPerS},
                                  {"random_read_iops", r.randomReadIops},
                                  {"unloaded_read_s", r.unloadedReadS},
                                  {"direct", r.direct},
                                  {"size_bytes", *size},
                                  {"probed_ns", start}};
    Store store(global.dbPath(), Store::Mode::ReadWrite);
    SessionInfo info;
    info.label = "storage probe " + dir;
    info.storageProfile = o.storageProfile;
    info.host = thisHost();
    info.startNs = start;
    const auto session = store.createSession(info);
    store.addDevices(session, {{"storage-probe", name, attrs.dump()}});
    store.finishSession(session, WallClock().nowNs());
    std::printf("storage probe of %s: %s%s%s\n", dir.c_str(), name.c_str(),
                r.serial.empty() ? "" : (" serial " + r.serial).c_str(),
                r.direct ? "" : " (page cache: the filesystem refused O_DIRECT)");
    if (!r.subsysNqn.empty()) // the identity that survives a reconnect's new kernel name
        std::printf("  NVMe subsystem %s, namespace %s, transport %s\n", r.subsysNqn.c_str(),
                    r.nsid.c_str(), r.transport.empty() ? "unknown" : r.transport.c_str());
    std::printf("  sequential write 1 MiB QD 32  %s\n",
                UnitFormat::bytesPerSecond(r.writeBytesPerS).c_str());
    std::printf("  sequential read  1 MiB QD 32  %s\n",
                UnitFormat::bytesPerSecond(r.readBytesPerS).c_str());
    std::printf("  random read 4 KiB QD 64       %.0f IOPS\n", r.randomReadIops);
    std::printf("  random read 4 KiB QD 1        %.1f us (unloaded latency)\n",
                r.unloadedReadS * 1e6);
    std::printf("stored as session %lld: analyze and compare judge %s against these ceilings\n",
                static_cast<long long>(session), name.c_str());
    return kExitOk;
}

} // namespace

CLI::App* StorageCommand::attach(CLI::App& parent, Options& o) {
    auto* storage = parent.add_subcommand(
        "storage", "Storage workloads that reproduce AI I/O: model load, KV-cache restore, "
                   "checkpoint save (io_uring, O_DIRECT)");
    storage->require_subcommand(1);
    const auto workloads = CLI::IsMember({"model-load", "kv-restore", "checkpoint-save"});

    auto* prep = storage->add_subcommand(
        "prepare", "Write the data model-load or kv-restore reads: random bytes, never sparse");
    prep->add_option("workload", o.workload, "model-load or kv-restore")
        ->required()
        ->check(CLI::IsMember({"model-load", "kv-restore"}));
    prep->add_option("--path", o.path, "Target directory (must exist)")->required();
    prep->add_option("--size", o.size, "model-load: total size, e.g. 8GiB or 70GB")
        ->capture_default_str();
    prep->add_option("--files", o.files, "model-load: number of shards (default 4)")
        ->check(CLI::Range(1, 100000));
    prep->add_option("--geometry", o.geometry,
                     "kv-restore: model preset (see `storage geometries`) or custom");
    prep->add_option("--layers", o.layers, "custom geometry: layers");
    prep->add_option("--kv-heads", o.kvHeads, "custom geometry: KV heads");
    prep->add_option("--head-dim", o.headDim, "custom geometry: head dimension");
    prep->add_option("--dtype-bytes", o.dtypeBytes, "custom geometry: bytes per KV element")
        ->capture_default_str();
    prep->add_option("--mla-latent-dim", o.mlaLatentDim,
                     "custom geometry: MLA latent size (kv_lora_rank + qk_rope_head_dim)");
    prep->add_option("--tokens", o.tokens, "kv-restore: tokens per cached prefix (default 4096)")
        ->check(CLI::PositiveNumber);
    prep->add_option("--prefixes", o.prefixes, "kv-restore: distinct cached prefixes")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    prep->add_option("--chunk-tokens", o.chunkTokens, "kv-restore: tokens per chunk file")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    prep->add_flag("--buffered", o.buffered, "Write through the page cache instead of O_DIRECT");
    prep->add_flag("-q,--quiet", o.quiet, "No progress line");
    prep->callback([&o] { o.action = "prepare"; });

    auto* run = storage->add_subcommand(
        "run", "Run one workload on a directory and record it as a run with 100 ms bandwidth "
               "samples beside the machine's block, host and GPU metrics");
    run->add_option("workload", o.workload, "model-load, kv-restore or checkpoint-save")
        ->required()
        ->check(workloads);
    run->add_option("--path", o.path, "Target directory")->required();
    run->add_option("--parallel", o.parallel,
                    "model-load: files read at once (default 4); checkpoint-save: files written "
                    "at once (default all)")
        ->check(CLI::PositiveNumber);
    run->add_option("--concurrency", o.concurrency, "kv-restore: requests restoring at once")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    run->add_option("--requests", o.requests, "kv-restore: requests in all (default: prefixes)")
        ->check(CLI::PositiveNumber);
    run->add_option("--tokens", o.tokens, "kv-restore: prefix tokens per request (default: all)")
        ->check(CLI::PositiveNumber);
    run->add_option("--size", o.size, "checkpoint-save: checkpoint size")->capture_default_str();
    run->add_option("--files", o.files, "checkpoint-save: number of files (default 8)")
        ->check(CLI::Range(1, 100000));
    run->add_flag("--restore", o.restore, "checkpoint-save: read the checkpoint back afterwards");
    run->add_flag("--keep", o.keep, "checkpoint-save: keep the files (default: removed)");
    run->add_flag("--preallocate", o.preallocate,
                  "checkpoint-save: fallocate each file before writing it (torch.save does not)");
    addRunShape(run, o);
    run->add_flag("--drop-caches", o.dropCaches, "Drop the page cache before the run (root)");
    run->add_option("--label", o.label, "Session label");
    run->add_option("--storage-profile", o.storageProfile,
                    "Storage configuration under test, e.g. local-nvme or nvmeof-rdma");
    run->add_option("--json", o.json, "Also write the result as JSON to this file");
    run->add_flag("-q,--quiet", o.quiet, "No progress line");
    run->add_option("--target", o.target, TargetOption::kHelp);
    run->callback([&o] { o.action = "run"; });

    auto* cleanCmd = storage->add_subcommand(
        "clean", "Delete the files tierscope created in a directory (and nothing else)");
    cleanCmd->add_option("--path", o.path, "Target directory")->required();
    cleanCmd->add_option("--workload", o.workload, "Only this workload's files")->check(workloads);
    cleanCmd->callback([&o] { o.action = "clean"; });

    auto* probeCmd = storage->add_subcommand(
        "probe", "Measure the ceilings of the device behind a directory (sequential read and "
                 "write at QD 32, random 4 KiB read IOPS at QD 64, 4 KiB QD 1 latency) and "
                 "store them in the workspace for analyze and compare");
    probeCmd->add_option("--path", o.path, "A directory on the device")->required();
    probeCmd->add_option("--size", o.probeSize, "Probe file size")->capture_default_str();
    probeCmd->add_option("--duration", o.probeDuration, "Total time, a quarter per phase")
        ->capture_default_str();
    probeCmd->add_option("--storage-profile", o.storageProfile, "Label of the configuration");
    probeCmd->callback([&o] { o.action = "probe"; });

    storage->add_subcommand("geometries", "List the KV geometry presets and their bytes per token")
        ->callback([&o] { o.action = "geometries"; });
    return storage;
}

int StorageCommand::run(const GlobalOptions& global, const Options& o) {
    const auto block = SizeParser::parse(o.blockSize);
    if (!SizeParser::parse(o.size) || !block || *block < 4096 || *block % 4096 != 0 ||
        *block > (256u << 20)) {
        std::cerr << "tierscope storage: --size takes a size such as 8GiB, 500MB or 1T, and "
                     "--block-size a multiple of 4 KiB up to 256 MiB\n";
        return kExitUsage;
    }
    if (o.action == "run" && TargetOption::remote(o.target))
        return RemoteJob::start(o.target, "storage run", TargetOption::forwardedArgs("storage"),
                                {}, {});
    try {
        if (o.action == "geometries")
            return geometries();
        if (o.action == "clean")
            return clean(o);
        const CancelOnSignal cancel;
        if (o.action == "probe")
            return probe(global, o);
        return o.action == "prepare" ? prepare(o) : runWorkload(global, o);
    } catch (const WorkloadError& e) {
        std::cerr << "tierscope storage: " << e.what() << "\n";
        return exitCodeFor(e);
    }
}

} // namespace tierscope
