#include "TestSupport.h"
#include "experiments/ExperimentPlan.h"
#include "experiments/RunSchedule.h"
#include "experiments/ShellCommand.h"

#include <QFile>
#include <QtTest>
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

using namespace tierscope;

namespace {

const char* kPlan = R"(
name = "p"
repetitions = 2
warmup = 1
gates = ["ttft_p50 <= -25%"]

[[arm]]
label = "A"
path = "/a"
timeout = "5s"
env = { X = "1", N = 2 }

[[arm]]
label = "B"
path = "/b"

[[workload]]
kind = "kv-restore"
tokens = 1024
concurrency = [4, 8]

[[workload]]
kind = "model-load"
)";

} // namespace

class TestExperimentPlan : public QObject {
    Q_OBJECT
    // Why the plan is refused; empty when it parses.
    static std::string refused(const std::string& text) {
        try {
            ExperimentPlan::parse(text);
        } catch (const std::runtime_error& e) {
            return std::string(e.what());
        }
        return std::string();
    }

  private slots:
    // Found by the fuzzer: `workload = ["E"]` is an array of strings, and was dereferenced as
    // a table.
    void arraysOfNonTablesAreRejected() {
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, ExperimentPlan::parse(test::fixture(
                                                         "plans/crash-workload-not-a-table.toml")));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, ExperimentPlan::parse("arm = [1, 2]\n"));
    }

    void parsesArmsWorkloadsAndSweeps() {
        const auto plan = ExperimentPlan::parse(kPlan);
        QCOMPARE(plan.name, std::string("p"));
        QCOMPARE(plan.arms.size(), std::size_t(2));
        QCOMPARE(plan.arms[0].timeout, std::chrono::milliseconds(5000));
        QCOMPARE(plan.arms[0].env.at("N"), std::string("2"));
        QCOMPARE(plan.workloads[0].params.at("tokens"), std::string("1024"));
        QCOMPARE(plan.workloads[0].concurrency, (std::vector<int>{4, 8}));
        QCOMPARE(plan.variants().size(), std::size_t(3)); // c4, c8, and model-load's default
        QCOMPARE(plan.gates, std::vector<std::string>{"ttft_p50 <= -25%"});
    }

    void parsesEngineLifecycleKeys() {
        // (Not a raw string: moc would read the URLs' "//" as comments.)
        const std::string arms = "[[arm]]\n"
                                 "label = \"A\"\n"
                                 "engine_url = \"http://127.0.0.1:8000\"\n"
                                 "engine_start = \"vllm serve m\"\n"
                                 "ready_timeout = \"20m\"\n"
                                 "engine_stop_grace = \"5s\"\n"
                                 "engine_restart = \"run\"\n"
                                 "[[arm]]\n"
                                 "label = \"B\"\n"
                                 "engine_start = \"vllm serve m\"\n"
                                 "engine_ready = \"http://127.0.0.1:8000/health\"\n"
                                 "[[workload]]\n"
                                 "kind = \"load\"\n";
        const auto plan = ExperimentPlan::parse(arms);
        const auto& a = plan.arms[0];
        QCOMPARE(a.engineStart, std::string("vllm serve m"));
        QCOMPARE(a.readyTimeout, std::chrono::milliseconds(20 * 60 * 1000));
        QCOMPARE(a.engineStopGrace, std::chrono::milliseconds(5000));
        QVERIFY(a.engineRestart == ExperimentPlan::Arm::EngineRestart::Run);
        QVERIFY(a.engineReady.empty());
        const auto& b = plan.arms[1];
        QCOMPARE(b.engineReady, std::string("http://127.0.0.1:8000/health"));
        QCOMPARE(b.readyTimeout, std::chrono::milliseconds(15 * 60 * 1000)); // a model's load
        QVERIFY(b.engineRestart == ExperimentPlan::Arm::EngineRestart::Arm);
        auto refused = [&](const std::string& from, const std::string& to, const char* says) {
            std::string text = arms;
            text.replace(text.find(from), from.size(), to);
            try {
                ExperimentPlan::parse(text);
            } catch (const std::runtime_error& e) {
                return std::string(e.what()).find(says) != std::string::npos;
            }
            return false;
        };
        QVERIFY(refused("\"run\"", "\"always\"", "engine_restart is run or arm"));
        QVERIFY(refused("\"20m\"", "\"soon\"", "line 5: ready_timeout must be a duration"));
        QVERIFY(refused("\"5s\"", "5", "engine_stop_grace must be a duration"));
        // Without a URL the runner could not know when the engine is ready.
        QVERIFY(refused("engine_ready = \"http://127.0.0.1:8000/health\"", "",
                        "engine_start needs engine_url or engine_ready"));
        QVERIFY(refused("\"http://127.0.0.1:8000/health\"", "\"/health\"", // a path on no URL
                        "engine_start needs engine_url or engine_ready"));
    }

    void interleavesArmsWithWarmupFirst() {
        const auto plan = ExperimentPlan::parse("order = \"interleaved\"\n" + std::string(kPlan));
        const auto order = RunSchedule::build(plan);
        QCOMPARE(order.size(), std::size_t(3 * 3 * 2)); // variants x (warm-up + 2) x arms
        QVERIFY(order[0].warmup && order[1].warmup);
        QCOMPARE(order[0].arm, std::size_t(0));
        QCOMPARE(order[1].arm, std::size_t(1));
        QCOMPARE(order[2].repetition, 1);
        QCOMPARE(order[4].repetition, 2);
        QCOMPARE(order[4].arm, std::size_t(0)); // A B A B
        QCOMPARE(order[5].arm, std::size_t(1));
        QCOMPARE(order[6].variant.concurrency, 8);
    }

    // The default: A B, then B A, from the first measured repetition on, so a linear drift
    // adds the same to both arms' means over every two repetitions.
    void abbaIsTheDefaultAndCancelsALinearDrift() {
        const auto plan = ExperimentPlan::parse(kPlan);
        QCOMPARE(plan.order, ExperimentPlan::Order::Abba);
        const auto order = RunSchedule::build(plan);
        std::vector<std::size_t> firstVariant;
        for (std::size_t i = 0; i < 6; ++i)
            firstVariant.push_back(order[i].arm);
        // warm-up A B, then measured A B, B A
        QCOMPARE(firstVariant, (std::vector<std::size_t>{0, 1, 0, 1, 1, 0}));
        // A drift of one unit per run slot: each arm's measured mean gets the same offset.
        double drift[2] = {0, 0};
        for (std::size_t i = 0; i < order.size(); ++i)
            if (!order[i].warmup && order[i].variant.workload == 0 &&
                order[i].variant.concurrency == 4)
                drift[order[i].arm] += static_cast<double>(i);
        QCOMPARE(drift[0], drift[1]);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                                 ExperimentPlan::parse("order = \"aabb\"\n" + std::string(kPlan)));
    }

    void gatesOnUnknownKpisAreRefused() {
        try {
            ExperimentPlan::parse("gates = [\"ttft_p5O <= -25%\"]\n" +
                                  std::string(kPlan).substr(std::string(kPlan).find("[[arm]]")));
            QFAIL("accepted a gate on a KPI that does not exist");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("ttft_p5O") != std::string::npos, e.what());
        }
    }

    void randomOrderIsSeeded() {
        // top-level keys must precede the tables in TOML
        const std::string text = "order = \"random\"\nseed = 5\n" + std::string(kPlan);
        const auto plan = ExperimentPlan::parse(text);
        const auto x = RunSchedule::build(plan);
        const auto y = RunSchedule::build(plan);
        QCOMPARE(x.size(), y.size());
        bool swapped = false;
        for (std::size_t i = 0; i < x.size(); ++i) {
            QCOMPARE(x[i].arm, y[i].arm);
            swapped = swapped || (i % 2 == 0 && x[i].arm == 1);
        }
        QVERIFY2(swapped, "a seeded shuffle should put B first in some repetition");
    }

    void resetStepsColdRecoveryAndTheFailureLimitParse() {
        // (Not a raw string: moc would read the URL's "//" as a comment.)
        const std::string text = "max_failure_rate = 0.02\n"
                                 "[[arm]]\nlabel = \"a\"\n"
                                 "engine_url = \"http://127.0.0.1:8000\"\n"
                                 "reset_prefix_cache = true\ndrop_caches = true\n"
                                 "reset = \"clear-cpu-tier {path}\"\n"
                                 "[[arm]]\nlabel = \"b\"\n"
                                 "[[workload]]\nkind = \"cold-recovery\"\ndocuments = 4\n"
                                 "concurrency = [8, 16]\n";
        const auto plan = ExperimentPlan::parse(text);
        QVERIFY(plan.arms[0].resetPrefixCache && plan.arms[0].dropCaches);
        QCOMPARE(plan.arms[0].reset, std::string("clear-cpu-tier {path}"));
        QVERIFY(plan.arms[0].hasReset());
        QVERIFY(!plan.arms[1].hasReset());
        QCOMPARE(plan.workloads[0].kind, std::string("cold-recovery"));
        QCOMPARE(plan.workloads[0].params.at("documents"), std::string("4"));
        QCOMPARE(plan.variants().size(), std::size_t(2));
        QCOMPARE(plan.maxFailureRate.value_or(-1), 0.02);
        // A reset of the prefix cache needs the engine's URL; flags are booleans.
        QVERIFY(refused("[[arm]]\nlabel = \"a\"\nreset_prefix_cache = true\n[[arm]]\nlabel = "
                        "\"b\"\n[[workload]]\nkind = \"load\"\n")
                    .find("needs engine_url") != std::string::npos);
        QVERIFY(refused("[[arm]]\nlabel = \"a\"\ndrop_caches = \"yes\"\n[[arm]]\nlabel = "
                        "\"b\"\n[[workload]]\nkind = \"load\"\n")
                    .find("true or false") != std::string::npos);
        QVERIFY(refused("max_failure_rate = 5\n" + std::string(kPlan)).find("max_failure_rate") !=
                std::string::npos);
    }

    // An arm declares itself the recompute baseline; a restoring arm's minimum hit share is
    // the plan's; workloads pin output lengths (ignore_eos) and add request fields
    // (extra_body, a TOML table or a JSON object as a string), never the fields tierscope owns.
    void recomputeArmsAndRequestFieldsParse() {
        const std::string text = "min_hit_share = 0.8\n"
                                 "[[arm]]\nlabel = \"recompute\"\ncache = \"recompute\"\n"
                                 "[[arm]]\nlabel = \"disk\"\ncache = \"restore\"\n"
                                 "[[arm]]\nlabel = \"shm\"\n"
                                 "[[workload]]\nkind = \"cold-recovery\"\nignore_eos = true\n"
                                 "extra_body = { top_k = 1, priority = 0, stop_token_ids = [2] }\n"
                                 "[[workload]]\nkind = \"load\"\n"
                                 "extra_body = '{\"seed\": 7}'\n";
        const auto plan = ExperimentPlan::parse(text);
        using Cache = ExperimentPlan::Arm::Cache;
        QVERIFY(plan.arms[0].cache == Cache::Recompute);
        QVERIFY(plan.arms[1].cache == Cache::Restore);
        QVERIFY(plan.arms[2].cache == Cache::Restore); // the default
        QCOMPARE(plan.minHitShare, 0.8);
        QCOMPARE(ExperimentPlan::parse(kPlan).minHitShare, 0.5);
        QCOMPARE(plan.workloads[0].params.at("ignore_eos"), std::string("true"));
        const auto body = nlohmann::json::parse(plan.workloads[0].params.at("extra_body"));
        QCOMPARE(body["top_k"].get<int>(), 1);
        QCOMPARE(body["stop_token_ids"][0].get<int>(), 2);
        QCOMPARE(
            nlohmann::json::parse(plan.workloads[1].params.at("extra_body"))["seed"].get<int>(), 7);
        const std::string arms = "[[arm]]\nlabel = \"a\"\n[[arm]]\nlabel = \"b\"\n";
        const std::string load = "[[workload]]\nkind = \"load\"\n";
        QVERIFY(refused("[[arm]]\nlabel = \"a\"\ncache = \"cold\"\n" + load).find("restore") !=
                std::string::npos);
        QVERIFY(refused("min_hit_share = 1.5\n" + arms + load).find("min_hit_share") !=
                std::string::npos);
        QVERIFY(refused(arms + load + "ignore_eos = 1\n").find("true or false") !=
                std::string::npos);
        QVERIFY(refused(arms + load + "extra_body = { max_tokens = 9 }\n")
                    .find("may not set \"max_tokens\"") != std::string::npos);
        QVERIFY(refused(arms + load + "extra_body = { stream = false }\n")
                    .find("may not set \"stream\"") != std::string::npos);
        QVERIFY(refused(arms + load + "extra_body = '[1, 2]'\n").find("JSON object") !=
                std::string::npos);
        QVERIFY(refused(arms + load + "extra_body = 'not json'\n").find("extra_body") !=
                std::string::npos);
        QVERIFY(refused(arms + load + "extra_body = { at = 1979-05-27 }\n").find("extra_body") !=
                std::string::npos);
    }

    // The shipped real-machine plan parses: its gates are G3, it sweeps 8 and 16, and every arm
    // resets the prefix and page caches and keeps LMCache's KV on its own path.
    void theVllmLmcachePlanParses() {
        QFile f(QStringLiteral(TIERSCOPE_FIXTURES) +
                "/../../resources/plans/vllm-lmcache-nvmeof.toml");
        QVERIFY(f.open(QIODevice::ReadOnly));
        const auto plan = ExperimentPlan::parse(f.readAll().toStdString());
        QVERIFY(plan.repetitions >= 3);
        QCOMPARE(plan.gates,
                 (std::vector<std::string>{"ttft_p50 <= -25%", "output_throughput >= +29%"}));
        QCOMPARE(plan.workloads.size(), std::size_t(1));
        QCOMPARE(plan.workloads[0].kind, std::string("cold-recovery"));
        QCOMPARE(plan.workloads[0].concurrency, (std::vector<int>{8, 16}));
        QCOMPARE(plan.arms.size(), std::size_t(2));
        for (const auto& arm : plan.arms) {
            QVERIFY(arm.resetPrefixCache && arm.dropCaches);
            QVERIFY(arm.engineStart.find("LMCACHE_LOCAL_DISK=\"file://$TIERSCOPE_PATH/") !=
                    std::string::npos);
            QCOMPARE(arm.env.at("LMCACHE_LOCAL_CPU"), std::string("False"));
        }
        QVERIFY(plan.arms[0].path != plan.arms[1].path);
    }

    void errorsNameTheLine() {
        try {
            ExperimentPlan::parse("[[arm]]\nlabel = \"a\"\n[[arm]]\nlabel = \"b\"\n"
                                  "[[workload]]\nkind = \"copy\"\n");
            QFAIL("accepted an unknown workload");
        } catch (const std::runtime_error& e) {
            QVERIFY2(std::string(e.what()).find("line 5") != std::string::npos, e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, ExperimentPlan::parse("name = \"x\"\n"));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error,
                                 ExperimentPlan::parse("[[arm]]\nlabel = \"a\"\n[[arm]]\nlabel = "
                                                       "\"b\"\n[[workload]]\nkind = \"load\"\n"
                                                       "concurrency = [0]\n"));
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, ExperimentPlan::parse("x = [\n"));
        QVERIFY_THROWS_EXCEPTION(
            std::runtime_error,
            ExperimentPlan::parse("gates = [\"ttft_p50 < 3\"]\n" +
                                  std::string(kPlan).substr(std::string(kPlan).find("[[arm]]"))));
    }

    // Hostile plans: each wrong type or unknown key, in every table of the plan, is an error
    // naming its line (and for an unknown key the keys that exist), never a silent default.
    // The schedule is built whole before the first run: a plan whose runs cannot fit is
    // refused at parse time, before anything is allocated for it.
    void aPlanWithTooManyRunsIsRefusedBeforeItsSchedule() {
        const auto plan = [](const std::string& repetitions, const std::string& concurrency) {
            return "repetitions = " + repetitions +
                   "\n[[arm]]\nlabel = \"A\"\n[[arm]]\nlabel = \"B\"\n[[workload]]\n"
                   "kind = \"load\"\nconcurrency = " +
                   concurrency + "\n";
        };
        // 2 arms x 1 variant x 50,000 repetitions: exactly the limit.
        QCOMPARE(ExperimentPlan::parse(plan("50000", "8")).repetitions, 50000);
        for (const auto& [reps, conc] : std::vector<std::pair<std::string, std::string>>{
                 {"50000000", "8"}, {"50001", "8"}, {"2147483647", "[1, 2, 4, 8]"}}) {
            try {
                ExperimentPlan::parse(plan(reps, conc));
                QFAIL(qPrintable(QString::fromStdString("accepted " + reps)));
            } catch (const std::runtime_error& e) {
                QVERIFY2(std::string(e.what()).find("the limit is 100000") != std::string::npos,
                         e.what());
            }
        }
    }

    // An engine with more than one /metrics endpoint (an LMCache server, KVBM, Mooncake's
    // master on their own ports): each is recorded once, the engine's own first.
    void anArmNamesMoreMetricsEndpoints() {
        const auto plan = ExperimentPlan::parse(
            "name = \"p\"\n"
            "[[arm]]\n"
            "label = \"A\"\n"
            "engine_url = \"http://gpu:8000/v1\"\n"
            "metrics_urls = [\"http://gpu:6880/metrics\", \"http://gpu:9003/metrics\"]\n"
            "[[arm]]\n"
            "label = \"B\"\n"
            "engine_url = \"http://gpu:8000\"\n"
            "metrics_urls = [\"http://gpu:6880/metrics\"]\n"
            "[[workload]]\n"
            "kind = \"load\"\n"
            "requests = 4\n");
        QCOMPARE(plan.arms[0].metricsUrls.size(), std::size_t(2));
        QCOMPARE(plan.metricsEndpoints(),
                 (std::vector<std::string>{"http://gpu:8000/metrics", "http://gpu:6880/metrics",
                                           "http://gpu:9003/metrics"}));
        for (const char* bad : {"metrics_urls = \"http://gpu:6880/metrics\"",
                                "metrics_urls = [\"file:///etc/passwd\"]", "metrics_urls = [1]"}) {
            try {
                ExperimentPlan::parse(std::string("name = \"p\"\n[[arm]]\nlabel = \"A\"\n") + bad +
                                      "\n[[workload]]\nkind = \"load\"\n");
                QFAIL(bad);
            } catch (const std::runtime_error& e) {
                QVERIFY2(std::string(e.what()).find("line 4") != std::string::npos &&
                             std::string(e.what()).find("http:// or https:// URLs") !=
                                 std::string::npos,
                         e.what());
            }
        }
    }

    void typeErrorsAndUnknownKeysNameTheLine() {
        const std::string base = "name = \"p\"\n"          // line 1
                                 "repetitions = 2\n"       // 2
                                 "[[arm]]\n"               // 3
                                 "label = \"A\"\n"         // 4
                                 "timeout = \"5s\"\n"      // 5
                                 "[[arm]]\n"               // 6
                                 "label = \"B\"\n"         // 7
                                 "[[workload]]\n"          // 8
                                 "kind = \"model-load\"\n" // 9
                                 "files = 2\n"             // 10
                                 "[[workload]]\n"          // 11
                                 "kind = \"load\"\n"       // 12
                                 "requests = 10\n";        // 13
        QVERIFY_THROWS_NO_EXCEPTION(ExperimentPlan::parse(base));
        const auto error = [&](const std::string& from, const std::string& to) -> std::string {
            std::string text = base;
            const auto at = text.find(from);
            if (at == std::string::npos)
                qFatal("no %s in the plan", from.c_str());
            text.replace(at, from.size(), to);
            try {
                ExperimentPlan::parse(text);
            } catch (const std::runtime_error& e) {
                return e.what();
            }
            return "accepted";
        };
        const auto says = [](const std::string& what, const std::string& needle) {
            if (what.find(needle) != std::string::npos)
                return true;
            qWarning("\"%s\" does not say \"%s\"", what.c_str(), needle.c_str());
            return false;
        };
        // The top level.
        QVERIFY(says(error("repetitions = 2", "repetitions = \"2\""),
                     "line 2: repetitions is a whole number from 1 to 2147483647, or \"auto\", "
                     "not \"2\""));
        QVERIFY(says(error("repetitions = 2", "repetitions = 2.5"),
                     "line 2: repetitions is a whole number from 1 to 2147483647, or \"auto\", "
                     "not 2.5"));
        QVERIFY(says(error("repetitions = 2", "repetition = 2"),
                     "line 2: unknown key \"repetition\" in the plan (the keys are name, "
                     "repetitions, max_repetitions, calibrate, calibration_runs, noise_floor, "
                     "expected, warmup, order, seed, on_failure, gates, arm, workload, "
                     "max_failure_rate, min_hit_share)"));
        // A string gates used to turn the gates off and let the run exit 0.
        QVERIFY(says(error("repetitions = 2", "gates = \"ttft_p50 <= -25%\""),
                     "line 2: gates must be a list of strings"));
        QVERIFY(says(error("repetitions = 2", "gates = [\"ttft_p50 <= -25%\", 3]"),
                     "line 2: gates must be a list of strings"));
        QVERIFY(says(error("repetitions = 2", "seed = \"7\""), "line 2: seed must be"));
        QVERIFY(says(error("repetitions = 2", "order = 1"), "line 2: order must be a string"));
        QVERIFY(says(error("name = \"p\"", "name = [\"p\"]"), "line 1: name must be a string"));
        QVERIFY(says(error("[[arm]]\nlabel = \"A\"\ntimeout = \"5s\"\n[[arm]]\nlabel = \"B\"",
                           "[arm]\nlabel = \"A\""),
                     "line 3: arm must be [[arm]] tables, not a table"));
        // A {path} inside quotes would reach the shell with the quotes as part of its text.
        QVERIFY(says(error("timeout = \"5s\"", "teardown = 'rm -rf \"{path}\"/lmcache'"),
                     "line 5: {path} stands inside double quotes"));
        QVERIFY(
            says(error("timeout = \"5s\"",
                       "engine_start = 'X=\"file://{path}/\" exec e'\nengine_url = \"http://h\""),
                 "write \"$TIERSCOPE_PATH\" there instead"));
        QVERIFY(says(error("timeout = \"5s\"", "setup = \"mkdir '{path}'\""),
                     "line 5: {path} stands inside single quotes"));
        // An [[arm]] table.
        QVERIFY(says(error("label = \"A\"", "lable = \"A\""),
                     "line 4: unknown key \"lable\" in [[arm]] (the keys are label, "
                     "storage_profile, path, engine_url"));
        QVERIFY(says(error("timeout = \"5s\"", "timeout = 5"),
                     "line 5: timeout must be a duration above 0 such as \"60s\", not an integer"));
        QVERIFY(says(error("timeout = \"5s\"", "setup = [\"true\"]"),
                     "line 5: setup must be a string, not an array"));
        QVERIFY(says(error("timeout = \"5s\"", "env = { X = { Y = 1 } }"),
                     "line 5: env must be a table of strings, numbers or booleans"));
        QVERIFY(says(error("timeout = \"5s\"", "env = \"X=1\""), "line 5: env must be a table"));
        // A [[workload]] table: its keys depend on its kind.
        QVERIFY(says(error("files = 2", "files = \"2\""),
                     "line 10: files must be an integer from 1 to 100000, not a string"));
        QVERIFY(says(error("files = 2", "file = 2"),
                     "line 10: unknown key \"file\" in a model-load [[workload]] (the keys are "
                     "kind, concurrency, block_size, queue_depth, size, files, parallel)"));
        QVERIFY(says(error("files = 2", "tokens = 2"),
                     "line 10: unknown key \"tokens\" in a model-load [[workload]]"));
        QVERIFY(says(error("files = 2", "concurrency = \"8\""),
                     "line 10: concurrency must be an integer or a list of integers"));
        QVERIFY(says(error("files = 2", "concurrency = [4, \"8\"]"),
                     "line 10: concurrency must be an integer or a list of integers"));
        QVERIFY(says(error("files = 2", "size = \"lots\""),
                     "line 10: size must be a size such as \"8GiB\", not \"lots\""));
        QVERIFY(
            says(error("files = 2", "files = 99999999999"), "line 10: files must be an integer"));
        QVERIFY(says(error("requests = 10", "requests = 1e3"),
                     "line 13: requests must be an integer from 1 to 10000000, not a "
                     "floating-point number"));
        QVERIFY(says(error("requests = 10", "dataset = \"sharedprefix\""),
                     "line 13: dataset is synthetic, shared-prefix or trace"));
        QVERIFY(says(error("requests = 10", "block_size = \"1MiB\""),
                     "line 13: unknown key \"block_size\" in a load [[workload]]"));
        // Values that could only fail once the runs start, and the number that is wrong.
        QVERIFY(says(error("repetitions = 2", "repetitions = 2147483648"),
                     "line 2: repetitions is a whole number from 1 to 2147483647, or \"auto\", not "
                     "2147483648"));
        QVERIFY(says(error("repetitions = 2", "warmup = -1"),
                     "line 2: warmup must be an integer from 0 to 2147483647, not -1"));
        QVERIFY(says(error("timeout = \"5s\"", "timeout = \"0s\""),
                     "line 5: timeout must be a duration above 0 such as \"60s\", not \"0s\""));
        QVERIFY(says(error("timeout = \"5s\"", "env = { \"A=B\" = \"1\" }"),
                     "line 5: env: \"A=B\" is not an environment variable name"));
        QVERIFY(says(error("timeout = \"5s\"", "env = { \"MY VAR\" = 1 }"),
                     "line 5: env: \"MY VAR\" is not an environment variable name"));
        QVERIFY(says(error("files = 2", "files = 0"),
                     "line 10: files must be an integer from 1 to 100000, not 0"));
        QVERIFY(says(error("files = 2", "block_size = \"1\""),
                     "line 10: block_size must be a size from 512 to 1073741824 bytes, a multiple "
                     "of 512, not \"1\""));
        QVERIFY(says(error("files = 2", "block_size = 1000"), "a multiple of 512, not 1000"));
        QVERIFY(says(error("files = 2", "queue_depth = 1000000"),
                     "line 10: queue_depth must be an integer from 1 to 4096, not 1000000"));
        QVERIFY(says(error("requests = 10", "requests = 0"),
                     "line 13: requests must be an integer from 1 to 10000000, not 0"));
        QVERIFY(says(error("requests = 10", "output_len = -5"),
                     "line 13: output_len must be an integer from 1 to 10000000, not -5"));
        // Sizes found too large only after allocating for them ended in bad_alloc.
        QVERIFY(says(error("requests = 10", "requests = 2000000000"),
                     "line 13: requests must be an integer from 1 to 10000000, not 2000000000"));
        QVERIFY(says(error("requests = 10", "input_len = 2000000000"),
                     "line 13: input_len must be an integer from 1 to 1000000, not 2000000000"));
        QVERIFY(says(error("requests = 10\n", "requests = 10\n[[workload]]\nkind = \"kv-restore\"\n"
                                              "tokens = 2000000000\n"),
                     "line 16: tokens must be an integer from 1 to 10000000, not 2000000000"));
        QVERIFY_THROWS_NO_EXCEPTION(
            ExperimentPlan::parse(base + "[[workload]]\nkind = \"model-load\"\n"
                                         "block_size = \"1MiB\"\n"
                                         "[[workload]]\nkind = \"kv-restore\"\n"
                                         "block_size = 512\nqueue_depth = 4096\n"));
        // What is right still parses, with its values.
        const auto plan = ExperimentPlan::parse(base + "dataset = \"shared-prefix\"\nusers = 4\n");
        QCOMPARE(plan.workloads[1].params.at("users"), std::string("4"));
        QCOMPARE(plan.workloads[0].params.at("files"), std::string("2"));
    }

    // A load workload replaying a trace: its keys, and what may not go with them.
    void traceWorkloadKeysParse() {
        const std::string arms = "[[arm]]\nlabel = \"a\"\n[[arm]]\nlabel = \"b\"\n";
        const std::string load = "[[workload]]\nkind = \"load\"\ndataset = \"trace\"\n";
        const std::string trace = "trace = \"/t/mooncake.jsonl\"\ntrace_format = \"mooncake\"\n";
        const auto plan = ExperimentPlan::parse(arms + load + trace +
                                                "time_scale = 0.5\nmax_requests = 1000\n"
                                                "start_at = 60\nwarmup_requests = 10\n");
        const auto& params = plan.workloads.at(0).params;
        QCOMPARE(params.at("dataset"), std::string("trace"));
        QCOMPARE(params.at("trace"), std::string("/t/mooncake.jsonl"));
        QCOMPARE(params.at("trace_format"), std::string("mooncake"));
        QCOMPARE(std::stod(params.at("time_scale")), 0.5);
        QCOMPARE(params.at("max_requests"), std::string("1000"));
        QCOMPARE(std::stod(params.at("start_at")), 60.0);
        QVERIFY(plan.workloads[0].concurrency.empty());
        // An integer time scale is a number too.
        QCOMPARE(refused(arms + load + trace + "time_scale = 2\n"), std::string());
        const std::pair<std::string, const char*> wrong[] = {
            {load, "line 5: dataset = \"trace\" needs trace (a file) and trace_format"},
            {load + "trace = \"/t\"\ntrace_format = \"sharegpt\"\n", "needs trace (a file)"},
            {load + trace + "time_scale = 0\n", "line 10: time_scale is a number above 0"},
            {load + trace + "time_scale = \"fast\"\n", "line 10: time_scale is a number above 0"},
            {load + trace + "start_at = -1\n", "line 10: start_at is a number of seconds"},
            {load + trace + "max_requests = 0\n",
             "line 10: max_requests must be an integer from 1 to 10000000, not 0"},
            {load + trace + "concurrency = 8\n", "line 10: concurrency does not apply to a trace"},
            {load + trace + "requests = 8\n", "line 10: requests does not apply to a trace"},
            {"[[workload]]\nkind = \"load\"\n" + trace,
             "line 7: trace goes with dataset = \"trace\""},
            {"[[workload]]\nkind = \"load\"\nmax_requests = 5\n",
             "line 7: max_requests goes with dataset = \"trace\""},
            {"[[workload]]\nkind = \"cold-recovery\"\n" + trace,
             "unknown key \"trace\" in a cold-recovery [[workload]]"},
        };
        for (const auto& [text, says] : wrong) {
            const auto why = refused(arms + text);
            QVERIFY2(why.find(says) != std::string::npos, (text + " -> " + why).c_str());
        }
    }

    // The plans shipped and those in the docs' examples still parse.
    void shippedPlansParse() {
        for (const char* name : {"disk-vs-shm.toml", "real-engine-kv-tier.toml"}) {
            QFile f(QStringLiteral(TIERSCOPE_FIXTURES "/../../resources/plans/") + name);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const auto plan = ExperimentPlan::parse(f.readAll().toStdString());
            QVERIFY(plan.arms.size() >= 2);
            QVERIFY(!plan.workloads.empty());
        }
    }

    void shellCommandsReportExitOutputAndTimeouts() {
        auto r = ShellCommand::run("echo out; echo err >&2; exit 3", {}, std::chrono::seconds(5));
        QCOMPARE(r.exitCode, 3);
        QVERIFY(!r.ok());
        QVERIFY(r.output.find("out") != std::string::npos);
        QVERIFY(r.output.find("err") != std::string::npos);
        r = ShellCommand::run("test \"$X\" = 42", {{"X", "42"}}, std::chrono::seconds(5));
        QVERIFY(r.ok());
        const auto start = std::chrono::steady_clock::now();
        r = ShellCommand::run("sleep 30; echo never", {}, std::chrono::milliseconds(300));
        QVERIFY(r.timedOut);
        QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
        QVERIFY(r.output.find("never") == std::string::npos);
        // a background child holding the output open does not make the command hang
        const auto background = std::chrono::steady_clock::now();
        r = ShellCommand::run("sleep 120 & echo started", {}, std::chrono::seconds(240));
        QVERIFY(r.ok());
        QVERIFY(r.output.find("started") != std::string::npos);
        QVERIFY(std::chrono::steady_clock::now() - background < std::chrono::seconds(60));
    }
};

QTEST_GUILESS_MAIN(TestExperimentPlan)
#include "tst_experimentplan.moc"
