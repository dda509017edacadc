#include "core/compare/ComparisonBuilder.h"
#include "core/report/ComparisonReport.h"
#include "core/store/Store.h"
#include "experiments/ExperimentPlan.h"
#include "experiments/ExperimentRunner.h"
#include "experiments/RunSchedule.h"
#include "experiments/SweepRounds.h"
#include "simulator/EngineSimulator.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <atomic>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

using namespace tierscope;

namespace {

const char* kArms = R"(
name = "s"
repetitions = 2
[[arm]]
label = "A"
engine_url = "a.invalid"
[[arm]]
label = "B"
engine_url = "b.invalid"
)";

// Why the plan is refused; empty when it parses.
std::string refused(const std::string& text) {
    try {
        ExperimentPlan::parse(text);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return {};
}

} // namespace

// A plan's load sweep: its keys, its schedule, and a run of it against in-process simulators
// of known speed, where the capacity gate passes for a faster arm and not for an A/A.
class TestPlanSweep : public QObject {
    Q_OBJECT
  private slots:
    void sweepKeysParse() {
        const auto plan = ExperimentPlan::parse(std::string(kArms) + R"(
[[workload]]
kind = "load"
requests = 20
sweep_rates = [4, 1, 2.5]
slo = ["ttft_p99<=2s", "tpot_p99 <= 100ms"]
bisect_steps = 2
[[workload]]
kind = "load"
dataset = "shared-prefix"
sweep_concurrency = [1, 16]
)");
        QCOMPARE(plan.workloads.size(), std::size_t(2));
        const auto& rate = *plan.workloads[0].sweep;
        QVERIFY(rate.rate);
        QCOMPARE(std::string(rate.mode()), std::string("rate"));
        QCOMPARE(rate.points, (std::vector<double>{1, 2.5, 4})); // ascending
        QCOMPARE(rate.slos.size(), std::size_t(2));
        QCOMPARE(rate.slos[1].kpi, std::string("tpot_p99"));
        QCOMPARE(rate.slos[1].threshold, 0.1);
        QCOMPARE(rate.bisectSteps, 2);
        QVERIFY(!plan.workloads[0].params.count("sweep_rates")); // not a generator parameter
        QCOMPARE(plan.workloads[0].params.at("requests"), std::string("20"));
        const auto& conc = *plan.workloads[1].sweep;
        QVERIFY(!conc.rate);
        QCOMPARE(conc.points, (std::vector<double>{1, 16}));
        QVERIFY(conc.slos.empty());
        QCOMPARE(conc.bisectSteps, 3);
        // One variant each: the sweep's points are its runs' parameters, not variants.
        QCOMPARE(plan.variants().size(), std::size_t(2));
    }

    void nonsenseCombinationsAreRefusedWithTheirLine() {
        const std::vector<std::pair<std::string, std::string>> cases = {
            {"sweep_rates = [1]\nsweep_concurrency = [2]\n", "line 13: give sweep_rates"},
            {"sweep_rates = [1, 2]\nconcurrency = 4\n", "line 13: concurrency does not go with "
                                                        "a sweep"},
            {"sweep_rates = [1, 2]\nrate = 4\n", "line 13: rate does not go with a sweep"},
            {"slo = [\"ttft_p99<=2s\"]\n", "line 12: slo needs sweep_rates or sweep_concurrency"},
            {"sweep_rates = [1]\nbisect_steps = 2\n", "line 13: bisect_steps goes with slo"},
            {"sweep_rates = [1]\nslo = [\"ttft_p99<=2s\"]\nbisect_steps = 99\n",
             "line 14: bisect_steps is a whole number from 0 to 20"},
            {"sweep_rates = [1, 0]\n", "line 12: sweep_rates is a list of request rates above 0"},
            {"sweep_rates = []\n", "line 12: sweep_rates is a list"},
            {"sweep_concurrency = [1.5]\n", "line 12: sweep_concurrency is a list of whole"},
            {"sweep_rates = [2, 2]\n", "line 12: sweep_rates gives a point twice"},
            {"sweep_rates = [1]\nslo = [\"ttft_p99 < 2s\"]\n", "line 13: slo: an SLO reads"},
            {"sweep_rates = [1]\nslo = [\"max_rate_at_slo>=2\"]\n", "line 13: slo: "},
            {"sweep_rates = [1]\nslo = \"ttft_p99<=2s\"\n", "line 13: slo is a list"},
            {"sweep_rates = [1]\ndataset = \"trace\"\ntrace = \"t.jsonl\"\n"
             "trace_format = \"mooncake\"\n",
             "line 12: a trace sends each request at its own time"},
        };
        for (const auto& [keys, says] : cases) {
            const auto why = refused(std::string(kArms) + "[[workload]]\nkind = \"load\"\n" + keys);
            QVERIFY2(why.find(says) != std::string::npos, (keys + " -> " + why).c_str());
        }
        // A sweep key on another workload kind is an unknown key there.
        const auto other =
            refused(std::string(kArms) + "[[workload]]\nkind = \"model-load\"\nslo = [\"x\"]\n");
        QVERIFY2(other.find("unknown key \"slo\"") != std::string::npos, other.c_str());
        // A sweep's points and probes count towards the plan's limit on runs: 2 arms x 30,000
        // repetitions x (4 points + 3 probes) is 420,000.
        std::string many = kArms;
        many.replace(many.find("repetitions = 2"), 15, "repetitions = 30000");
        const auto tooMany =
            refused(many + "[[workload]]\nkind = \"load\"\nsweep_rates = [1, 2, 3, 4]\n"
                           "slo = [\"ttft_p99<=2s\"]\n");
        QVERIFY2(tooMany.find("plan: 420000 runs") == 0, tooMany.c_str());
        // An SLO needs two repetitions: one run has no interval.
        std::string once = kArms;
        once.replace(once.find("repetitions = 2"), 15, "repetitions = 1");
        const auto single =
            refused(once + "[[workload]]\nkind = \"load\"\nsweep_rates = [1]\nslo = "
                           "[\"ttft_p99<=2s\"]\n");
        QVERIFY2(single.find("line 13: slo needs repetitions = 2 or more") != std::string::npos,
                 single.c_str());
    }

    // Repetition 1 of every point, then repetition 2, each point's arms in abba order; the
    // warm-up at the lowest point.
    void theScheduleInterleavesPointsAndArms() {
        std::string text = kArms;
        text.replace(text.find("repetitions"), 0, "warmup = 1\n");
        const auto plan = ExperimentPlan::parse(
            text + "[[workload]]\nkind = \"load\"\nsweep_concurrency = [4, 1]\n");
        const auto runs = RunSchedule::build(plan);
        const std::vector<std::tuple<std::size_t, double, int, bool>> want = {
            {0, 1, 0, true},  {1, 1, 0, true}, // warm-up, lowest point
            {0, 1, 1, false}, {1, 1, 1, false}, {0, 4, 1, false}, {1, 4, 1, false},
            {1, 1, 2, false}, {0, 1, 2, false}, {1, 4, 2, false}, {0, 4, 2, false}};
        QCOMPARE(runs.size(), want.size());
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const auto& [arm, point, rep, warmup] = want[i];
            QCOMPARE(runs[i].arm, arm);
            QCOMPARE(runs[i].sweepPoint, point);
            QCOMPARE(runs[i].repetition, rep);
            QCOMPARE(runs[i].warmup, warmup);
            QCOMPARE(runs[i].sweepRound, 0);
        }
    }

    // After the grid's last run, each arm whose points bracket a capacity probes the midpoint,
    // read back from its stored runs: A held at 1 and 4 and failed at 16, so it probes 10 (a
    // whole concurrency); B held everywhere and probes nothing. Mid-round, nothing is added.
    void bisectionRoundsFollowEachArmsBracket() {
        const auto plan = ExperimentPlan::parse(std::string(kArms) +
                                                "[[workload]]\nkind = \"load\"\n"
                                                "sweep_concurrency = [1, 4, 16]\n"
                                                "slo = [\"ttft_p50<=1s\"]\nbisect_steps = 2\n");
        QTemporaryDir dir;
        Store store(dir.filePath("r.db").toStdString(), Store::Mode::ReadWrite);
        const auto session = store.createSession(SessionInfo{});
        const auto schedule = RunSchedule::build(plan);
        for (const auto& s : schedule) {
            const bool slow = s.arm == 0 && s.sweepPoint >= 16;
            const nlohmann::json params = {{"rate", 0},
                                           {"concurrency", s.sweepPoint},
                                           {"sweep_mode", "concurrency"},
                                           {"sweep_point", "c"},
                                           {"slo", {"ttft_p50<=1s"}}};
            const auto run = store.createRun(session, "load", params.dump(), 1, "s/load",
                                             plan.arms[s.arm].label, s.repetition);
            std::vector<RequestRecord> requests(3);
            for (auto& r : requests) {
                r.httpStatus = 200;
                r.ttftS = (slow ? 5.0 : 0.1) + 0.01 * s.repetition;
            }
            store.addRequests(run, requests);
            store.finishRun(run, 2, "completed", "{}");
        }
        const std::size_t last = schedule.size() - 1;
        QVERIFY(SweepRounds::next(plan, schedule, last - 1, "s/load", store, session).empty());
        const auto round = SweepRounds::next(plan, schedule, last, "s/load", store, session);
        QCOMPARE(round.size(), std::size_t(2)); // A's probe, both repetitions
        for (std::size_t i = 0; i < round.size(); ++i) {
            QCOMPARE(round[i].arm, std::size_t(0));
            QCOMPARE(round[i].sweepPoint, 10.0);
            QCOMPARE(round[i].sweepRound, 1);
            QCOMPARE(round[i].repetition, static_cast<int>(i) + 1);
            QVERIFY(!round[i].warmup);
        }
        QCOMPARE(SweepRounds::probe(*plan.workloads[0].sweep, store, "s/load", "B", session),
                 std::optional<double>());
    }

    void theShippedSweepPlanParses() {
        QFile f(QStringLiteral(TIERSCOPE_FIXTURES "/../../resources/plans/capacity-sweep.toml"));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto plan = ExperimentPlan::parse(f.readAll().toStdString());
        QVERIFY(plan.workloads.at(0).sweep);
        QVERIFY(!plan.workloads.at(0).sweep->slos.empty());
    }

    // Three arms against three simulators: "slow" and "slow-again" serve one request at a
    // time and prefill 10 words in 80 ms; "fast" serves four at a time and prefills in 4 ms.
    // Closed loop, 16 requests a run, and the SLO bounds the median TTFT: what decides the
    // verdicts is the queue the concurrency makes, not a timing. With c users on one slot of
    // service S, a request waits for the c - 1 before it: TTFT is about c x S.
    // - a slow arm fails at 8 and above: the first 8 requests wait 0, S, ..., 7 S and the
    //   others 7 S, so the median is >= 8 x 80 ms = 0.64 s, over the 0.5 s SLO however the
    //   machine is loaded (a busy machine only lengthens S);
    // - a slow arm holds at 1: nothing waits, TTFT is its 80 ms prefill;
    // - the fast arm holds at 16: four waves of 4 ms (plus the client's own time), far under.
    // So slow brackets its capacity below 10 (the grid's 1, 4, 16, then one bisection probe at
    // 2 or 10), fast holds at 16, its highest point (the capacity is above it), and the
    // interval's lower end is >= 16 / 10 - 1 = +60 %: the gate ">= +50 %" passes. The A/A
    // pair (slow against slow-again) cannot pass it: neither holds at a point where the other
    // fails. An open loop would count the client's late sends on a busy machine in every TTFT
    // after a stall (from the scheduled send, as vLLM does), which no bound can rule out; the
    // rate sweep's capacity and gate are checked on stored runs (tst_sweepcapacity).
    void aFasterArmPassesTheCapacityGateAndAnAADoesNot() {
        EngineSimulator::Options slowOptions;
        slowOptions.maxConcurrency = 1;
        slowOptions.prefillTokensPerS = 125;
        slowOptions.decodeTokensPerS = 10000;
        slowOptions.threads = 64;
        slowOptions.closeConnections = true;
        auto fastOptions = slowOptions;
        fastOptions.maxConcurrency = 4;
        fastOptions.prefillTokensPerS = 2500;
        EngineSimulator slow(slowOptions), fast(fastOptions), slowAgain(slowOptions);
        auto url = [](EngineSimulator& sim) {
            return "http://127.0.0.1:" + std::to_string(sim.start());
        };
        std::string text = R"(
name = "cap"
repetitions = 3
gates = ["max_concurrency_at_slo >= +50%"]
[[arm]]
label = "slow"
engine_url = "SLOW"
[[arm]]
label = "fast"
engine_url = "FAST"
[[arm]]
label = "slow-again"
engine_url = "AGAIN"
[[workload]]
kind = "load"
requests = 16
input_len = 10
output_len = 2
sweep_concurrency = [1, 4, 16]
slo = ["ttft_p50<=0.5s"]
bisect_steps = 1
)";
        for (auto [name, sim] : {std::pair{"SLOW", &slow}, {"FAST", &fast}, {"AGAIN", &slowAgain}})
            text.replace(text.find(name), std::string(name).size(), url(*sim));
        const auto plan = ExperimentPlan::parse(text);
        QTemporaryDir dir;
        ExperimentRunner::Options options;
        options.dbPath = dir.filePath("x.db").toStdString();
        options.planText = text;
        std::atomic<bool> cancel{false};
        ExperimentRunner runner(plan, options, {});
        const auto result = runner.run(cancel);
        QCOMPARE(result.failed, 0);
        QVERIFY(!result.incomplete);

        Store store(options.dbPath, Store::Mode::ReadWrite);
        const auto runs = store.runsOfSession(result.sessionId);
        // The grid: 3 points x 3 arms x 3 repetitions, the point ascending within a
        // repetition; then each arm's one bisection probe, 3 repetitions, where its points
        // bracket a capacity (the fast arm's do only if it failed at 16).
        std::vector<RunInfo> load;
        for (const auto& r : runs)
            if (r.experiment == "cap/load")
                load.push_back(r);
        QVERIFY2(load.size() >= 27, std::to_string(load.size()).c_str());
        std::set<std::string> arms;
        std::size_t bisection = 0;
        for (std::size_t i = 0; i < load.size(); ++i) {
            const auto p = nlohmann::json::parse(load[i].paramsJson);
            arms.insert(load[i].arm);
            QCOMPARE(p["sweep_mode"].get<std::string>(), std::string("concurrency"));
            QCOMPARE(p["slo"], nlohmann::json({"ttft_p50<=0.5s"}));
            QCOMPARE(p["rate"].get<double>(), 0.0);
            const int c = p["concurrency"].get<int>();
            QCOMPARE(p["sweep_point"].get<std::string>(), "c" + std::to_string(c));
            if (i < 27) {
                const int grid[] = {1, 4, 16};
                QCOMPARE(c, grid[(i / 3) % 3]);
                QCOMPARE(load[i].repetition, static_cast<int>(i / 9) + 1);
                QCOMPARE(p["sweep_probe"].get<std::string>(), std::string("grid"));
            } else {
                ++bisection;
                QCOMPARE(p["sweep_probe"].get<std::string>(), std::string("bisection"));
                QVERIFY(c > 1 && c < 16);
            }
        }
        QCOMPARE(arms, (std::set<std::string>{"slow", "fast", "slow-again"}));
        QVERIFY(bisection % 3 == 0 && bisection <= 9);

        const auto all = ExperimentRunner::compare(store, plan, false, result.sessionId);
        QCOMPARE(all.size(), std::size_t(2));
        const auto& ab = all[0];
        const auto report = ComparisonReport::text(ab);
        QVERIFY2(ab.invalid.empty(), report.c_str());
        QCOMPARE(ab.gates.size(), std::size_t(1));
        QVERIFY2(ab.gates[0].second.verdict == Gate::Verdict::Pass, report.c_str());
        QCOMPARE(ab.kpis.size(), std::size_t(1));
        const auto& k = ab.kpis[0];
        QCOMPARE(k.name, std::string("max_concurrency_at_slo"));
        QVERIFY2(k.a >= 1 && k.a < 8 && k.b > k.a, report.c_str());
        if (k.b == 16) // fast held at its highest point: no upper bound
            QVERIFY(std::isinf(k.relativeInterval()->hi));
        QCOMPARE(ab.curves.size(), std::size_t(2));
        QCOMPARE(ab.curves[1].mode, std::string("concurrency"));
        QCOMPARE(ab.curves[1].points.front().load, 1.0);
        QVERIFY(ab.curves[1].points.front().kpis.count("request_throughput"));
        // The same figure in the JSON and the text.
        const auto json = nlohmann::json::parse(ComparisonReport::json(ab));
        QCOMPARE(json["kpis"][0]["a"].get<double>(), k.a);
        QCOMPARE(json["kpis"][0]["b"].get<double>(), k.b);
        QCOMPARE(json["kpis"][0]["ci95_change"][0].get<double>(), k.relativeInterval()->lo);
        QVERIFY2(report.find(ComparisonReport::changeCell(k)) != std::string::npos, report.c_str());
        QVERIFY2(report.find(ComparisonReport::intervalCell(k)) != std::string::npos,
                 report.c_str());

        const auto& aa = all[1];
        const auto aaReport = ComparisonReport::text(aa);
        QCOMPARE(aa.gates.size(), std::size_t(1));
        QVERIFY2(aa.gates[0].second.verdict != Gate::Verdict::Pass, aaReport.c_str());
        if (!aa.kpis.empty()) {
            const auto r = *aa.kpis[0].relativeInterval();
            QVERIFY2(r.lo <= 0 && r.hi >= 0, aaReport.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestPlanSweep)
#include "tst_plansweep.moc"
