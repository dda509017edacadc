#include "core/engine/EngineMetricCatalog.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <set>

using namespace tierscope;

namespace {

const char* kSmall = R"(
[[engine]]
id = "vllm"
title = "vLLM"
prefixes = ["vllm:"]

[[engine]]
id = "lmcache"
title = "LMCache"
prefixes = ["lmcache:"]

[[role]]
name = "load_bytes"
type = "counter"
unit = "bytes"
title = "load bytes"
families = ["vllm:kv_offload_load_bytes", 'vllm:kv_offload_total_bytes{transfer_type="CPU_to_GPU"}']

[[role]]
name = "hit_tokens"
type = "counter"
unit = "tokens"
title = "LMCache hit tokens"
families = ["lmcache:num_hit_tokens"]

[[role]]
name = "ttft"
type = "histogram"
unit = "s"
title = "TTFT"
families = ["vllm:time_to_first_token_seconds"]
)";

} // namespace

class TestEngineMetricCatalog : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

  private slots:
    // Before anything asks for the active catalog: the user's file replaces the shipped one.
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        const std::string path = m_dir.filePath("mine.toml").toStdString();
        std::ofstream(path) << kSmall;
        qputenv("TIERSCOPE_ENGINE_CATALOG", QByteArray::fromStdString(path));
    }

    void theUsersCatalogReplacesTheShippedOne() {
        const auto& active = EngineMetricCatalog::active();
        QCOMPARE(active.roles().size(), std::size_t(3));
        QVERIFY(active.role("load_bytes"));
        QVERIFY(!active.role("ttft_p99"));
        QVERIFY(EngineMetricCatalog::shipped().roles().size() > 30);
    }

    // As engines spell them: ':' or '_' after the prefix, with or without _total.
    void namesMatchAsEnginesSpellThem() {
        QCOMPARE(EngineMetricCatalog::canonical("sglang:prompt_tokens_total"),
                 std::string("sglang_prompt_tokens"));
        QCOMPARE(EngineMetricCatalog::canonical("sglang_prompt_tokens"),
                 std::string("sglang_prompt_tokens"));
        const auto& c = EngineMetricCatalog::shipped();
        for (const char* served :
             {"sglang:time_to_first_token_seconds", "sglang_time_to_first_token_seconds"}) {
            const auto e = c.entries(served, {});
            QCOMPARE(e.size(), std::size_t(1));
            QCOMPARE(e[0].first->name, std::string("ttft"));
            QCOMPARE(e[0].second->engine, std::string("sglang"));
        }
        QCOMPARE(c.entries("vllm:prompt_tokens_total", {}).at(0).first->name,
                 std::string("prompt_tokens"));
        QVERIFY(c.entries("vllm:prompt_tokens_created", {}).empty());
        // The unit an OpenTelemetry exporter appends to LMCache's declared name.
        QCOMPARE(c.entries("lmcache_mp_lookup_hit_tokens_total", {}).at(0).first->name,
                 std::string("lmcache_hit_tokens"));
        QVERIFY(c.entries("lmcache_mp_lookup_hit_widgets_total", {}).empty());
    }

    // A selector keeps a family's other series out of the role.
    void aSelectorTakesOnlyItsSeries() {
        const auto c = EngineMetricCatalog::parse(kSmall, "small");
        const auto in =
            c.entries("vllm:kv_offload_total_bytes_total", {{"transfer_type", "CPU_to_GPU"}});
        QCOMPARE(in.size(), std::size_t(1));
        QCOMPARE(in[0].first->name, std::string("load_bytes"));
        QCOMPARE(in[0].second->selector.size(), std::size_t(1));
        QVERIFY(
            c.entries("vllm:kv_offload_total_bytes", {{"transfer_type", "GPU_to_CPU"}}).empty());
    }

    // Every family of the shipped catalog belongs to a known engine, is unique within its role,
    // and each role a reader needs is there with the type it reads.
    void theShippedCatalogIsWhole() {
        const auto& c = EngineMetricCatalog::shipped();
        std::set<std::size_t> ids;
        for (const auto& r : c.roles()) {
            QVERIFY2(!r.families.empty(), r.name.c_str());
            std::set<std::string> seen;
            for (const auto& f : r.families) {
                QVERIFY2(c.engine(f.engine), f.text.c_str());
                QVERIFY2(seen.insert(f.text).second, f.text.c_str());
                QVERIFY(ids.insert(f.id).second);
            }
        }
        QCOMPARE(ids.size(), c.familyCount());
        const std::pair<const char*, const char*> needed[] = {
            {"ttft", "histogram"},
            {"queue_time", "histogram"},
            {"prefill_time", "histogram"},
            {"lmcache_retrieve", "histogram"},
            {"prompt_tokens_by_source", "counter"},
            {"requests_waiting_by_reason", "gauge"},
            {"kv_tier_read_bytes", "counter"},
            {"kv_offload_load_bytes", "counter"},
            {"prefix_cache_hits", "counter"},
            {"lmcache_hit_tokens", "counter"},
            {"kv_recomputed_tokens", "counter"}};
        for (const auto& [name, type] : needed) {
            QVERIFY2(c.role(name), name);
            QCOMPARE(c.role(name)->type, std::string(type));
        }
        QCOMPARE(c.role("prompt_tokens_by_source")->split, std::string("source"));
        QCOMPARE(c.role("kv_tier_read_bytes")->split, std::string("tier"));
    }

    // The schema canary: per engine the exposition speaks, which roles it served and which not.
    void coverageNamesWhatAnEngineDidNotServe() {
        const auto c = EngineMetricCatalog::parse(kSmall, "small");
        std::set<std::size_t> served;
        for (const auto& [role, family] : c.entries("vllm:time_to_first_token_seconds", {}))
            served.insert(family->id);
        const auto coverage = c.coverage(served);
        QCOMPARE(coverage.size(), std::size_t(1)); // LMCache is not spoken: not "missing"
        QCOMPARE(coverage[0].engine, std::string("vllm"));
        QCOMPARE(coverage[0].served, std::vector<std::string>{"ttft"});
        QCOMPARE(coverage[0].missing, std::vector<std::string>{"load_bytes"});
    }

    void whatDoesNotReadIsRefusedWithItsLine() {
        const std::pair<const char*, const char*> broken[] = {
            {"[[role]]\nname = \"x\"\ntype = \"summary\"\nunit = \"s\"\ntitle = \"x\"\n"
             "families = [\"a\"]\n",
             "type must be counter, gauge or histogram"},
            {"[[role]]\nname = \"x\"\ntype = \"gauge\"\nunit = \"s\"\ntitle = \"x\"\n",
             "has no families"},
            {"[[role]]\nname = \"x\"\ntype = \"gauge\"\nunit = \"s\"\ntitle = \"x\"\n"
             "families = ['a{b=c}']\n",
             "must read label=\"value\""},
            {"[[role]]\nname = \"x\"\ntype = \"counter\"\nunit = \"blocks\"\ntitle = \"x\"\n"
             "adds_to = \"y\"\nfamilies = [\"a\"]\n",
             "adds_to names no earlier role y"},
            {"[[role]]\nname = \"y\"\ntype = \"counter\"\nunit = \"bytes\"\ntitle = \"y\"\n"
             "families = [\"b\"]\n[[role]]\nname = \"x\"\ntype = \"gauge\"\nunit = "
             "\"bytes\"\ntitle = \"x\"\nadds_to = \"y\"\nfamilies = [\"a\"]\n",
             "adds_to needs a counter in bytes or blocks"},
            {"[[engine]]\nid = \"k\"\ntitle = \"k\"\nprefixes = [\"k_\"]\nblock_bytes = "
             "-1\n[[role]]\nname = \"y\"\ntype = \"counter\"\nunit = \"bytes\"\ntitle "
             "= \"y\"\nfamilies = [\"k_b\"]\n",
             "block_bytes must be a positive number"},
            {"[[role]\n", "mine.toml:1"},
            {"", "no [[role]]"}};
        for (const auto& [text, why] : broken) {
            try {
                EngineMetricCatalog::parse(text, "mine.toml");
                QFAIL(text);
            } catch (const std::invalid_argument& e) {
                QVERIFY2(std::string(e.what()).find(why) != std::string::npos, e.what());
                QVERIFY2(std::string(e.what()).starts_with("mine.toml"), e.what());
            }
        }
    }

    // The command line reads a user's catalog before anything else: one that does not read
    // stops it with the file and line, as a usage error, before any engine is scraped.
    void theCommandLineRefusesACatalogThatDoesNotRead() {
        const QString broken = m_dir.filePath("broken.toml");
        std::ofstream(broken.toStdString()) << "[[role]]\nname = \"x\"\n";
        QProcess p;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("TIERSCOPE_ENGINE_CATALOG", broken);
        p.setProcessEnvironment(env);
        p.start(TIERSCOPE_BINARY, {"--db", m_dir.filePath("w.db"), "sessions"});
        QVERIFY(p.waitForFinished(60000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QCOMPARE(p.exitCode(), 2);
        QVERIFY2(err.contains(broken + ":1: no type"), qPrintable(err));
        env.insert("TIERSCOPE_ENGINE_CATALOG", m_dir.filePath("mine.toml"));
        p.setProcessEnvironment(env);
        p.start(TIERSCOPE_BINARY, {"--db", m_dir.filePath("w.db"), "sessions"});
        QVERIFY(p.waitForFinished(60000));
        // Past the catalog: the command itself answers (no such workspace yet).
        QCOMPARE(p.exitCode(), 6);
        QVERIFY(!QString::fromUtf8(p.readAllStandardError()).contains("does not read"));
    }
};

QTEST_MAIN(TestEngineMetricCatalog)
#include "tst_enginemetriccatalog.moc"
