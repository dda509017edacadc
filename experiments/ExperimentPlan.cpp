#include "experiments/ExperimentPlan.h"

#include "core/compare/Gate.h"
#include "core/compare/RunKpis.h"
#include "core/util/DurationParser.h"
#include "core/util/ShellTemplate.h"
#include "core/util/SizeParser.h"
#include "experiments/EngineIdentity.h"
#include "experiments/PlanDesignKeys.h"
#include "experiments/PlanError.h"
#include "experiments/PlanSweepKeys.h"
#include "experiments/TomlJson.h"
#include "loadgen/Datasets.h"
#include "loadgen/LoadGenerator.h"
#include "loadgen/TraceParser.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <optional>
#include <set>
#include <stdexcept>
#include <toml++/toml.h>

namespace tierscope {

namespace {

// What a key of the plan holds. Checked before any value is read, so a typo or a wrong type
// is an error with its line instead of a silent default (`gates = "ttft_p50 <= 0"` used to
// turn the gates off).
// Any: a key whose value its own parser checks (a share, a flag) with a message of its own.
enum class Kind { Text, Integer, Seed, Duration, Size, Concurrency, Gates, Urls, Env, Tables, Any };

// Integer: the range a value must lie in; Size: the bytes, and a multiple of `multiple`.
// Values that could only fail once the runs start (a 1-byte O_DIRECT block, 0 files, a
// queue depth of a million) are errors here, with their line.
struct Key {
    const char* name;
    Kind kind;
    long long min = LLONG_MIN;
    long long max = LLONG_MAX;
    long long multiple = 1;
    bool ranged() const { return min != LLONG_MIN || max != LLONG_MAX; }
};

const char* typeName(const toml::node& node) {
    switch (node.type()) {
    case toml::node_type::string:
        return "a string";
    case toml::node_type::integer:
        return "an integer";
    case toml::node_type::floating_point:
        return "a floating-point number";
    case toml::node_type::boolean:
        return "a boolean";
    case toml::node_type::array:
        return node.as_array()->is_array_of_tables() ? "an array of tables" : "an array";
    case toml::node_type::table:
        return "a table";
    default:
        return "a date or time";
    }
}

bool isInt(const toml::node& node) {
    return node.is_integer() && node.as_integer()->get() >= INT_MIN &&
           node.as_integer()->get() <= INT_MAX;
}

std::string rangeText(const Key& key) {
    if (key.max == LLONG_MAX)
        return "of at least " + std::to_string(key.min);
    return "from " + std::to_string(key.min) + " to " + std::to_string(key.max);
}

std::optional<long long> sizeOf(const toml::node& v) {
    if (v.is_integer())
        return v.as_integer()->get();
    if (!v.is_string())
        return std::nullopt;
    const auto bytes = SizeParser::parse(v.as_string()->get());
    if (!bytes || *bytes > static_cast<std::uint64_t>(LLONG_MAX))
        return std::nullopt;
    return static_cast<long long>(*bytes);
}

// Empty when the value fits; else what it should have been.
std::string mismatch(const toml::node& v, const Key& key) {
    switch (key.kind) {
    case Kind::Text:
        return v.is_string() ? "" : "a string";
    case Kind::Integer: {
        std::string what = key.ranged() ? "an integer " + rangeText(key) : "an integer";
        if (!isInt(v))
            return what;
        const long long n = v.as_integer()->get();
        return n >= key.min && n <= key.max ? "" : what;
    }
    case Kind::Seed:
        return v.is_integer() && v.as_integer()->get() >= 0 ? "" : "a non-negative integer";
    case Kind::Duration: {
        const auto d = v.is_string() ? DurationParser::parse(v.as_string()->get()) : std::nullopt;
        const bool positive = key.min > 0;
        if (!d || (positive && *d <= std::chrono::nanoseconds(0)))
            return positive ? "a duration above 0 such as \"60s\"" : "a duration such as \"60s\"";
        return "";
    }
    case Kind::Size: {
        const auto bytes = sizeOf(v);
        std::string what =
            key.ranged() ? "a size " + rangeText(key) + " bytes" : "a size such as \"8GiB\"";
        if (key.multiple > 1)
            what += ", a multiple of " + std::to_string(key.multiple);
        if (!bytes || *bytes <= 0 || *bytes < key.min || *bytes > key.max ||
            *bytes % key.multiple != 0)
            return what;
        return "";
    }
    case Kind::Concurrency:
        if (isInt(v))
            return "";
        if (const auto* a = v.as_array();
            a && !a->empty() && std::all_of(a->begin(), a->end(), isInt))
            return "";
        return "an integer or a list of integers such as [4, 16]";
    case Kind::Gates:
        if (const auto* a = v.as_array();
            a &&
            std::all_of(a->begin(), a->end(), [](const toml::node& n) { return n.is_string(); }))
            return "";
        return "a list of strings such as [\"ttft_p50 <= -25%\"]";
    case Kind::Urls:
        if (const auto* a = v.as_array();
            a && std::all_of(a->begin(), a->end(), [](const toml::node& n) {
                return n.is_string() && LoadGenerator::httpUrl(n.as_string()->get());
            }))
            return "";
        return "a list of http:// or https:// URLs such as [\"http://gpu-node:6880/metrics\"]";
    case Kind::Env:
        if (const auto* t = v.as_table();
            t && std::all_of(t->begin(), t->end(), [](const auto& kv) {
                return kv.second.is_string() || kv.second.is_integer() ||
                       kv.second.is_floating_point() || kv.second.is_boolean();
            }))
            return "";
        return "a table of strings, numbers or booleans";
    case Kind::Tables:
        return v.is_array() && v.as_array()->is_array_of_tables() ? "" : "[[tables]]";
    case Kind::Any:
        return "";
    }
    return "";
}

void checkKeys(const toml::table& table, const std::string& where, const std::vector<Key>& keys) {
    for (const auto& [k, v] : table) {
        const std::string name(k.str());
        const auto key = std::find_if(keys.begin(), keys.end(),
                                      [&](const Key& key) { return name == key.name; });
        if (key == keys.end()) {
            std::string known;
            for (const auto& key : keys)
                known += (known.empty() ? "" : ", ") + std::string(key.name);
            PlanError::at(v, "unknown key \"" + name + "\" in " + where + " (the keys are " +
                                 known + ")");
        }
        if (const auto expected = mismatch(v, *key); !expected.empty()) {
            // The type was right but not the value: say the value.
            const bool typeRight =
                (v.is_integer() && (key->kind == Kind::Integer || key->kind == Kind::Size)) ||
                (v.is_string() && (key->kind == Kind::Size || key->kind == Kind::Duration));
            PlanError::at(v,
                          name + " must be " +
                              (key->kind == Kind::Tables ? "[[" + name + "]] tables" : expected) +
                              ", not " +
                              (typeRight ? v.is_string() ? "\"" + v.as_string()->get() + "\""
                                                         : std::to_string(v.as_integer()->get())
                                         : std::string(typeName(v))));
        }
    }
}

std::vector<Key> planKeys() {
    std::vector<Key> keys = {{"name", Kind::Text}};
    PlanDesignKeys::addKeys(keys, Kind::Any);
    keys.insert(keys.end(), {{"warmup", Kind::Integer, 0, INT_MAX},
                             {"order", Kind::Text},
                             {"seed", Kind::Seed},
                             {"on_failure", Kind::Text},
                             {"gates", Kind::Gates},
                             {"arm", Kind::Tables},
                             {"workload", Kind::Tables},
                             {"max_failure_rate", Kind::Any},
                             {"min_hit_share", Kind::Any}});
    return keys;
}

const std::vector<Key> kArmKeys = {{"label", Kind::Text},
                                   {"storage_profile", Kind::Text},
                                   {"path", Kind::Text},
                                   {"engine_url", Kind::Text},
                                   {"metrics_urls", Kind::Urls},
                                   {"setup", Kind::Text},
                                   {"teardown", Kind::Text},
                                   {"timeout", Kind::Duration, 1},
                                   {"env", Kind::Env},
                                   {"engine_start", Kind::Text},
                                   {"engine_ready", Kind::Text},
                                   {"ready_timeout", Kind::Duration, 1},
                                   {"engine_stop_grace", Kind::Duration},
                                   {"engine_restart", Kind::Text},
                                   {"reset_prefix_cache", Kind::Any},
                                   {"drop_caches", Kind::Any},
                                   {"reset", Kind::Text},
                                   {"cache", Kind::Text}};

// Sizes that would otherwise be found too large only after allocating for them (2e9 tokens
// or requests ended in bad_alloc): a context of 10M tokens, 10M requests a run, and the
// dataset builder's own limits.
constexpr long long kMaxContextTokens = 10'000'000;
constexpr long long kMaxRequests = 10'000'000;

// The keys ExperimentRunner reads for each workload kind.
std::vector<Key> workloadKeys(const std::string& kind) {
    std::vector<Key> keys = {{"kind", Kind::Text}, {"concurrency", Kind::Concurrency}};
    const auto add = [&](std::initializer_list<Key> more) {
        keys.insert(keys.end(), more.begin(), more.end());
    };
    if (kind != "load" && kind != "cold-recovery")
        add({{"block_size", Kind::Size, 512, 1LL << 30, 512},
             {"queue_depth", Kind::Integer, 1, 4096}});
    if (kind == "model-load")
        add({{"size", Kind::Size},
             {"files", Kind::Integer, 1, 100000},
             {"parallel", Kind::Integer, 1, 1024}});
    if (kind == "kv-restore")
        add({{"geometry", Kind::Text},
             {"tokens", Kind::Integer, 1, kMaxContextTokens},
             {"prefixes", Kind::Integer, 1, 1'000'000},
             {"chunk_tokens", Kind::Integer, 1, 1'000'000},
             {"requests", Kind::Integer, 1, 4'000'000}});
    if (kind == "checkpoint-save")
        add({{"size", Kind::Size}, {"files", Kind::Integer, 1, 100000}});
    if (kind == "cold-recovery")
        add({{"model", Kind::Text},
             {"api", Kind::Text},
             {"rate", Kind::Any},
             {"documents", Kind::Integer, 1, 100'000},
             {"document_tokens", Kind::Integer, 1, Datasets::kMaxPromptWords},
             {"questions", Kind::Integer, 1, Datasets::kMaxRounds},
             {"question_tokens", Kind::Integer, 1, Datasets::kMaxPromptWords},
             {"output_len", Kind::Integer, 1, kMaxContextTokens},
             {"seed", Kind::Integer, 0},
             {"geometry", Kind::Text},
             {"kv_bytes_per_token", Kind::Size},
             {"ignore_eos", Kind::Any},
             {"extra_body", Kind::Any}});
    if (kind == "load")
        add({{"api", Kind::Text},
             {"model", Kind::Text},
             {"requests", Kind::Integer, 1, kMaxRequests},
             {"warmup_requests", Kind::Integer, 0, kMaxRequests},
             {"input_len", Kind::Integer, 1, Datasets::kMaxPromptWords},
             {"output_len", Kind::Integer, 1, kMaxContextTokens},
             {"seed", Kind::Integer, 0},
             {"dataset", Kind::Text},
             {"users", Kind::Integer, 1, Datasets::kMaxUsers},
             {"system_tokens", Kind::Integer, 0, Datasets::kMaxPromptWords},
             {"rounds", Kind::Integer, 1, Datasets::kMaxRounds},
             {"question_tokens", Kind::Integer, 1, Datasets::kMaxPromptWords},
             {"ignore_eos", Kind::Any},
             {"extra_body", Kind::Any},
             {"trace", Kind::Text},
             {"trace_format", Kind::Text},
             {"time_scale", Kind::Any},
             {"max_requests", Kind::Integer, 1, kMaxRequests},
             {"start_at", Kind::Any}});
    if (kind == "load")
        PlanSweepKeys::addKeys(keys, Kind::Any);
    return keys;
}

std::string text(const toml::node& node) {
    if (const auto* s = node.as_string())
        return s->get();
    if (const auto* i = node.as_integer())
        return std::to_string(i->get());
    if (const auto* f = node.as_floating_point()) {
        std::string out = std::to_string(f->get());
        return out;
    }
    if (const auto* b = node.as_boolean())
        return b->get() ? "true" : "false";
    PlanError::at(node, "expected a string, number or boolean");
}

// extra_body: a TOML table ({ top_k = 1 }), or a JSON object as a string.
nlohmann::json extraBody(const toml::node& node) {
    nlohmann::json body;
    if (node.is_table())
        body = TomlJson::convert(node).value_or(nullptr);
    else if (node.is_string())
        body = nlohmann::json::parse(node.as_string()->get(), nullptr, false);
    if (body.is_discarded() || body.is_null())
        PlanError::at(node,
                      "extra_body is a table such as { top_k = 1 } (of strings, numbers, booleans, "
                      "arrays and tables) or a JSON object as a string");
    if (const auto why = LoadGenerator::checkExtraBody(body))
        PlanError::at(node, "extra_body: " + *why);
    return body;
}

std::chrono::milliseconds duration(const toml::table& t, const char* key,
                                   std::chrono::milliseconds fallback) {
    const auto* node = t.get(key);
    if (!node)
        return fallback;
    const auto d =
        node->is_string() ? DurationParser::parse(node->as_string()->get()) : std::nullopt;
    if (!d)
        PlanError::at(*node, std::string(key) + " must be a duration such as 60s");
    return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

ExperimentPlan::Arm arm(const toml::table& t) {
    checkKeys(t, "[[arm]]", kArmKeys);
    ExperimentPlan::Arm a;
    a.label = t["label"].value_or(std::string());
    if (a.label.empty())
        PlanError::at(t, "every [[arm]] needs a label");
    a.storageProfile = t["storage_profile"].value_or(std::string());
    a.path = t["path"].value_or(std::string());
    a.engineUrl = t["engine_url"].value_or(std::string());
    if (const auto* urls = t["metrics_urls"].as_array())
        for (const auto& u : *urls)
            a.metricsUrls.push_back(u.as_string()->get());
    a.setup = t["setup"].value_or(std::string());
    a.teardown = t["teardown"].value_or(std::string());
    a.timeout = duration(t, "timeout", a.timeout);
    if (const auto* env = t["env"].as_table())
        for (const auto& [k, v] : *env) {
            // A name with '=' or a space cannot be set in an environment: say so here.
            const std::string name(k.str());
            const bool valid = !name.empty() &&
                               !std::isdigit(static_cast<unsigned char>(name[0])) &&
                               std::all_of(name.begin(), name.end(), [](char c) {
                                   return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                               });
            if (!valid)
                PlanError::at(v,
                              "env: \"" + name +
                                  "\" is not an environment variable name (letters, digits and _, "
                                  "not starting with a digit)");
            a.env[name] = text(v);
        }
    a.engineStart = t["engine_start"].value_or(std::string());
    a.engineReady = t["engine_ready"].value_or(std::string());
    a.readyTimeout = duration(t, "ready_timeout", a.readyTimeout);
    a.engineStopGrace = duration(t, "engine_stop_grace", a.engineStopGrace);
    if (const auto* restart = t.get("engine_restart")) {
        const std::string value = restart->value_or(std::string());
        if (value != "run" && value != "arm")
            PlanError::at(*restart, "engine_restart is run or arm");
        a.engineRestart = value == "run" ? ExperimentPlan::Arm::EngineRestart::Run
                                         : ExperimentPlan::Arm::EngineRestart::Arm;
    }
    a.resetPrefixCache = t["reset_prefix_cache"].value_or(false);
    a.dropCaches = t["drop_caches"].value_or(false);
    a.reset = t["reset"].value_or(std::string());
    if (const auto* cache = t.get("cache")) {
        const std::string value = cache->value_or(std::string());
        if (value != "restore" && value != "recompute")
            PlanError::at(*cache,
                          "cache is restore (the KV comes back from the arm's tier, the default) "
                          "or recompute (the baseline: no KV tier, prefixes computed again)");
        a.cache = value == "recompute" ? ExperimentPlan::Arm::Cache::Recompute
                                       : ExperimentPlan::Arm::Cache::Restore;
    }
    for (const char* key : {"setup", "teardown", "engine_start", "reset"})
        if (const auto* command = t.get(key))
            if (const auto why = ShellTemplate::misplaced(command->value_or(std::string()),
                                                          "{path}", "TIERSCOPE_PATH"))
                PlanError::at(*command, *why);
    for (const char* key : {"reset_prefix_cache", "drop_caches"})
        if (const auto* flag = t.get(key); flag && !flag->is_boolean())
            PlanError::at(*flag, std::string(key) + " is true or false");
    if (a.resetPrefixCache && a.engineUrl.empty())
        PlanError::at(t, "arm \"" + a.label + "\": reset_prefix_cache needs engine_url");
    if (!a.engineStart.empty() && a.engineUrl.empty() &&
        (a.engineReady.empty() || a.engineReady.front() == '/'))
        PlanError::at(t, "arm \"" + a.label +
                             "\": engine_start needs engine_url or engine_ready, to know "
                             "when the engine is ready");
    return a;
}

// A trace replay names its file and layout, and is its own schedule: no concurrency or request
// count competes with it (max_requests takes its first N).
void traceKeys(const toml::table& t, bool trace) {
    for (const char* key : {"trace", "trace_format", "time_scale", "max_requests", "start_at"})
        if (const auto* v = t.get(key); v && !trace)
            PlanError::at(*v, std::string(key) + " goes with dataset = \"trace\"");
    for (const char* key : {"concurrency", "requests"})
        if (const auto* v = t.get(key); v && trace)
            PlanError::at(*v, std::string(key) +
                                  " does not apply to a trace, which sends each request at "
                                  "its own time (max_requests takes its first N)");
    if (trace && (!TraceParser::format(t["trace_format"].value_or(std::string())) ||
                  t["trace"].value_or(std::string()).empty()))
        PlanError::at(
            t, "dataset = \"trace\" needs trace (a file) and trace_format (mooncake, bailian, "
               "azure or burstgpt)");
    for (const auto& [key, least] : {std::pair{"time_scale", 1e-9}, std::pair{"start_at", 0.0}})
        if (const auto* v = t.get(key); v && !(v->value<double>().value_or(-1) >= least))
            PlanError::at(*v,
                          std::string(key) + (least > 0 ? " is a number above 0, such as 0.5"
                                                        : " is a number of seconds of at least 0"));
}

ExperimentPlan::Workload workload(const toml::table& t) {
    static const std::vector<std::string> kinds = {"model-load", "kv-restore", "checkpoint-save",
                                                   "load", "cold-recovery"};
    ExperimentPlan::Workload w;
    w.kind = t["kind"].value_or(std::string());
    if (std::find(kinds.begin(), kinds.end(), w.kind) == kinds.end())
        PlanError::at(t, "a [[workload]] kind is model-load, kv-restore, checkpoint-save, load or "
                         "cold-recovery");
    w.sweep = PlanSweepKeys::take(t);
    checkKeys(t, "a " + w.kind + " [[workload]]", workloadKeys(w.kind));
    const std::string dataset = t["dataset"].value_or(std::string("synthetic"));
    if (dataset != "synthetic" && dataset != "shared-prefix" && dataset != "trace")
        PlanError::at(*t.get("dataset"), "dataset is synthetic, shared-prefix or trace");
    traceKeys(t, dataset == "trace");
    for (const auto& [k, v] : t) {
        const std::string key(k.str());
        if (key == "kind" || PlanSweepKeys::owns(key))
            continue;
        if (key == "concurrency" && v.is_array()) {
            for (const auto& c : *v.as_array()) {
                if (!c.is_integer() || c.as_integer()->get() <= 0)
                    PlanError::at(c, "concurrency values must be positive integers");
                w.concurrency.push_back(static_cast<int>(c.as_integer()->get()));
            }
            continue;
        }
        if (key == "concurrency") {
            if (!v.is_integer() || v.as_integer()->get() <= 0)
                PlanError::at(v, "concurrency must be a positive integer");
            w.concurrency.push_back(static_cast<int>(v.as_integer()->get()));
            continue;
        }
        if (key == "ignore_eos" && !v.is_boolean())
            PlanError::at(v, "ignore_eos is true or false");
        if (key == "extra_body") {
            w.params[key] = extraBody(v).dump();
            continue;
        }
        w.params[key] = text(v);
    }
    return w;
}

} // namespace

std::string ExperimentPlan::Variant::name() const {
    return concurrency > 0 ? "c" + std::to_string(concurrency) : "";
}

ExperimentPlan ExperimentPlan::parse(std::string_view toml) {
    toml::table doc;
    try {
        doc = toml::parse(toml);
    } catch (const toml::parse_error& e) {
        throw std::runtime_error("plan, line " + std::to_string(e.source().begin.line) + ": " +
                                 std::string(e.description()));
    }
    checkKeys(doc, "the plan", planKeys());
    ExperimentPlan p;
    p.name = doc["name"].value_or(std::string("experiment"));
    PlanDesignKeys::read(doc, p);
    p.warmup = static_cast<int>(doc["warmup"].value_or(0));
    const std::string order = doc["order"].value_or(std::string("abba"));
    if (order != "abba" && order != "interleaved" && order != "random")
        PlanError::at(*doc.get("order"), "order is abba, interleaved or random");
    p.order = order == "random"        ? Order::Random
              : order == "interleaved" ? Order::Interleaved
                                       : Order::Abba;
    p.seed = static_cast<std::uint64_t>(doc["seed"].value_or(1));
    const std::string onFailure = doc["on_failure"].value_or(std::string("continue"));
    if (onFailure != "continue" && onFailure != "stop")
        PlanError::at(*doc.get("on_failure"), "on_failure is continue or stop");
    p.stopOnFailure = onFailure == "stop";
    if (const auto* limit = doc.get("max_failure_rate")) {
        const auto rate = limit->value<double>();
        if (!rate || *rate < 0 || *rate > 1)
            PlanError::at(*limit, "max_failure_rate is a share from 0 to 1, such as 0.01");
        p.maxFailureRate = *rate;
    }
    if (const auto* share = doc.get("min_hit_share")) {
        const auto value = share->value<double>();
        if (!value || *value < 0 || *value > 1)
            PlanError::at(*share, "min_hit_share is a share from 0 to 1, such as 0.5");
        p.minHitShare = *value;
    }
    // Checked here, not after an hour of runs.
    if (const auto* gates = doc["gates"].as_array())
        for (const auto& g : *gates) {
            std::string error;
            const auto gate = Gate::parse(text(g), error);
            if (!gate)
                PlanError::at(g, error);
            if (const auto now = RunKpis::renamedTo(gate->kpi))
                PlanError::at(g, "KPI \"" + gate->kpi + "\" is now \"" + *now +
                                     "\", which counts every storage wait the engine exposes");
            if (!RunKpis::find(gate->kpi))
                PlanError::at(g, "no KPI \"" + gate->kpi + "\" (see `tierscope compare --help`)");
            p.gates.push_back(text(g));
        }
    // `arm = ["x"]` is an array too, but not of tables: found by the fuzzer.
    if (const auto* arms = doc["arm"].as_array())
        for (const auto& a : *arms) {
            if (!a.is_table())
                PlanError::at(a, "arm must be [[arm]] tables");
            p.arms.push_back(arm(*a.as_table()));
        }
    if (const auto* workloads = doc["workload"].as_array())
        for (const auto& w : *workloads) {
            if (!w.is_table())
                PlanError::at(w, "workload must be [[workload]] tables");
            p.workloads.push_back(workload(*w.as_table()));
        }
    if (p.arms.size() < 2)
        throw std::runtime_error("plan: an experiment needs at least two [[arm]] tables");
    if (p.workloads.empty())
        throw std::runtime_error("plan: no [[workload]] table");
    PlanDesignKeys::check(p);
    PlanSweepKeys::check(p);
    return p;
}

const char* ExperimentPlan::orderName(Order o) {
    switch (o) {
    case Order::Interleaved:
        return "interleaved";
    case Order::Random:
        return "random";
    case Order::Abba:
        break;
    }
    return "abba";
}

std::vector<std::string> ExperimentPlan::Arm::metricsEndpoints() const {
    std::vector<std::string> urls = metricsUrls;
    if (!engineUrl.empty())
        urls.insert(urls.begin(), EngineIdentity::baseUrl(engineUrl) + "/metrics");
    return urls;
}

std::vector<std::string> ExperimentPlan::metricsEndpoints() const {
    std::vector<std::string> out;
    std::set<std::string> seen;
    for (const auto& arm : arms)
        for (auto& url : arm.metricsEndpoints())
            if (seen.insert(url).second)
                out.push_back(std::move(url));
    return out;
}

std::vector<ExperimentPlan::Variant> ExperimentPlan::variants() const {
    std::vector<Variant> out;
    for (std::size_t w = 0; w < workloads.size(); ++w) {
        if (workloads[w].concurrency.empty())
            out.push_back({w, 0});
        for (const int c : workloads[w].concurrency)
            out.push_back({w, c});
    }
    return out;
}

std::string ExperimentPlan::Arm::expand(const std::string& command) const {
    return ShellTemplate::expand(command, "{path}", path, "TIERSCOPE_PATH");
}

} // namespace tierscope
