#include "TestSupport.h"
#include "core/analysis/RunTimeline.h"
#include "core/compare/ComparisonBuilder.h"
#include "core/compare/EngineRoleCheck.h"
#include "core/store/Store.h"
#include "core/store/StoreWriter.h"

#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000LL;
constexpr std::int64_t kStart = 1'700'000'000LL * kSecond;

} // namespace

// The engine schema canary from the recording to the comparison: arm A's engine served
// LMCache's hit tokens, arm B's served TTFT but no LMCache family; B is warned, not zeroed.
class TestEngineRoleCheck : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string m_db;
    std::int64_t m_runA = 0, m_runB = 0;

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath("w.db").toStdString();
        std::int64_t session = 0;
        {
            Store store(m_db, Store::Mode::ReadWrite);
            SessionInfo s;
            s.startNs = kStart;
            session = store.createSession(s);
            m_runA = store.createRun(session, "load", "{}", kStart, "e", "disk");
            store.addRequests(m_runA, {test::answered(2.0), test::answered(2.2)});
            store.finishRun(m_runA, kStart + 10 * kSecond, "completed", "{}");
            m_runB = store.createRun(session, "load", "{}", kStart + 100 * kSecond, "e", "array");
            store.addRequests(m_runB, {test::answered(0.5), test::answered(0.6)});
            // An experiment's run names its arm's endpoints: A's engine, recorded in the same
            // session, is not B's.
            store.finishRun(m_runB, kStart + 110 * kSecond, "completed",
                            R"({"engine_endpoints": ["b:8000"]})");
            store.finishSession(session, kStart + 110 * kSecond);
        }
        StoreWriter writer(m_db, {});
        auto served = [&](const char* endpoint, const char* role) {
            return writer.defineMetric(
                session, {std::string("engine/") + endpoint + "/served{role=" + role + "}", "1",
                          "gauge", "{}"});
        };
        const auto aHits = served("a:8000", "lmcache_hit_tokens");
        const auto bHits = served("b:8000", "lmcache_hit_tokens");
        const auto bTtft = served("b:8000", "ttft");
        writer.append(aHits, kStart + 1 * kSecond, 1);
        writer.append(aHits, kStart + 90 * kSecond, 1);
        // Recorded 50 s before B's run and not since (no change): still B's run's answer.
        writer.append(bHits, kStart + 50 * kSecond, 0);
        writer.append(bTtft, kStart + 50 * kSecond, 1);
        writer.stop();
    }

    void aRunsTimelineHoldsTheRolesOfItsEndpoints() {
        Store store(m_db, Store::Mode::ReadOnly);
        const auto a = RunTimeline::read(store, *store.run(m_runA));
        QCOMPARE(a.engineRoles.size(), std::size_t(1));
        QCOMPARE(a.engineRoles.at("a:8000").at("lmcache_hit_tokens"), true);
        const auto b = RunTimeline::read(store, *store.run(m_runB));
        QCOMPARE(b.engineRoles.size(), std::size_t(1));
        QCOMPARE(b.engineRoles.at("b:8000").at("lmcache_hit_tokens"), false);
        QCOMPARE(b.engineRoles.at("b:8000").at("ttft"), true);
    }

    void theSideThatLostARoleIsWarned() {
        Store store(m_db, Store::Mode::ReadOnly);
        const auto a = ComparisonBuilder::resolve(store, "run:" + std::to_string(m_runA));
        const auto b = ComparisonBuilder::resolve(store, "run:" + std::to_string(m_runB));
        const std::string text =
            "LMCache hit tokens: served by A's engine, not by B's (no family of it at b:8000)";
        const auto lost = EngineRoleCheck::of(a, b);
        QCOMPARE(lost.size(), std::size_t(1));
        QCOMPARE(lost[0].side, 'B');
        QCOMPARE(lost[0].text, text);
        // A role only B recorded (TTFT) is not a loss of A's: A never said it lacked it.
        const auto result = ComparisonBuilder::build(store, a, b, {});
        QVERIFY(std::find(result.warnings.begin(), result.warnings.end(),
                          "B: engine schema: " + text) != result.warnings.end());
        // And a row of B's checks, which the GUI's Checks tab lists.
        QVERIFY(std::any_of(result.runChecks.begin(), result.runChecks.end(), [&](const auto& c) {
            return c.first == 'B' && c.second.name == "engine_schema" &&
                   c.second.status == "warn" && c.second.detail == text;
        }));
        // The same side on both: nothing lost.
        QVERIFY(EngineRoleCheck::of(b, b).empty());
    }
};

QTEST_MAIN(TestEngineRoleCheck)
#include "tst_enginerolecheck.moc"
