#include "app/commands/ImportTools.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "core/store/AiperfImport.h"
#include "core/store/FioImport.h"
#include "core/store/GuidellmImport.h"
#include "core/store/SqliteTransaction.h"
#include "core/store/Store.h"
#include "core/util/Version.h"
#include "core/util/WallClock.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>

namespace tierscope {

namespace {

namespace fs = std::filesystem;

struct CannotRead : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void common(CLI::App* sub, ImportCommand::Options& options, const char* files,
            const char* filesHelp) {
    sub->add_option(files, options.files, filesHelp)->required();
    sub->add_option("--storage-profile", options.storageProfile,
                    "Storage configuration the runs used");
    auto* experiment = sub->add_option("--experiment", options.experiment,
                                       "Store the runs as the repetitions of one arm of this "
                                       "experiment (compare them as arm:EXPERIMENT/ARM)");
    auto* arm = sub->add_option("--arm", options.arm, "The arm's label, with --experiment");
    arm->needs(experiment);
    experiment->needs(arm);
}

std::string readAll(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw CannotRead("cannot read " + path.string());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad())
        throw CannotRead("cannot read " + path.string());
    return text;
}

// An AIPerf artifact folder, or its summary file: the summary and, beside it, its records
// (AIPerf names them after --profile-export-file: <name>_aiperf.json and <name>.jsonl).
ImportedRun readAiperf(const fs::path& given) {
    fs::path summary = given;
    std::error_code ec;
    if (fs::is_directory(given, ec)) {
        summary = given / AiperfImport::kSummaryFile;
        if (!fs::exists(summary, ec)) {
            std::vector<fs::path> found;
            for (const auto& entry : fs::directory_iterator(given, ec))
                if (entry.path().filename().string().ends_with("_aiperf.json"))
                    found.push_back(entry.path());
            if (found.size() != 1)
                throw CannotRead(found.empty()
                                     ? "no " + std::string(AiperfImport::kSummaryFile) +
                                           " (AIPerf's summary export) in " + given.string()
                                     : "several *_aiperf.json in " + given.string() +
                                           ": name the one to import");
            summary = found.front();
        }
    }
    const std::string name = summary.filename().string();
    const fs::path records =
        summary.parent_path() / (name.ends_with("_aiperf.json")
                                     ? name.substr(0, name.size() - 12) + ".jsonl"
                                     : std::string(AiperfImport::kRecordsFile));
    const std::string text = readAll(summary);
    if (!fs::exists(records, ec))
        return AiperfImport::parse(text, nullptr);
    std::ifstream in(records, std::ios::binary);
    if (!in)
        throw CannotRead("cannot read " + records.string());
    return AiperfImport::parse(text, &in);
}

std::vector<ImportedRun> read(const std::string& tool, const std::string& path) {
    if (tool == "aiperf") {
        std::vector<ImportedRun> one;
        one.push_back(readAiperf(path));
        return one;
    }
    const std::string text = readAll(path);
    return tool == "fio" ? FioImport::parse(text) : GuidellmImport::parse(text);
}

// A tool's text (fio's messages, an error a server sent) need not be UTF-8: kept, not fatal.
std::string text(const nlohmann::json& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

int interrupted(const std::string& tool) {
    std::cerr << "tierscope import " << tool << ": interrupted, nothing imported\n";
    return 128 + CancelOnSignal::signalNumber();
}

std::string label(const std::string& tool, const std::string& file, const ImportedRun& head) {
    const auto model = head.params.find("model");
    return tool + " " +
           (model != head.params.end() && model->is_string() ? model->get<std::string>()
                                                             : fs::path(file).filename().string());
}

// What a stored run is, and what it holds, for the line that reports it.
std::pair<std::string, std::string> described(const ImportedRun& r) {
    if (r.workload == "storage/fio")
        return {"job \"" + r.name + "\"", "compares as " + r.params.value("variant", "")};
    return {"\"" + r.name + "\"", std::to_string(r.requests.size()) + " request rows"};
}

} // namespace

void ImportTools::attach(CLI::App& import, ImportCommand::Options& options) {
    auto* fio = import.add_subcommand(
        "fio", "fio --output-format=json results (fio 3.x), one storage run per job");
    common(fio, options, "FILE", "fio's JSON output files");
    fio->footer(
        "Each job keeps fio's own figures: read/write bandwidth (bw_bytes) as read_gb_per_s and "
        "write_gb_per_s, IOPS, completion-latency p50/p99 (clat_ns), its options. A sequential "
        "read with direct=1 compares with tierscope's model-load runs; any other job with fio "
        "jobs of the same rw, block size and direct.");
    fio->callback([&options] { options.what = "fio"; });
    auto* aiperf = import.add_subcommand(
        "aiperf", "NVIDIA AIPerf profile exports (profile_export_aiperf.json, and the "
                  "per-request profile_export.jsonl where saved), one run per folder");
    common(aiperf, options, "DIR", "AIPerf artifact folders, or their *_aiperf.json files");
    aiperf->footer("AIPerf's own figures are the run's KPIs: TTFT, its inter_token_latency as "
                   "TPOT, inter_chunk_latency as ITL, request latency, throughputs, goodput.");
    aiperf->callback([&options] { options.what = "aiperf"; });
    auto* guidellm = import.add_subcommand(
        "guidellm", "guidellm benchmarks reports (benchmarks.json, guidellm 0.4 to 0.7), one run "
                    "per benchmark (strategy)");
    common(guidellm, options, "FILE", "guidellm report files (JSON)");
    guidellm->footer("guidellm's own figures are the run's KPIs (TTFT, ITL, request latency, "
                     "throughputs); the requests it lists become request rows.");
    guidellm->callback([&options] { options.what = "guidellm"; });
}

int ImportTools::run(const GlobalOptions& global, const ImportCommand::Options& options) {
    const std::string& tool = options.what;
    const std::string prefix = "tierscope import " + tool + ": ";
    if (options.arm.find('/') != std::string::npos) {
        std::cerr << prefix << "an arm label has no '/'\n";
        return kExitUsage;
    }
    // Every file is read and checked before the workspace is touched: a bad value in the last
    // file stores nothing, so a corrected retry does not duplicate the first ones.
    std::vector<std::pair<std::string, ImportedRun>> runs;
    for (const auto& file : options.files) {
        try {
            for (auto& run : read(tool, file))
                runs.emplace_back(file, std::move(run));
        } catch (const CannotRead& e) {
            std::cerr << prefix << e.what() << "\n";
            return kExitNotFound;
        } catch (const std::exception& e) {
            std::cerr << prefix << file << ": " << e.what() << "; nothing imported\n";
            return kExitUsage;
        }
        if (CancelOnSignal::flag())
            return interrupted(tool);
    }
    const std::int64_t now = WallClock::systemNowNs();
    auto span = [now](const ImportedRun& r) {
        const std::int64_t start = r.startNs.value_or(r.endNs.value_or(now));
        return std::pair{start, std::max(start, r.endNs.value_or(start))};
    };
    std::int64_t first = span(runs.front().second).first, last = first;
    for (const auto& [file, r] : runs) {
        first = std::min(first, span(r).first);
        last = std::max(last, span(r).second);
    }
    std::string sources;
    for (const auto& f : options.files)
        sources += (sources.empty() ? "" : ", ") + f;
    const std::string dbPath = global.dbPath();
    std::error_code ec;
    fs::create_directories(fs::path(dbPath).parent_path(), ec);
    Store store(dbPath, Store::Mode::ReadWrite);
    // One transaction: a signal, a kill or a full disk leaves the workspace as it was.
    SqliteTransaction transaction(store.db(), SqliteTransaction::Kind::Immediate);
    const std::int64_t session = store.createSession(
        {0, label(tool, runs.front().first, runs.front().second), options.storageProfile,
         "imported", first, last, "imported from " + sources, tool, kToolVersion});
    std::vector<std::string> lines;
    int repetition = 0;
    for (const auto& [file, r] : runs) {
        const auto [start, end] = span(r);
        const std::int64_t run = store.createRun(session, r.workload, text(r.params), start,
                                                 options.experiment, options.arm, ++repetition);
        if (!ImportCommand::addRequests(store, run, r.requests))
            return interrupted(tool);
        store.finishRun(run, end, "imported", text(r.summary));
        const auto [what, holds] = described(r);
        lines.push_back("imported " + file + " " + what + " as session " + std::to_string(session) +
                        ", run " + std::to_string(run) + " (" + holds +
                        (options.experiment.empty()
                             ? std::string()
                             : ", arm:" + options.experiment + "/" + options.arm) +
                        ")");
    }
    if (CancelOnSignal::flag())
        return interrupted(tool);
    transaction.commit();
    for (const auto& line : lines)
        std::cout << line << "\n";
    return kExitOk;
}

} // namespace tierscope
