#include "core/view/PhaseSections.h"

#include <QtTest>
#include <set>

using namespace tierscope;
using Kind = PhaseSections::Kind;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000, kT0 = 1'790'000'000LL * kSecond;

std::int64_t at(double seconds) {
    return kT0 + static_cast<std::int64_t>(seconds * 1e9);
}

RunInfo run(std::int64_t id, const std::string& arm, int repetition, const std::string& status,
            double from, double to, const std::string& summary = "{}") {
    RunInfo r;
    r.id = id;
    r.experiment = arm.empty() ? "" : "ab";
    r.arm = arm;
    r.workload = "load";
    r.repetition = repetition;
    r.status = status;
    r.startNs = at(from);
    r.endNs = at(to);
    r.summaryJson = summary;
    return r;
}

StoredEvent eventAt(double t, const std::string& kind, const std::string& text) {
    return {at(t), kind, text};
}

QStringList namesOf(const std::vector<PhaseSections::Section>& sections) {
    QStringList out;
    for (const auto& s : sections)
        out << QString::fromStdString(s.name);
    return out;
}

} // namespace

class TestPhaseSections : public QObject {
    Q_OBJECT
  private slots:
    void noRunsNoSections() {
        QVERIFY(PhaseSections::build({}, {eventAt(1, "engine-start", "A: pid 1")}).empty());
    }

    // `tierscope load --kv-restore`: a populate run whose summary reports the cache resets it
    // ran before it closed, then the measured run. Three groups: populate, reset (the populate
    // run's last 1.5 s, from its reset outcomes) and measured.
    void loadKvRestore() {
        const std::string populate =
            R"({"completed": 4, "median_ttft_ms": 812.5, "reset": [)"
            R"({"step": "reset_prefix_cache", "ok": true, "detail": "POST", "seconds": 0.5},)"
            R"({"step": "reset", "ok": true, "detail": "exit 0", "seconds": 1.0}]})";
        const auto groups =
            PhaseSections::build({run(8, "", 0, "completed", 20, 50, R"({"median_ttft_ms": 90})"),
                                  run(7, "", 0, "populate", 0, 20, populate)},
                                 {eventAt(-1, "record-start", ""), eventAt(60, "record-stop", "")});
        QCOMPARE(namesOf(groups), QStringList({"populate", "reset", "measured"}));
        QCOMPARE(groups[0].kind, Kind::Populate);
        QCOMPARE(groups[0].children.size(), std::size_t(1));
        QCOMPARE(groups[0].children[0].runId, std::int64_t(7));
        QCOMPARE(groups[0].t0Ns, at(0)); // the run's own span, reset included
        QCOMPARE(groups[0].t1Ns, at(20));
        QVERIFY(groups[0].children[0].detail.find("TTFT p50 812.5 ms") != std::string::npos);
        QCOMPARE(groups[1].kind, Kind::Reset);
        QCOMPARE(groups[1].children.size(), std::size_t(1));
        QCOMPARE(groups[1].children[0].runId, std::int64_t(0));
        QCOMPARE(groups[1].t0Ns, at(18.5));
        QCOMPARE(groups[1].t1Ns, at(20));
        QVERIFY(groups[1].children[0].detail.find("reset_prefix_cache ok") != std::string::npos);
        QCOMPARE(groups[2].kind, Kind::Measured);
        QCOMPARE(groups[2].children[0].runId, std::int64_t(8));
        QCOMPARE(groups[2].children[0].name, std::string("load"));
        QCOMPARE(groups[2].t0Ns, at(20));
        QCOMPARE(groups[2].t1Ns, at(50));
        // No reset outcomes (no --reset, no --reset-prefix-cache): no reset section.
        const auto plain =
            PhaseSections::build({run(7, "", 0, "populate", 0, 20, R"({"reset": []})"),
                                  run(8, "", 0, "completed", 20, 50)},
                                 {});
        QCOMPARE(namesOf(plain), QStringList({"populate", "measured"}));
    }

    // An A/B experiment, abba order, one warm-up a side and 3 repetitions: A B | B A | A B.
    // The engine restarts whenever the arm changes. The warm-ups are one group, each
    // repetition another (the arms interleave, so a group per arm would overlap the other's),
    // and the engine's stops and starts are steps between runs: a stop with the run before it,
    // a start with the run it started the engine for.
    void abExperiment() {
        // Each run 10 s; a gap of 6 s before it where the engine restarts.
        std::vector<RunInfo> runs;
        std::vector<StoredEvent> events{eventAt(0, "experiment-plan", "name = \"ab\"")};
        struct Step {
            std::string arm;
            int rep;
        };
        const std::vector<Step> steps{{"A", 0}, {"B", 0}, {"A", 1}, {"B", 1},
                                      {"B", 2}, {"A", 2}, {"A", 3}, {"B", 3}};
        double t = 0;
        std::string engine;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            const auto& s = steps[i];
            if (engine != s.arm) {
                if (!engine.empty())
                    events.push_back(eventAt(t + 1, "engine-stop", engine + ": pid 10"));
                events.push_back(eventAt(t + 5, "engine-start", s.arm + ": pid 11, vllm serve"));
                engine = s.arm;
            }
            const double start = t + 6;
            runs.push_back(run(static_cast<std::int64_t>(i + 1), s.arm, s.rep,
                               s.rep == 0 ? "warmup" : "completed", start, start + 10));
            t = start + 10;
        }
        events.push_back(eventAt(t + 1, "engine-stop", engine + ": pid 10"));
        events.push_back(eventAt(t + 2, "experiment-end", "ab"));
        const auto groups = PhaseSections::build(runs, events);
        QCOMPARE(namesOf(groups),
                 QStringList({"warm-up", "repetition 1", "repetition 2", "repetition 3"}));
        QCOMPARE(namesOf(groups[0].children),
                 QStringList({"engine start A", "warm-up A", "engine stop A", "engine start B",
                              "warm-up B", "engine stop B"}));
        QCOMPARE(
            namesOf(groups[1].children),
            QStringList({"engine start A", "A r1", "engine stop A", "engine start B", "B r1"}));
        QCOMPARE(namesOf(groups[2].children),
                 QStringList({"B r2", "engine stop B", "engine start A", "A r2"}));
        QCOMPARE(namesOf(groups[3].children),
                 QStringList({"A r3", "engine stop A", "engine start B", "B r3", "engine stop B"}));
        QCOMPARE(groups[0].kind, Kind::Warmup);
        QCOMPARE(groups[1].kind, Kind::Block);
        // The first engine start runs from the plan's start to its engine-start event.
        QCOMPARE(groups[0].children[0].kind, Kind::EngineStart);
        QCOMPARE(groups[0].children[0].t0Ns, at(0));
        QCOMPARE(groups[0].children[0].t1Ns, at(5));
        QCOMPARE(groups[0].children[0].arm, std::string("A"));
        // A run's section is exactly the run; a step fills the gap up to its event.
        const auto& a1 = groups[1].children[1];
        QCOMPARE(a1.runId, std::int64_t(3));
        QCOMPARE(a1.kind, Kind::Measured);
        QCOMPARE(a1.t0Ns, runs[2].startNs);
        QCOMPARE(a1.t1Ns, *runs[2].endNs);
        QCOMPARE(a1.repetition, 1);
        const auto& stopB = groups[0].children[5];
        QCOMPARE(stopB.t0Ns, *runs[1].endNs);
        QCOMPARE(stopB.t1Ns, *runs[1].endNs + kSecond);
        QCOMPARE(groups[1].children[0].t0Ns, stopB.t1Ns);
        // Groups follow each other without overlapping, from their first to their last step.
        for (std::size_t i = 0; i < groups.size(); ++i) {
            QCOMPARE(groups[i].t0Ns, groups[i].children.front().t0Ns);
            QCOMPARE(groups[i].t1Ns, groups[i].children.back().t1Ns);
            if (i > 0)
                QVERIFY(groups[i].t0Ns >= groups[i - 1].t1Ns);
            for (const auto& c : groups[i].children)
                QVERIFY(c.t1Ns >= c.t0Ns);
        }
        QCOMPARE(groups[2].detail, std::string("2 runs (A, B), 26.0 s"));
        // Every run is in exactly one section.
        std::set<std::int64_t> seen;
        for (const auto& g : groups)
            for (const auto& c : g.children)
                if (c.runId != 0)
                    QVERIFY(seen.insert(c.runId).second);
        QCOMPARE(seen.size(), runs.size());
    }

    // A cold-recovery experiment: each run's populate phase is a run of its own (status
    // "populate"), the measured run's summary holds the reset between them, which fills the
    // gap; an arm's reset before a plain load run is its last seconds before the run.
    void coldRecoveryAndResets() {
        const std::string measured =
            R"({"reset": [{"step": "reset", "ok": true, "seconds": 2.0}], "populate": {},)"
            R"( "validity": [{"name": "kv-read", "status": "fail", "detail": "no bytes"}]})";
        const auto groups = PhaseSections::build(
            {run(1, "A", 1, "populate", 0, 10), run(2, "A", 1, "completed", 13, 20, measured),
             run(3, "B", 1, "populate", 20, 30), run(4, "B", 1, "completed", 34, 40, measured),
             run(5, "A", 2, "completed", 50, 60,
                 R"({"reset": [{"step": "drop_caches", "ok": true, "seconds": 1.5}]})")},
            {});
        QCOMPARE(namesOf(groups), QStringList({"repetition 1", "repetition 2"}));
        QCOMPARE(namesOf(groups[0].children),
                 QStringList({"populate A r1", "reset A r1", "INVALID A r1", "populate B r1",
                              "reset B r1", "INVALID B r1"}));
        const auto& reset = groups[0].children[1];
        QCOMPARE(reset.kind, Kind::Reset);
        QCOMPARE(reset.t0Ns, at(10)); // the whole gap: reset, then the engine settles
        QCOMPARE(reset.t1Ns, at(13));
        QVERIFY(groups[0].invalid);
        QVERIFY(groups[0].children[2].detail.find("INVALID: no bytes") != std::string::npos);
        QCOMPARE(namesOf(groups[1].children), QStringList({"reset A r2", "A r2"}));
        QCOMPARE(groups[1].children[0].t0Ns, at(48.5));
        QCOMPARE(groups[1].children[0].t1Ns, at(50));
        QVERIFY(!groups[1].invalid);
    }

    // Several experiments in one session are told apart; a run still under way ends where it
    // began, and a plain session's runs are one "measured" group.
    void plainAndOpenRuns() {
        auto open = run(3, "", 0, "running", 30, 30);
        open.endNs.reset();
        const auto groups = PhaseSections::build(
            {run(1, "", 0, "completed", 0, 10), run(2, "", 0, "completed", 12, 20), open}, {});
        QCOMPARE(namesOf(groups), QStringList({"measured"}));
        QCOMPARE(groups[0].children.size(), std::size_t(3));
        QCOMPARE(groups[0].children[2].t1Ns, at(30));
        QVERIFY(groups[0].children[2].detail.find("running") != std::string::npos);
        auto other = run(5, "A", 1, "completed", 40, 50);
        other.experiment = "second";
        const auto two = PhaseSections::build({run(4, "A", 1, "completed", 0, 10), other}, {});
        QCOMPARE(namesOf(two), QStringList({"repetition 1 (ab)", "repetition 1 (second)"}));
    }
};

QTEST_APPLESS_MAIN(TestPhaseSections)
#include "tst_phasesections.moc"
