#include "core/store/FioImport.h"

#include "core/store/ImportChecks.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>

namespace tierscope {

namespace {

using Json = nlohmann::json;
using C = ImportChecks;

constexpr std::uint64_t kMaxRuntimeMs = 10'000'000'000; // 115 days
constexpr std::uint64_t kMaxEpochS = 7'258'118'400;     // 2200-01-01

// fio's stamps in whole units: up to 2200, as a later one is a damaged file (and would
// overflow the nanosecond clock).
std::int64_t epochNs(const Json& v, const std::string& what, std::uint64_t nsPerUnit) {
    const std::uint64_t n = C::count(v, what);
    if (n > kMaxEpochS * (1'000'000'000 / nsPerUnit))
        C::refuse(what + " is " + v.dump() + ", after the year 2200");
    return static_cast<std::int64_t>(n * nsPerUnit);
}

std::string lower(std::string s) {
    for (auto& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// The JSON and the lines before it. fio writes a job's errors ("fio: pid=4896, err=5/...") to
// the same stream as the result when both go to one file (fio issue #731); the result itself
// opens with a line holding "{" alone (json.c json_print_object).
std::pair<std::string, std::vector<std::string>> splitMessages(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos || text[first] == '{')
        return {text, {}}; // all JSON, also a result re-saved on one line
    std::vector<std::string> messages;
    for (std::size_t from = 0; from < text.size();) {
        const auto end = std::min(text.find('\n', from), text.size());
        std::string line = text.substr(from, end - from);
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line == "{")
            return {text.substr(from), messages};
        if (line.find_first_not_of(" \t") != std::string::npos)
            messages.push_back(line);
        from = end + 1;
    }
    C::refuse("not fio's JSON output: no line opens a JSON object (the file starts \"" +
              text.substr(first, std::min<std::size_t>(40, text.find('\n', first) - first)) +
              "\")");
}

// A job's options: its global options overlaid by its own, each a string as fio prints them.
Json optionsOf(const Json* global, const Json* own, const std::string& what) {
    Json merged = Json::object();
    for (const auto& [label, options] :
         {std::pair{"global options", global}, {"job options", own}}) {
        if (!options)
            continue;
        if (!options->is_object())
            C::refuse(what + " \"" + label + "\" is " + C::shown(*options) + ", not an object");
        for (const auto& [key, value] : options->items()) {
            if (!value.is_string())
                C::refuse(what + " \"" + label + "\" \"" + key + "\" is " + C::shown(value) +
                          ", not fio's text of an option");
            merged[key] = value;
        }
    }
    return merged;
}

std::string option(const Json& options, const char* key, const char* alias = nullptr) {
    if (const Json* v = C::member(options, key))
        return v->get<std::string>();
    if (const Json* v = alias ? C::member(options, alias) : nullptr)
        return v->get<std::string>();
    return {};
}

// One direction's figures into the storage summary and the KPIs. fio writes every direction
// of every job; one that moved nothing (total_ios or runtime 0) has no rate and no latency.
void direction(const Json& job, const char* dir, const std::string& jobWhat, Json& summary,
               Json& kpis) {
    const Json* d = C::member(job, dir);
    if (!d)
        return; // unified_rw_reporting=mixed: only "mixed", which is neither
    const std::string what = jobWhat + " \"" + dir + "\"";
    if (!d->is_object())
        C::refuse(what + " is " + C::shown(*d) + ", not fio's figures of a direction");
    auto field = [&](const char* key) -> const Json& {
        const Json* v = C::member(*d, key);
        if (!v)
            C::refuse(what + " has no \"" + key + "\"");
        return *v;
    };
    auto name = [&](const char* key) { return what + " \"" + key + "\""; };
    const std::uint64_t ios = C::count(field("total_ios"), name("total_ios"));
    const std::uint64_t bytes = C::count(field("io_bytes"), name("io_bytes"));
    const std::uint64_t runtime = C::count(field("runtime"), name("runtime"));
    const std::uint64_t bw = C::count(field("bw_bytes"), name("bw_bytes"));
    const double iops = C::figure(field("iops"), name("iops"));
    summary[std::string(dir) == "read" ? "bytes_read" : "bytes_written"] = bytes;
    // fio's own arithmetic (add_ddir_status_json): a file edited after the fact says so.
    const std::uint64_t expected = runtime ? (1000 * bytes) / runtime : 0;
    if (bw != expected)
        C::refuse(name("bw_bytes") + " is " + std::to_string(bw) +
                  ", but fio writes 1000 x io_bytes / runtime = " + std::to_string(expected));
    const double expectedIops =
        runtime ? (1000.0 * static_cast<double>(ios)) / static_cast<double>(runtime) : 0.0;
    if (std::abs(iops - expectedIops) > 1e-6 + 1e-9 * expectedIops) // printed "%f"
        C::refuse(name("iops") + " is " + C::shown(field("iops")) +
                  ", but fio writes 1000 x total_ios / runtime = " + Json(expectedIops).dump());
    if (ios == 0 || runtime == 0)
        return;
    summary[std::string(dir) + "_gb_per_s"] = static_cast<double>(bw) / 1e9;
    kpis[std::string(dir) + "_iops"] = iops;
    const Json* clat = C::member(*d, "clat_ns");
    const Json* percentiles = clat ? C::member(*clat, "percentile") : nullptr;
    if (!percentiles)
        return; // clat_percentiles=0, or lat_percentiles=1 moved them to lat_ns
    if (!percentiles->is_object())
        C::refuse(name("clat_ns") + " \"percentile\" is " + C::shown(*percentiles) +
                  ", not an object");
    for (const auto& [key, value] : percentiles->items())
        C::seconds(value, "ns", name("clat_ns") + " \"percentile\" \"" + key + "\"");
    // fio's keys are its percentile list printed "%f"; a list without 50 or 99 has no KPI.
    for (const auto& [key, kpi] : {std::pair{"50.000000", "_clat_p50"}, {"99.000000", "_clat_p99"}})
        if (const Json* v = C::member(*percentiles, key))
            kpis[std::string(dir) + kpi] = v->get<double>() / 1e9;
}

struct Head {
    std::string version;
    const Json* global = nullptr;
    std::vector<std::string> messages;
    std::optional<std::int64_t> endNs;
};

ImportedRun job(const Json& j, std::size_t index, const Head& head) {
    std::string what = "job " + std::to_string(index + 1);
    if (!j.is_object())
        C::refuse(what + " is " + C::shown(j) + ", not a job object");
    const Json* jobname = C::member(j, "jobname");
    if (!jobname || !jobname->is_string())
        C::refuse(what + " has no \"jobname\": not a job of fio's JSON output");
    ImportedRun run;
    run.workload = "storage/fio";
    run.name = jobname->get<std::string>();
    what += " (\"" + run.name + "\")";
    if (!C::member(j, "read") && !C::member(j, "write") && !C::member(j, "mixed"))
        C::refuse(what + " has neither \"read\" nor \"write\": no figures");
    const Json options = optionsOf(head.global, C::member(j, "job options"), what);
    const int kbBase = option(options, "kb_base") == "1000" ? 1000 : 1024;
    std::string rw = lower(option(options, "rw", "readwrite"));
    rw = rw.empty() ? "read" : rw.substr(0, rw.find(':')); // fio's default; "read:8k" skips
    if (rw == "readwrite")
        rw = "rw";
    const std::string direct = option(options, "direct"), buffered = option(options, "buffered");
    const bool directIo = !direct.empty() ? FioImport::truthy(direct)
                                          : !buffered.empty() && !FioImport::truthy(buffered);
    const std::string bs = lower(option(options, "bs", "blocksize"));

    Json& s = run.summary;
    s["workload"] = "fio";
    std::optional<std::uint64_t> runtimeMs;
    if (const Json* ms = C::member(j, "job_runtime")) {
        runtimeMs = C::count(*ms, what + " \"job_runtime\"");
        if (*runtimeMs > kMaxRuntimeMs)
            C::refuse(what + " \"job_runtime\" is " + ms->dump() + " ms, more than 115 days");
        s["seconds"] = static_cast<double>(*runtimeMs) / 1000.0;
    }
    Json kpis = Json::object();
    direction(j, "read", what, s, kpis);
    direction(j, "write", what, s, kpis);
    s["page_cache_bypassed"] = directIo;
    if (!C::member(j, "read") && !C::member(j, "write"))
        s["note"] = "unified_rw_reporting=mixed: fio reported reads and writes together, so the "
                    "job has no figure per direction";
    else if (!directIo)
        s["note"] = "page cache not bypassed: fio ran the job without direct=1";
    s["fio_version"] = head.version;
    s["fio_job"] = j;
    if (!head.messages.empty())
        s["fio_messages"] = head.messages;
    s["imported_kpis"] = kpis;
    if (const Json* error = C::member(j, "error"); error && C::count(*error, what + " \"error\""))
        s["validity"] = Json::array(
            {{{"check", "fio_error"},
              {"status", "fail"},
              {"detail", "fio ended job \"" + run.name + "\" with error " + error->dump() +
                             (head.messages.empty() ? std::string()
                                                    : " (\"" + head.messages.front() + "\")") +
                             ": its figures cover part of the job"}}});

    Json& p = run.params;
    p["jobname"] = run.name;
    for (const char* key : {"groupid", "hostname"})
        if (const Json* v = C::member(j, key))
            p[key] = *v;
    p["fio_version"] = head.version;
    if (head.global)
        p["global_options"] = *head.global;
    if (const Json* own = C::member(j, "job options"))
        p["job_options"] = *own;
    p["rw"] = rw;
    const auto blockBytes = FioImport::sizeBytes(bs.empty() ? "4096" : bs, kbBase);
    p["block_size"] = blockBytes ? Json(*blockBytes) : Json(bs);
    p["direct"] = directIo;
    p["variant"] = FioImport::variant(rw, bs, directIo, kbBase);
    // fio does not say when each job ran: every run ends at its report, as long as it ran.
    run.endNs = head.endNs;
    if (head.endNs && runtimeMs)
        run.startNs = *head.endNs - static_cast<std::int64_t>(*runtimeMs) * 1'000'000;
    return run;
}

} // namespace

bool FioImport::truthy(const std::string& value) {
    const bool hex = value.find("0x") != std::string::npos || value.find("0X") != std::string::npos;
    const char* begin = value.c_str();
    char* end = nullptr;
    const unsigned long long v = std::strtoull(begin, &end, hex ? 16 : 10);
    return end != begin && v != 0;
}

std::optional<std::uint64_t> FioImport::sizeBytes(const std::string& text, int kbBase) {
    std::size_t i = 0;
    std::uint64_t n = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        if (n > (UINT64_MAX - 9) / 10)
            return std::nullopt;
        n = n * 10 + static_cast<std::uint64_t>(text[i++] - '0');
    }
    if (i == 0)
        return std::nullopt;
    const std::string suffix = lower(text.substr(i));
    if (suffix.find_first_of(",:-%/") != std::string::npos)
        return std::nullopt; // a split, a range, a percentage: not one size
    // parse.c __get_mult_bytes: "KiB" is the opposite base of "k" (1000 under fio's default).
    static const char* const kPowers = "kmgtp";
    std::uint64_t mult = 1;
    int power = 0;
    if (!suffix.empty()) {
        const char* at = std::strchr(kPowers, suffix[0]);
        if (at && *at)
            power = static_cast<int>(at - kPowers) + 1;
        const bool binaryPrefix = suffix.size() >= 3 && suffix.compare(1, 2, "ib") == 0;
        mult = binaryPrefix ? (kbBase == 1000 ? 1024 : 1000) : static_cast<std::uint64_t>(kbBase);
    }
    for (int k = 0; k < power; ++k) {
        if (n > UINT64_MAX / mult)
            return std::nullopt;
        n *= mult;
    }
    return n;
}

std::string FioImport::variant(const std::string& rw, const std::string& blockSize, bool direct,
                               int kbBase) {
    // tierscope's model-load is large sequential O_DIRECT reads of files, read_gb_per_s their
    // bytes over the time reading them: what such a fio job measures, whatever its block size
    // or depth (model-load's own variant does not hold those either).
    if (rw == "read" && direct)
        return "storage/model-load";
    const auto bytes = sizeBytes(blockSize.empty() ? "4096" : blockSize, kbBase);
    return "storage/fio/" + rw + "@bs" + (bytes ? std::to_string(*bytes) : blockSize) +
           (direct ? "" : "@buffered");
}

std::vector<ImportedRun> FioImport::parse(const std::string& text) {
    auto [json, messages] = splitMessages(text);
    const Json doc = C::document(json);
    if (!doc.is_object())
        C::refuse("not fio's JSON output: not a JSON object");
    Head head;
    head.messages = std::move(messages);
    const Json* version = C::member(doc, "fio version");
    if (!version || !version->is_string())
        C::refuse("not fio's JSON output: no \"fio version\"");
    head.version = version->get<std::string>();
    if (head.version.rfind("fio-2", 0) == 0 || head.version.rfind("fio-1", 0) == 0)
        C::refuse(head.version + " output: tierscope reads fio 3.x's (latencies in ns, bw_bytes)");
    head.global = C::member(doc, "global options");
    if (const Json* ms = C::member(doc, "timestamp_ms"))
        head.endNs = epochNs(*ms, "\"timestamp_ms\"", 1'000'000);
    else if (const Json* s = C::member(doc, "timestamp")) // fio --client writes seconds only
        head.endNs = epochNs(*s, "\"timestamp\"", 1'000'000'000);
    const Json* jobs = C::member(doc, "jobs");
    if (!jobs)
        jobs = C::member(doc, "client_stats");
    if (!jobs || !jobs->is_array())
        C::refuse("not fio's JSON output: no \"jobs\" list");
    std::vector<ImportedRun> out;
    for (std::size_t i = 0; i < jobs->size(); ++i) {
        const Json& j = (*jobs)[i];
        // `fio --client` adds the sum over its hosts: the hosts' own jobs are the runs.
        if (const Json* name = C::member(j, "jobname"); name && *name == "All clients")
            continue;
        out.push_back(job(j, i, head));
    }
    if (out.empty())
        C::refuse("no job in the file: fio ran nothing");
    return out;
}

} // namespace tierscope
