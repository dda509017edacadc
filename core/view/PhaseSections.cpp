#include "core/view/PhaseSections.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>

namespace tierscope {

namespace {

using Kind = PhaseSections::Kind;
using Section = PhaseSections::Section;

// A section with the group it joins: consecutive sections of one key are one group.
struct Leaf {
    Section section;
    std::string key;
    std::string groupName;
    Kind groupKind = Kind::Measured;
};

std::string secondsText(std::int64_t ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f s", static_cast<double>(ns) / 1e9);
    return text;
}

std::string msText(double ms) {
    char text[32];
    std::snprintf(text, sizeof text, "%.4g ms", ms);
    return text;
}

std::string armOf(const RunInfo& run) {
    return run.arm.empty() ? run.workload : run.arm;
}

std::string repText(int repetition) {
    return repetition > 0 ? " r" + std::to_string(repetition) : std::string();
}

// The name every section of a run's group carries: the warm-ups together, an experiment's runs
// by repetition (its arms interleave in one), a load's runs by phase.
void placeInGroup(Leaf& leaf, const RunInfo& run, bool severalExperiments) {
    const std::string of =
        severalExperiments && !run.experiment.empty() ? " (" + run.experiment + ")" : std::string();
    // A warm-up cold-recovery run stores its populate phase as repetition 0 too.
    if (run.status == "warmup" ||
        (run.status == "populate" && !run.arm.empty() && run.repetition == 0)) {
        leaf.key = "warmup|" + run.experiment;
        leaf.groupName = "warm-up" + of;
        leaf.groupKind = Kind::Warmup;
    } else if (!run.arm.empty() && run.repetition > 0) {
        leaf.key = "rep|" + run.experiment + "|" + std::to_string(run.repetition);
        leaf.groupName = "repetition " + std::to_string(run.repetition) + of;
        leaf.groupKind = Kind::Block;
    } else if (run.status == "populate") {
        leaf.key = "populate";
        leaf.groupName = "populate";
        leaf.groupKind = Kind::Populate;
    } else {
        leaf.key = "measured";
        leaf.groupName = "measured";
        leaf.groupKind = Kind::Measured;
    }
}

bool inExperimentGroup(const Leaf& leaf) {
    return leaf.groupKind == Kind::Block || leaf.groupKind == Kind::Warmup;
}

Section runSection(const RunInfo& run) {
    Section s;
    s.t0Ns = run.startNs;
    s.t1Ns = std::max(run.startNs, run.endNs.value_or(run.startNs));
    s.runId = run.id;
    s.arm = armOf(run);
    s.repetition = run.repetition;
    s.status = run.status;
    if (run.status == "populate") {
        s.kind = Kind::Populate;
        s.name = "populate " + s.arm + repText(run.repetition);
    } else if (run.status == "warmup") {
        s.kind = Kind::Warmup;
        s.name = "warm-up " + s.arm;
    } else {
        s.kind = Kind::Measured;
        s.name = s.arm + repText(run.repetition);
        if (run.status == "failed" || run.status == "cancelled")
            s.name += " (" + run.status + ")";
    }
    s.detail = "run " + std::to_string(run.id) + ": " +
               (run.experiment.empty() ? std::string() : run.experiment + " ") + run.workload +
               ", " + (run.endNs ? run.status : std::string("running")) + ", " +
               secondsText(s.t1Ns - s.t0Ns);
    const auto summary = nlohmann::json::parse(run.summaryJson, nullptr, false);
    if (!summary.is_object())
        return s;
    const auto number = [&summary](const char* key) -> std::optional<double> {
        const auto it = summary.find(key);
        return it != summary.end() && it->is_number() ? std::optional(it->get<double>())
                                                      : std::nullopt;
    };
    if (const auto completed = number("completed"))
        s.detail += "\n" + std::to_string(static_cast<long>(*completed)) + " requests completed";
    if (const auto p50 = number("median_ttft_ms")) {
        s.detail += "\nTTFT p50 " + msText(*p50);
        if (const auto p99 = number("p99_ttft_ms"))
            s.detail += ", p99 " + msText(*p99);
    }
    if (const auto it = summary.find("validity"); it != summary.end() && it->is_array())
        for (const auto& check : *it)
            if (check.is_object() && check.value("status", "") == "fail") {
                s.invalid = true;
                s.detail += "\nINVALID: " + check.value("detail", std::string());
            }
    if (s.invalid)
        s.name = "INVALID " + s.name;
    return s;
}

// The steps of a run's "reset" outcomes, one line each.
std::string resetDetail(const std::string& summaryJson) {
    std::string out = "cache reset";
    const auto summary = nlohmann::json::parse(summaryJson, nullptr, false);
    if (!summary.is_object() || !summary.contains("reset") || !summary["reset"].is_array())
        return out;
    for (const auto& step : summary["reset"])
        if (step.is_object())
            out += "\n" + step.value("step", std::string("reset")) +
                   (step.value("ok", false) ? " ok" : " failed") + ", " +
                   secondsText(static_cast<std::int64_t>(step.value("seconds", 0.0) * 1e9));
    return out;
}

bool isEngineEvent(const StoredEvent& e) {
    return e.kind == "engine-start" || e.kind == "engine-stop";
}

// Builds the leaves in time order: each run, and before it what happened in the gap since the
// run before (engine stops and starts, then the run's cache reset).
class LeafBuilder {
  public:
    LeafBuilder(std::vector<RunInfo> runs, const std::vector<StoredEvent>& events)
        : m_runs(std::move(runs)) {
        std::stable_sort(m_runs.begin(), m_runs.end(), [](const RunInfo& a, const RunInfo& b) {
            return a.startNs != b.startNs ? a.startNs < b.startNs : a.id < b.id;
        });
        std::set<std::string> experiments;
        for (const auto& r : m_runs)
            experiments.insert(r.experiment);
        m_severalExperiments = experiments.size() > 1;
        for (const auto& e : events)
            if (isEngineEvent(e))
                m_engine.push_back(e);
            // Where an experiment began: the first arm's setup and engine start run from here.
            else if ((e.kind == "experiment-plan" || e.kind == "record-start") &&
                     (m_runs.empty() || e.tNs <= m_runs.front().startNs))
                m_cursor = std::max(m_cursor.value_or(e.tNs), e.tNs);
        std::stable_sort(m_engine.begin(), m_engine.end(),
                         [](const auto& a, const auto& b) { return a.tNs < b.tNs; });
    }

    std::vector<Leaf> build() {
        for (std::size_t i = 0; i < m_runs.size(); ++i) {
            const RunInfo& run = m_runs[i];
            Leaf leaf;
            leaf.section = runSection(run);
            placeInGroup(leaf, run, m_severalExperiments);
            engineSteps(run.startNs, &leaf);
            resetBefore(i, leaf);
            m_out.push_back(leaf);
            resetAfterPopulate(run, leaf);
            m_cursor = std::max(m_cursor.value_or(leaf.section.t1Ns), leaf.section.t1Ns);
        }
        engineSteps(std::numeric_limits<std::int64_t>::max(), nullptr); // the last engine stop
        return std::move(m_out);
    }

  private:
    // Engine events up to `until`, each a section from the step before it; a start joins the
    // group of the run it started the engine for, a stop that of the run before it.
    void engineSteps(std::int64_t until, const Leaf* next) {
        for (; m_nextEngine < m_engine.size() && m_engine[m_nextEngine].tNs <= until;
             ++m_nextEngine) {
            const StoredEvent& e = m_engine[m_nextEngine];
            if (m_cursor && e.tNs < *m_cursor)
                continue; // inside a run: not a step between runs
            const bool start = e.kind == "engine-start";
            const Leaf* owner = start && next ? next : !m_out.empty() ? &m_out.back() : next;
            if (!m_cursor || !owner) {
                m_cursor = e.tNs; // no known beginning: the next step begins here
                continue;
            }
            Leaf leaf;
            leaf.key = owner->key;
            leaf.groupName = owner->groupName;
            leaf.groupKind = owner->groupKind;
            Section& s = leaf.section;
            s.kind = start ? Kind::EngineStart : Kind::EngineStop;
            s.arm = e.text.substr(0, e.text.find(':'));
            s.name = (start ? "engine start " : "engine stop ") + s.arm;
            s.t0Ns = *m_cursor;
            s.t1Ns = e.tNs;
            s.detail = start ? "the arm's setup and engine start, until its engine answered"
                             : "the arm's engine stopped";
            s.detail += "\n" + e.kind + ": " + e.text.substr(0, 200);
            m_out.push_back(std::move(leaf));
            m_cursor = e.tNs;
        }
    }

    // A reset before the run (an arm's reset steps, or a cold-recovery run's reset between its
    // populate phase and the measured questions): what is left of the gap before it, at most
    // the reset's own length unless it follows its populate phase, which ends where it began.
    void resetBefore(std::size_t i, const Leaf& run) {
        const std::int64_t length = PhaseSections::resetNs(m_runs[i].summaryJson);
        if (length <= 0 || m_runs[i].status == "populate" || m_resetAfterPrevious)
            return;
        const std::int64_t start = run.section.t0Ns;
        const bool afterPopulate = i > 0 && m_runs[i - 1].status == "populate" &&
                                   m_runs[i - 1].arm == m_runs[i].arm &&
                                   m_runs[i - 1].repetition == m_runs[i].repetition;
        const std::int64_t from = afterPopulate && m_cursor
                                      ? *m_cursor
                                      : std::max(m_cursor.value_or(start - length), start - length);
        if (from >= start)
            return;
        m_out.push_back(resetLeaf(run, from, start, m_runs[i].summaryJson));
    }

    // `load --kv-restore` resets the caches before it closes its populate run: the reset is the
    // run's last seconds.
    void resetAfterPopulate(const RunInfo& run, const Leaf& populate) {
        m_resetAfterPrevious = false;
        const std::int64_t length = PhaseSections::resetNs(run.summaryJson);
        if (run.status != "populate" || length <= 0)
            return;
        const std::int64_t end = populate.section.t1Ns;
        const std::int64_t from = std::max(populate.section.t0Ns, end - length);
        if (from >= end)
            return;
        m_out.push_back(resetLeaf(populate, from, end, run.summaryJson));
        m_resetAfterPrevious = true;
    }

    static Leaf resetLeaf(const Leaf& run, std::int64_t from, std::int64_t to,
                          const std::string& summaryJson) {
        Leaf leaf;
        Section& s = leaf.section;
        s.kind = Kind::Reset;
        s.arm = run.section.arm;
        s.repetition = run.section.repetition;
        s.t0Ns = from;
        s.t1Ns = to;
        s.detail = resetDetail(summaryJson);
        if (inExperimentGroup(run)) { // a step of the repetition it belongs to
            leaf.key = run.key;
            leaf.groupName = run.groupName;
            leaf.groupKind = run.groupKind;
            s.name = "reset " + s.arm + repText(s.repetition);
        } else {
            leaf.key = "reset";
            leaf.groupName = "reset";
            leaf.groupKind = Kind::Reset;
            s.name = "reset";
        }
        return leaf;
    }

    std::vector<RunInfo> m_runs;
    std::vector<StoredEvent> m_engine;
    std::size_t m_nextEngine = 0;
    bool m_severalExperiments = false;
    bool m_resetAfterPrevious = false;
    std::optional<std::int64_t> m_cursor; // where the step after the last one begins
    std::vector<Leaf> m_out;
};

std::string groupDetail(const Section& group) {
    std::size_t runs = 0;
    std::set<std::string> arms;
    for (const auto& c : group.children)
        if (c.runId != 0) {
            ++runs;
            arms.insert(c.arm);
        }
    std::string names;
    for (const auto& a : arms)
        names += (names.empty() ? "" : ", ") + a;
    return std::to_string(runs) + (runs == 1 ? " run" : " runs") +
           (names.empty() ? std::string() : " (" + names + ")") + ", " +
           secondsText(group.t1Ns - group.t0Ns);
}

} // namespace

std::vector<Section> PhaseSections::build(const std::vector<RunInfo>& runs,
                                          const std::vector<StoredEvent>& events) {
    std::vector<Section> out;
    if (runs.empty())
        return out;
    std::string key; // of the last group
    for (auto& leaf : LeafBuilder(runs, events).build()) {
        if (out.empty() || leaf.key != key) {
            Section group;
            group.name = leaf.groupName;
            group.kind = leaf.groupKind;
            group.t0Ns = leaf.section.t0Ns;
            group.t1Ns = leaf.section.t1Ns;
            out.push_back(std::move(group));
            key = leaf.key;
        }
        Section& group = out.back();
        group.t0Ns = std::min(group.t0Ns, leaf.section.t0Ns);
        group.t1Ns = std::max(group.t1Ns, leaf.section.t1Ns);
        group.invalid = group.invalid || leaf.section.invalid;
        group.children.push_back(std::move(leaf.section));
    }
    for (auto& group : out)
        group.detail = groupDetail(group);
    return out;
}

std::int64_t PhaseSections::resetNs(const std::string& summaryJson) {
    const auto summary = nlohmann::json::parse(summaryJson, nullptr, false);
    if (!summary.is_object() || !summary.contains("reset") || !summary["reset"].is_array())
        return 0;
    double seconds = 0;
    for (const auto& step : summary["reset"])
        if (step.is_object() && step.contains("seconds") && step["seconds"].is_number())
            seconds += step["seconds"].get<double>();
    return static_cast<std::int64_t>(seconds * 1e9);
}

} // namespace tierscope
