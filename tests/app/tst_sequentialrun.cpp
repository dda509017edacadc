#include "TestSupport.h"
#include "core/store/Store.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <nlohmann/json.hpp>

using namespace tierscope;

// `tierscope run` with repetitions = "auto", --calibrate, noise_floor and --dry-run's power
// lines, end to end on the engine simulator: a large effect stops after its first block, an
// effect the budget cannot resolve runs to the budget and says what it would need, and a
// calibration's floor shows beside the KPIs of the plan that names it.
class TestSequentialRun : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;

    struct Finished {
        int code = -1;
        QByteArray out, err;
    };
    Finished tierscope(const QStringList& args) {
        QProcess p;
        p.start(TIERSCOPE_BINARY, args);
        Finished f;
        if (!p.waitForFinished(240000)) {
            p.kill();
            p.waitForFinished(10000);
        }
        f.code = p.exitCode();
        f.out = p.readAllStandardOutput();
        f.err = p.readAllStandardError();
        return f;
    }
    // A load plan whose arms are simulators started by the plan, with `head` (plan keys) first.
    QString plan(const QString& name, const QString& head, const QString& simA, const QString& simB,
                 const QString& armExtra = {}) {
        auto arm = [&](const QString& label, const QString& sim) {
            const int port = test::freePort();
            return QString("[[arm]]\nlabel = \"%1\"\nengine_url = \"http://127.0.0.1:%2\"\n"
                           "engine_start = 'exec \"$TIERSCOPE\" sim-engine --port %2 %3'\n%4\n")
                .arg(label, QString::number(port), sim, armExtra);
        };
        const QString text = "name = \"" + name + "\"\n" + head + "\n" + arm("a", simA) +
                             arm("b", simB) +
                             "[[workload]]\nkind = \"load\"\nrequests = 4\ninput_len = 256\n"
                             "output_len = 2\nconcurrency = 1\n";
        const QString path = m_dir.filePath(name + ".toml");
        test::writeFile(path, text.toUtf8());
        return path;
    }
    QString db(const QString& name) const { return m_dir.filePath(name + ".db"); }
    nlohmann::json report(const QString& name) {
        QFile f(m_dir.filePath(name + ".json"));
        if (!f.open(QIODevice::ReadOnly))
            return nullptr;
        return nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
    }
    static const nlohmann::json* kpi(const nlohmann::json& r, const char* name) {
        for (const auto& k : r["kpis"])
            if (k["kpi"] == name)
                return &k;
        return nullptr;
    }

  private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    // A prefill 100 times faster on B: decided at an early look (the first, 2 repetitions, on a
    // quiet machine; the second when a loaded one spreads B's two runs), well inside the ten
    // repetitions the budget allows; every run carries the design and the report its level.
    void aLargeEffectStopsAtAnEarlyLook() {
        const QString file = plan("big",
                                  "repetitions = \"auto\"\nmax_repetitions = 10\n"
                                  "gates = [\"ttft_p50 <= -25%\"]",
                                  "--prefill-tokens-per-s 2000", "--prefill-tokens-per-s 200000");
        const auto f = tierscope({"--db", db("big"), "run", file, "--format", "json", "--report",
                                  m_dir.filePath("big.json")});
        QVERIFY2(f.code == 0, f.err.right(1500).constData());
        const auto decided =
            QRegularExpression("every gate decided after (\\d+) repetitions").match(f.err);
        QVERIFY2(decided.hasMatch(), f.err.constData());
        const int repetitions = decided.captured(1).toInt();
        QVERIFY2(repetitions >= 2 && repetitions <= 6, f.err.constData());
        Store store(db("big").toStdString(), Store::Mode::ReadOnly);
        const auto runs = store.runsOfSession(1);
        QCOMPARE(runs.size(), std::size_t(2 * repetitions));
        for (const auto& r : runs)
            QCOMPARE(nlohmann::json::parse(r.paramsJson)["sequential_looks"].get<int>(), 5);
        QVERIFY(store.eventText(1, "sequential-look"));
        QVERIFY(store.eventText(1, "sequential-stop"));
        const auto r = report("big");
        QVERIFY(r.is_array() && r.size() == 1);
        QCOMPARE(r[0]["gates"][0]["verdict"].get<std::string>(), std::string("pass"));
        const auto* ttft = kpi(r[0], "ttft_p50");
        QVERIFY(ttft);
        QCOMPARE((*ttft)["confidence"].get<double>(), 0.99);
        QCOMPARE((*ttft)["sequential_looks"].get<int>(), 5);
        QVERIFY2(r[0]["gates"][0]["evidence"].get<std::string>().find("99 % CI (always valid") !=
                     std::string::npos,
                 r[0]["gates"][0].dump().c_str());
    }

    // Each run's engine is restarted with a prefill speed drawn from 1,000 to 4,000 tokens/s
    // (a run-to-run CV near 40 %) on both arms alike: a -10 % gate cannot be decided in four
    // repetitions (at the truth, 0, about 1 in 500 experiments decides it), so the experiment
    // runs to its budget, exits 12 and says how many runs would decide it.
    void aNoisyNullRunsToTheBudgetAndSaysWhatItNeeds() {
        const QString speed = "--prefill-tokens-per-s $(shuf -i 1000-4000 -n 1)";
        const QString file = plan("null",
                                  "repetitions = \"auto\"\nmax_repetitions = 4\n"
                                  "gates = [\"ttft_p50 <= -10%\"]",
                                  speed, speed, "engine_restart = \"run\"");
        const auto f = tierscope({"--db", db("null"), "run", file});
        QVERIFY2(f.code == 12, f.err.right(1500).constData());
        QVERIFY2(f.err.contains("undecided after 4 repetitions (max_repetitions)"),
                 f.err.constData());
        QVERIFY2(f.out.contains("UNDECIDED") && f.out.contains("runs per arm"), f.out.constData());
        Store store(db("null").toStdString(), Store::Mode::ReadOnly);
        QCOMPARE(store.runsOfSession(1).size(), std::size_t(8));
    }

    // --calibrate runs A against itself; a plan naming that session shows the floor beside
    // every KPI; --dry-run says what each gate needs at the calibrated spread.
    void aCalibrationsFloorShowsBesideTheKpisOfAPlanThatNamesIt() {
        const QString file = plan("cal", "repetitions = 3\ngates = [\"ttft_p50 <= -25%\"]",
                                  "--prefill-tokens-per-s 4000", "--prefill-tokens-per-s 40000");
        const auto c = tierscope({"--db", db("cal"), "run", file, "--calibrate", "--runs", "3"});
        QVERIFY2(c.code == 0, c.err.right(1500).constData());
        QVERIFY2(c.err.contains("noise floor of cal-calibration/load@c1") &&
                     c.err.contains("noise_floor = 1"),
                 c.err.constData());
        {
            Store store(db("cal").toStdString(), Store::Mode::ReadOnly);
            const auto runs = store.runsOfSession(1);
            QCOMPARE(runs.size(), std::size_t(6));
            for (const auto& r : runs) {
                QCOMPARE(r.experiment, std::string("cal-calibration/load@c1"));
                QVERIFY(r.arm == "a" || r.arm == "a-again");
            }
        }
        const QString named =
            plan("cal2",
                 "repetitions = 3\nnoise_floor = 1\ngates = [\"ttft_p50 <= -25%\"]\n"
                 "[expected]\nttft_p50 = \"-80%\"",
                 "--prefill-tokens-per-s 4000", "--prefill-tokens-per-s 40000");
        const auto dry = tierscope({"--db", db("cal"), "run", named, "--dry-run"});
        QCOMPARE(dry.code, 0);
        QVERIFY2(dry.out.contains("power: G1 ttft_p50 <= -25% at CV") &&
                     dry.out.contains("(calibration, session 1) with a true -80.0 %: ") &&
                     dry.out.contains("runs per arm to pass it"),
                 dry.out.constData());
        const auto f = tierscope({"--db", db("cal"), "run", named, "--format", "json", "--report",
                                  m_dir.filePath("cal2.json")});
        QVERIFY2(f.code == 0, f.err.right(1500).constData());
        const auto r = report("cal2");
        QVERIFY(r.is_array() && r.size() == 1);
        const auto* ttft = kpi(r[0], "ttft_p50");
        QVERIFY(ttft && ttft->contains("noise_floor"));
        QVERIFY((*ttft)["noise_floor"]["half_width"].get<double>() > 0);
        QCOMPARE((*ttft)["noise_floor"]["within"].get<bool>(), false); // -90 % is no noise
        QVERIFY2(r[0]["headline"].get<std::string>().find("beyond this rig's noise floor") !=
                     std::string::npos,
                 r[0]["headline"].dump().c_str());
        // The text report says it beside the KPI as well.
        const auto t =
            tierscope({"--db", db("cal"), "compare", "arm:cal2/load@c1/a", "arm:cal2/load@c1/b"});
        QVERIFY2(t.out.contains("floor +-"), t.out.constData());
    }

    void hostilePlanKeysAreRefusedWithTheirLine() {
        const struct {
            const char* head;
            const char* says;
        } cases[] = {
            {"repetitions = \"many\"", "or \"auto\", not \"many\""},
            {"repetitions = \"auto\"", "the plan has no gates"},
            {"repetitions = 3\nmax_repetitions = 9", "max_repetitions is for repetitions"},
            {"repetitions = \"auto\"\nmax_repetitions = 1\ngates = [\"ttft_p50 <= -5%\"]",
             "max_repetitions is a whole number of at least 2"},
            {"noise_floor = -3", "noise_floor is the session id"},
            {"calibrate = \"yes\"", "calibrate is true or false"},
            {"[expected]\nttft_p50 = \"fast\"", "expected ttft_p50 is a change"},
            {"[expected]\nnot_a_kpi = \"-5%\"", "no KPI \"not_a_kpi\" in expected"},
        };
        for (const auto& c : cases) {
            const QString file = plan("bad", c.head, "", "");
            const auto f = tierscope({"--db", db("bad"), "run", file, "--dry-run"});
            QVERIFY2(f.code == 2 && f.err.contains(c.says),
                     (QByteArray(c.head) + " -> " + f.err).constData());
        }
    }
};

QTEST_GUILESS_MAIN(TestSequentialRun)
#include "tst_sequentialrun.moc"
