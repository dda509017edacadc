// The setup of a measured load run, shared by `tierscope load` and an experiment's load and
// cold-recovery workloads: one dataset switch, one rule for the KV bytes per token and the KV
// the documents imply, one choice of cold-recovery checks.
#include "experiments/MeasuredLoad.h"
#include "workloads/KvGeometry.h"
#include "workloads/WorkloadError.h"

#include <QtTest>
#include <set>

using namespace tierscope;

namespace {

std::set<std::string> checkNames(const nlohmann::json& checks) {
    std::set<std::string> out;
    for (const auto& c : checks)
        out.insert(c.value("check", ""));
    return out;
}

EvidenceSnapshot snapshot(bool counters, bool device) {
    EvidenceSnapshot s;
    if (device) {
        s.device = "vda";
        s.deviceReadBytes = 0;
        s.pageCacheBytes = 0;
    }
    if (counters)
        s.engineCounters["lmcache_hit_tokens"] = 0;
    return s;
}

} // namespace

class TestMeasuredLoad : public QObject {
    Q_OBJECT
  private slots:
    void theDatasetSwitch() {
        MeasuredLoad load;
        load.count = 7;
        load.inputMin = 10;
        load.inputMax = 20;
        load.outputLen = 5;
        load.seed = 3;
        const auto synthetic = load.prompts();
        QVERIFY(synthetic.populate.empty());
        QCOMPARE(synthetic.measured.size(), std::size_t(7));
        // The same seed, the same prompts: a plan's run and the run by hand send the same.
        QCOMPARE(load.prompts().measured.front().questions, synthetic.measured.front().questions);

        load.dataset = "shared-prefix";
        load.users = 3;
        load.rounds = 2;
        QCOMPARE(load.prompts().measured.size(), std::size_t(3));

        load.dataset = "cold-recovery";
        load.documents = 4;
        load.documentTokens = 50;
        load.questions = 3;
        const auto cold = load.prompts();
        QCOMPARE(cold.populate.size(), std::size_t(4));
        QCOMPARE(cold.measured.size(), std::size_t(12));

        load.dataset = "sharegpt";
        QVERIFY_THROWS_EXCEPTION(WorkloadError, load.prompts());
        load.dataset = "synthetic";
        load.count = 2;
        load.inputMin = static_cast<int>(Datasets::kMaxPromptWords) + 1;
        load.inputMax = load.inputMin;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, load.prompts());
    }

    void kvBytesPerTokenAndTheKvImplied() {
        const double llama =
            static_cast<double>(KvGeometry::preset("Llama-3.1-8B").bytesPerToken());
        QCOMPARE(*MeasuredLoad::bytesPerToken(std::nullopt, "Llama-3.1-8B"), llama);
        QCOMPARE(*MeasuredLoad::bytesPerToken(4096.0, ""), 4096.0);
        QVERIFY(!MeasuredLoad::bytesPerToken(std::nullopt, ""));
        QVERIFY_THROWS_EXCEPTION(WorkloadError,
                                 MeasuredLoad::bytesPerToken(std::nullopt, "no-such-model"));

        MeasuredLoad load;
        load.dataset = "cold-recovery";
        load.documents = 16;
        load.documentTokens = 8000;
        QVERIFY(!load.impliedKv()); // absent, not 0, without the bytes per token
        load.kvBytesPerToken = llama;
        QCOMPARE(load.impliedKv()->bytes, llama * 16 * 8000); // each document's prefix once
        QCOMPARE(std::string(load.impliedKv()->from), std::string("words"));

        // The engine's own counts of the populate phase, where every document has them: a real
        // tokenizer made 2.6 tokens of a word here.
        std::vector<RequestRecord> populate(16);
        for (auto& r : populate) {
            r.httpStatus = 200;
            r.promptTokens = 20800;
        }
        QCOMPARE(load.impliedKv(populate)->bytes, llama * 16 * 20800);
        QCOMPARE(load.impliedKv(populate)->tokens, 16.0 * 20800);
        QCOMPARE(std::string(load.impliedKv(populate)->from), std::string("prompt_tokens"));
        // One document without usage, one that failed, or a phase cut short: the words again,
        // never a sum over some of the documents.
        auto noUsage = populate;
        noUsage[3].promptTokens.reset();
        QCOMPARE(std::string(load.impliedKv(noUsage)->from), std::string("words"));
        auto failed = populate;
        failed[5].httpStatus = 500;
        QCOMPARE(load.impliedKv(failed)->bytes, llama * 16 * 8000);
        QCOMPARE(std::string(load.impliedKv({populate.begin(), populate.begin() + 8})->from),
                 std::string("words"));
        const auto params = load.coldParams();
        QCOMPARE(params["documents"].get<int>(), 16);
        QCOMPARE(params["document_tokens"].get<int>(), 8000);
    }

    // Storage and page-cache checks need the KV store's directory; the cache check needs the
    // engine's counters unless the caller requires it (a plan's arm promises such an engine,
    // and an engine without them then fails the check instead of skipping it).
    void theColdRecoveryChecks() {
        const auto bare = snapshot(false, false);
        const auto full = snapshot(true, true);
        auto checks = nlohmann::json::array();
        MeasuredLoad::addEvidenceChecks(
            checks, ColdRecoveryEvidence(bare, bare, bare, ImpliedKv{1e9}), false, false);
        QVERIFY(checks.empty());

        checks = nlohmann::json::array();
        MeasuredLoad::addEvidenceChecks(
            checks, ColdRecoveryEvidence(bare, bare, bare, ImpliedKv{1e9}), true, true);
        QCOMPARE(checks.size(), std::size_t(2)); // no device: no page-cache check
        const auto required = checkNames(checks);

        checks = nlohmann::json::array();
        MeasuredLoad::addEvidenceChecks(
            checks, ColdRecoveryEvidence(full, full, full, ImpliedKv{1e9}), true, false);
        QCOMPARE(checks.size(), std::size_t(3));
        const auto all = checkNames(checks);
        QCOMPARE(all.size(), std::size_t(3));
        for (const auto& name : required)
            QVERIFY(all.count(name));
    }
};

QTEST_GUILESS_MAIN(TestMeasuredLoad)
#include "tst_measuredload.moc"
