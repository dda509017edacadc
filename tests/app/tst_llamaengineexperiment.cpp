#include "LlamaEngine.h"
#include "TestSupport.h"

#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <cmath>
#include <nlohmann/json.hpp>
#include <unistd.h>

using namespace tierscope;
using tierscope::test::LlamaEngine;

// The seeds' experiment in miniature on a real engine (llama.cpp through node-llama-cpp, see
// tests/fixtures/llama-engine): a cold-recovery plan whose arm A recomputes every prefix
// (--no-prefix-caching, declared `cache = "recompute"`) and whose arm B restores them from its
// KV tier on a directory. tierscope starts each arm's engine in its own process group, records
// its /metrics, reads its own I/O from /proc/<pid>/io and judges the runs; then an A/A plan
// (both arms restoring) shows no difference the gate would take for one.
class TestLlamaEngineExperiment : public QObject {
    Q_OBJECT
  private:
    QTemporaryDir m_dir;
    LlamaEngine::Install m_install;
    // Root on a machine whose /proc/sys is writable: the page cache can be dropped between the
    // phases, so the restore arm's KV comes from the disk and its storage evidence is judged.
    bool m_dropCaches = false;

    struct Finished {
        int code = -1;
        QByteArray out, err;
    };
    static Finished tierscope(const QStringList& args, int timeoutMs = 540000) {
        QProcess p;
        p.start(TIERSCOPE_BINARY, args);
        Finished f;
        if (!p.waitForFinished(timeoutMs)) {
            p.kill();
            p.waitForFinished(10000);
        }
        f.code = p.exitCode();
        f.out = p.readAllStandardOutput();
        f.err = p.readAllStandardError();
        return f;
    }

    // An arm whose engine is the fixture's server on a port of its own, logging its requests.
    QString arm(const QString& label, const QString& options, const QString& extra) const {
        const int port = test::freePort();
        const QString log = m_dir.filePath(label + ".jsonl");
        return QString("[[arm]]\nlabel = \"%1\"\nengine_url = \"http://127.0.0.1:%2\"\n"
                       "engine_start = 'exec \"%3\" \"%4\" --model \"%5\" --port %2 "
                       "--request-log \"%6\" %7'\n%8\n")
            .arg(label, QString::number(port), m_install.node, m_install.server, m_install.model,
                 log, options, extra);
    }

    // Three documents of about 400 tokens (150 words), two questions each; outputs pinned to
    // two tokens. The tiny model's KV is 8 layers x (K + V) x 512 x 2 bytes a token.
    static QString workload() {
        return "[[workload]]\nkind = \"cold-recovery\"\nmodel = \"tiny-llama\"\n"
               "documents = 3\ndocument_tokens = 150\nquestions = 2\nquestion_tokens = 8\n"
               "output_len = 2\nconcurrency = 1\nignore_eos = true\n"
               "kv_bytes_per_token = 16384\n";
    }

    QString restoreArm(const QString& label) const {
        const QString path = m_dir.filePath(label);
        return arm(label, "--kv-dir {path}/kv --chunk-size 64",
                   QString("path = \"%1\"\nreset_prefix_cache = true\n%2")
                       .arg(path, m_dropCaches ? "drop_caches = true" : ""));
    }

    nlohmann::json run(const QString& name, const QString& plan, Finished* finished) {
        const QString file = m_dir.filePath(name + ".toml");
        test::writeFile(file, plan.toUtf8());
        *finished = tierscope({"--db", m_dir.filePath(name + ".db"), "run", file, "--format",
                               "json", "--report", m_dir.filePath(name + ".json")});
        QFile f(m_dir.filePath(name + ".json"));
        if (!f.open(QIODevice::ReadOnly))
            return nullptr;
        return nlohmann::json::parse(f.readAll().toStdString(), nullptr, false);
    }

    std::vector<nlohmann::json> requestLog(const QString& label) const {
        QFile f(m_dir.filePath(label + ".jsonl"));
        std::vector<nlohmann::json> out;
        if (f.open(QIODevice::ReadOnly))
            for (const QByteArray& line : f.readAll().split('\n'))
                if (!line.trimmed().isEmpty())
                    out.push_back(nlohmann::json::parse(line.toStdString()));
        return out;
    }

    static const nlohmann::json* kpi(const nlohmann::json& report, const char* name) {
        for (const auto& k : report["kpis"])
            if (k["kpi"] == name)
                return &k;
        return nullptr;
    }

  private slots:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        QString why;
        QVERIFY2(LlamaEngine::install(&m_install, &why), qPrintable(why));
        m_dropCaches = ::geteuid() == 0 && ::access("/proc/sys/vm/drop_caches", W_OK) == 0;
        qInfo("page cache dropped between phases: %s", m_dropCaches ? "yes" : "no (not root)");
    }

    // Recompute against restore-from-disk: B is better, the gate passes, every check passes
    // (the recompute arm as the baseline it declares), every measured B request restored its
    // document from the tier, and the runs carry the engine's own timeline and reads. The gate
    // asks for -25 % where the effect is -65 to -80 %: the engine restarts at every arm switch
    // (ABBA), and on a busy machine a restarted engine's first restore can take half again as
    // long, which widens a three-run interval past -50 % (seen once under ctest -j3: disk
    // 129, 81 ms against 334, 273, 291 ms recomputed).
    void restoringFromDiskBeatsRecomputing() {
        const QString plan = "name = \"kv\"\nrepetitions = 3\ngates = [\"ttft_p50 <= -25%\"]\n" +
                             arm("recompute", "--no-prefix-caching", "cache = \"recompute\"") +
                             restoreArm("disk") + workload();
        Finished f;
        const auto reports = run("kv", plan, &f);
        QVERIFY2(f.code == 0,
                 (f.err.right(700) + "\n--- stdout tail ---\n" + f.out.right(300)).constData());
        QVERIFY(reports.is_array() && reports.size() == 1);
        const auto& report = reports[0];
        QVERIFY2(report["valid"].get<bool>(), report["invalid"].dump().c_str());
        QCOMPARE(report["gates"][0]["verdict"].get<std::string>(), std::string("pass"));
        const auto* ttft = kpi(report, "ttft_p50");
        QVERIFY(ttft);
        QCOMPARE((*ttft)["verdict"].get<std::string>(), std::string("B"));
        QCOMPARE((*ttft)["n_a"].get<int>(), 3);
        qInfo("TTFT p50: recompute %.1f ms, restore %.1f ms (%+.1f %%)",
              (*ttft)["a"].get<double>() * 1e3, (*ttft)["b"].get<double>() * 1e3,
              (*ttft)["relative"].get<double>() * 100);
        // Every measured question on B restored its document from the tier (the questions of
        // the three documents take turns, so none finds its document in memory); none on A did.
        int documents = 0, restored = 0;
        for (const auto& r : requestLog("disk")) {
            documents += r["restored_tokens"].get<int>() == 0 && r["cached_tokens"].get<int>() == 0;
            restored += r["restored_tokens"].get<int>() >= 64;
        }
        QCOMPARE(documents, 3 * 3);    // the populate phases: three documents in three repetitions
        QCOMPARE(restored, 3 * 2 * 3); // every question of every repetition
        for (const auto& r : requestLog("recompute")) {
            QCOMPARE(r["restored_tokens"].get<int>(), 0);
            QCOMPARE(r["cached_tokens"].get<int>(), 0);
            QCOMPARE(r["completion_tokens"].get<int>(), 2); // ignore_eos reached the engine
        }
        // The engine's own reads are per-run KPIs on both sides.
        QVERIFY2(kpi(report, "engine_read_bytes"), report["kpis"].dump().c_str());
        const auto* reads = kpi(report, "engine_read_bytes");
        qInfo("engine reads per run: recompute %.0f B, restore %.0f B", (*reads)["a"].get<double>(),
              (*reads)["b"].get<double>());
        if (m_dropCaches) // else the files just written are read from the page cache
            QVERIFY2((*reads)["b"].get<double>() > 0, reads->dump().c_str());
        // The engine's /metrics were recorded during the runs: the report has the engine's TTFT.
        QVERIFY2(kpi(report, "engine_ttft_mean"), report["kpis"].dump().c_str());
    }

    // A/A: the same restore setup on both sides. The gate does not pass, and there is no
    // difference a decision would rest on. (A 95 % interval excludes 0 in one A/A of twenty by
    // construction, so the bound asserted beside it is what a real effect would cross.)
    void anAaPlanFindsNoDifference() {
        const QString plan = "name = \"aa\"\nrepetitions = 3\ngates = [\"ttft_p50 <= -50%\"]\n" +
                             restoreArm("a1") + restoreArm("a2") + workload();
        Finished f;
        const auto reports = run("aa", plan, &f);
        QVERIFY2(f.code == 11 || f.code == 12,
                 (f.err.right(700) + "\n--- stdout tail ---\n" + f.out.right(300)).constData());
        QVERIFY(reports.is_array() && reports.size() == 1);
        const auto& report = reports[0];
        QVERIFY2(report["valid"].get<bool>(), report["invalid"].dump().c_str());
        QVERIFY(report["gates"][0]["verdict"].get<std::string>() != "pass");
        const auto* ttft = kpi(report, "ttft_p50");
        QVERIFY(ttft);
        const double change = (*ttft)["relative"].get<double>();
        qInfo("A/A TTFT p50 change %+.1f %%, verdict %s", change * 100,
              (*ttft)["verdict"].get<std::string>().c_str());
        QVERIFY2((*ttft)["verdict"] == "no significant difference" || std::abs(change) < 0.25,
                 ttft->dump().c_str());
    }
};

QTEST_GUILESS_MAIN(TestLlamaEngineExperiment)
#include "tst_llamaengineexperiment.moc"
