#include "core/compare/ComparisonResult.h"
#include "core/compare/PathPolicyCheck.h"
#include "core/store/Store.h"

#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace tierscope;

namespace {

constexpr std::int64_t kSecond = 1'000'000'000LL;
constexpr std::int64_t kStart = 1'700'000'000LL * kSecond;

} // namespace

// The NVMe multipath I/O policy under each side's KV tier, from the sessions' device tables
// and the runs' kv_tier: two sides on different policies are both warned; the same policy, a
// device outside the tier or a side that names no tier give no flag.
class TestPathPolicyCheck : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

    // A session whose device table has nvme1n1 under `policy` (and an unrelated sda under
    // numa), with two completed runs on a tier directory on `tierDevice` (none when empty).
    ComparisonSide side(Store& store, const std::string& policy, const std::string& tierDevice) {
        SessionInfo s;
        s.startNs = kStart;
        const auto session = store.createSession(s);
        store.addDevices(session,
                         {{"block", "nvme1n1", nlohmann::json{{"iopolicy", policy}}.dump()},
                          {"block", "sda", R"({"iopolicy": "numa"})"}});
        ComparisonSide out;
        for (int i = 0; i < 2; ++i) {
            const auto run = store.createRun(session, "load", "{}", kStart + i * kSecond, "e", "x");
            nlohmann::json summary = nlohmann::json::object();
            if (!tierDevice.empty())
                summary["kv_tier"] = {{"path", "/mnt/kv"},
                                      {"device", "dm-0"},
                                      {"members", {tierDevice}},
                                      {"paths", nlohmann::json::array()}};
            store.finishRun(run, kStart + (i + 1) * kSecond, "completed", summary.dump());
            out.runs.push_back(*store.run(run));
        }
        store.finishSession(session, kStart + 3 * kSecond);
        return out;
    }

  private slots:
    void differentPoliciesWarnBothSides() {
        Store store(m_dir.filePath("a.db").toStdString(), Store::Mode::ReadWrite);
        const auto a = side(store, "round-robin", "nvme1n1");
        const auto b = side(store, "numa", "nvme1n1");
        QCOMPARE(PathPolicyCheck::read(store, a).at("nvme1n1"), std::string("round-robin"));
        QVERIFY(!PathPolicyCheck::read(store, a).count("sda")); // not under the tier
        ComparisonResult out;
        PathPolicyCheck::addTo(store, a, b, out);
        QCOMPARE(out.warnings.size(), std::size_t(2));
        QCOMPARE(out.runChecks.size(), std::size_t(2));
        QCOMPARE(out.runChecks[0].second.name, std::string("nvme_iopolicy"));
        QVERIFY2(out.warnings[0].find("round-robin on A's nvme1n1, numa on B's nvme1n1") !=
                     std::string::npos,
                 out.warnings[0].c_str());
    }

    void samePolicyOrNoTierIsNoFlag() {
        Store store(m_dir.filePath("b.db").toStdString(), Store::Mode::ReadWrite);
        ComparisonResult same;
        PathPolicyCheck::addTo(store, side(store, "queue-depth", "nvme1n1"),
                               side(store, "queue-depth", "nvme1n1"), same);
        QVERIFY(same.warnings.empty());
        ComparisonResult unknown;
        PathPolicyCheck::addTo(store, side(store, "round-robin", "nvme1n1"),
                               side(store, "numa", ""), unknown);
        QVERIFY(unknown.warnings.empty()); // B names no tier: its policy is unknown, no verdict
        ComparisonResult outside;
        PathPolicyCheck::addTo(store, side(store, "round-robin", "sdb"), side(store, "numa", "sdb"),
                               outside);
        QVERIFY(outside.warnings.empty()); // the policies are on devices the tier is not on
    }
};

QTEST_GUILESS_MAIN(TestPathPolicyCheck)
#include "tst_pathpolicycheck.moc"
