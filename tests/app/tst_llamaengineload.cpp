#include "LlamaEngine.h"
#include "TestSupport.h"
#include "collectors/engine/PrometheusTextParser.h"
#include "core/store/Store.h"

#include <QProcess>
#include <QTemporaryDir>
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

using namespace tierscope;
using tierscope::test::LlamaEngine;

// `tierscope load` against a real engine: llama.cpp (through node-llama-cpp) running a small
// generated llama model, behind the fixture's OpenAI-compatible server, which measures its own
// request phases into vLLM-named histograms. What tierscope measured from the client must
// agree with what the engine measured for the same requests: the mean TTFT within 5 % or
// 20 ms (the client's interval also holds the connection, the request's transfer and the first
// chunk's way back), the prompt and output token counts exactly.
class TestLlamaEngineLoad : public QObject {
    Q_OBJECT
  private:
    struct Result {
        int code = -1;
        QByteArray out, err;
    };
    static Result run(const QStringList& args) {
        QProcess p;
        p.start(TIERSCOPE_BINARY, args);
        p.waitForFinished(240000);
        return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
    }

    // The engine's value of a counter or a histogram's _sum/_count (one series: one engine).
    static double value(const std::string& metrics, const std::string& name) {
        double total = 0;
        bool found = false;
        for (const auto& s : PrometheusTextParser::parse(metrics).samples)
            if (s.name == name) {
                total += s.value;
                found = true;
            }
        if (!found)
            qFatal("the engine's /metrics has no %s", name.c_str());
        return total;
    }

    // The engine's request log (one JSON line per finished request) from line `from` on.
    std::vector<nlohmann::json> requestLog(std::size_t from = 0) const {
        QFile f(m_dir.filePath("engine.jsonl"));
        std::vector<nlohmann::json> out;
        if (!f.open(QIODevice::ReadOnly))
            return out;
        std::size_t line = 0;
        for (const QByteArray& text : f.readAll().split('\n'))
            if (!text.trimmed().isEmpty() && line++ >= from)
                out.push_back(nlohmann::json::parse(text.toStdString()));
        return out;
    }

    // One load through the API; the engine's deltas over it against tierscope's figures.
    void agreesWithTheEngine(const QString& api, int concurrency, int requests) {
        QTemporaryDir dir;
        LlamaEngine& engine = m_engine;
        const std::size_t logFrom = requestLog().size();
        const std::string before = engine.metrics();
        QVERIFY(!before.empty());
        constexpr int kOutput = 8;
        const auto r = run({"--db",
                            dir.filePath("w.db"),
                            "load",
                            "--url",
                            engine.url(),
                            "--model",
                            "tiny-llama",
                            "--api",
                            api,
                            "--concurrency",
                            QString::number(concurrency),
                            "--requests",
                            QString::number(requests),
                            "--warmup",
                            "0",
                            "--input-len",
                            "40-100",
                            "--output-len",
                            QString::number(kOutput),
                            "--seed",
                            "11",
                            "--out",
                            dir.filePath("r.json")});
        QVERIFY2(r.code == 0, (r.err + r.out + engine.log().toUtf8()).constData());
        const std::string after = engine.metrics();
        QFile file(dir.filePath("r.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(file.readAll().toStdString());
        QCOMPARE(json["completed"].get<int>(), requests);

        auto delta = [&](const std::string& name) {
            return value(after, name) - value(before, name);
        };
        // Every request the engine finished is one tierscope measured.
        QCOMPARE(delta("vllm:time_to_first_token_seconds_count"), double(requests));
        QCOMPARE(delta("vllm:request_success_total"), double(requests));
        const double engineTtftMs = 1000 * delta("vllm:time_to_first_token_seconds_sum") / requests;
        const double clientTtftMs = json["mean_ttft_ms"].get<double>();
        const double allowedMs = std::max(20.0, 0.05 * engineTtftMs);
        qInfo("%s, concurrency %d: mean TTFT tierscope %.2f ms, engine %.2f ms (allowed %.1f ms)",
              qPrintable(api), concurrency, clientTtftMs, engineTtftMs, allowedMs);
        QVERIFY2(std::abs(clientTtftMs - engineTtftMs) <= allowedMs,
                 qPrintable(
                     QString("tierscope %1 ms, engine %2 ms").arg(clientTtftMs).arg(engineTtftMs)));

        // Tokens: the usage chunks tierscope read against the engine's own counters.
        QCOMPARE(json["total_input_tokens"].get<double>(), delta("vllm:prompt_tokens_total"));
        QCOMPARE(json["total_output_tokens"].get<double>(), double(requests * kOutput));
        QCOMPARE(delta("vllm:generation_tokens_total"), double(requests * kOutput));

        // Per request: the engine's log and the stored requests hold the same output counts, and
        // the prompts are tokens, not words (a real tokenizer splits long words).
        const auto logged = requestLog(logFrom);
        QCOMPARE(logged.size(), std::size_t(requests));
        long prompt = 0;
        for (const auto& l : logged) {
            QCOMPARE(l["completion_tokens"].get<int>(), kOutput);
            QCOMPARE(l["finish_reason"].get<std::string>(), std::string("length"));
            prompt += l["prompt_tokens"].get<long>();
        }
        QCOMPARE(json["total_input_tokens"].get<double>(), double(prompt));
        Store store(dir.filePath("w.db").toStdString(), Store::Mode::ReadOnly);
        const auto stored = store.requests(json["run_id"].get<std::int64_t>());
        QCOMPARE(stored.size(), std::size_t(requests));
        for (const auto& s : stored) {
            QVERIFY(s.ok);
            QCOMPARE(s.outputTokens.value_or(-1), kOutput);
        }
    }

    QTemporaryDir m_dir;
    LlamaEngine m_engine;

  private slots:
    // One engine for the suite (it takes seconds to start): --ignore-eos pins every output at
    // max_tokens, so token counts are known in advance; its KV tier is under the suite's
    // directory. Each test measures the engine's deltas over its own requests.
    void initTestCase() {
        QString why;
        QVERIFY2(m_engine.start({"--ignore-eos", "--kv-dir", m_dir.filePath("kv"), "--request-log",
                                 m_dir.filePath("engine.jsonl")},
                                &why),
                 qPrintable(why));
    }

    void cleanupTestCase() { m_engine.stop(); }

    // Two clients against an engine that serves one request at a time: the second waits in the
    // engine's queue, and both sides count that wait in TTFT.
    void completionsAgreeWithTheEngine() { agreesWithTheEngine("completions", 2, 6); }

    // Chat: vLLM's role chunk (no text) comes right before the first token's chunk.
    void chatAgreesWithTheEngine() { agreesWithTheEngine("chat", 1, 4); }

    // cold-recovery against the engine's KV tier on a directory: the documents' whole chunks are
    // stored, the prefix cache is reset, and each question restores its document's chunks from
    // the files; the engine's hit counter is what tierscope's cache evidence reports.
    void coldRecoveryRestoresFromTheKvTier() {
        QTemporaryDir dir;
        LlamaEngine& engine = m_engine;
        const std::size_t logFrom = requestLog().size();

        // The tier first, directly: a prompt computed, then restored after the reset, gives the
        // same greedy output, so the restored KV is the computed one.
        httplib::Client client(engine.url().toStdString());
        client.set_read_timeout(120, 0);
        std::string prompt;
        for (int i = 0; i < 160; ++i)
            prompt += i % 3 ? " storage tier" : " attention bandwidth";
        const std::string body = nlohmann::json{
            {"model", "tiny-llama"},
            {"prompt", prompt},
            {"max_tokens", 12},
            {"temperature", 0}}.dump();
        std::vector<std::string> texts;
        for (int i = 0; i < 2; ++i) {
            QVERIFY(client.Post("/reset_prefix_cache", "", "application/json"));
            const auto r = client.Post("/v1/completions", body, "application/json");
            QVERIFY(r && r->status == 200);
            texts.push_back(nlohmann::json::parse(r->body)["choices"][0]["text"]);
        }
        auto logged = requestLog(logFrom);
        QCOMPARE(logged.size(), std::size_t(2));
        const int promptTokens = logged[0]["prompt_tokens"].get<int>();
        QVERIFY2(promptTokens > 512, "the prompt should span at least two 256-token chunks");
        QCOMPARE(logged[0]["restored_tokens"].get<int>(), 0);
        QCOMPARE(logged[1]["restored_tokens"].get<int>(), promptTokens / 256 * 256);
        QCOMPARE(texts[1], texts[0]);

        const std::string before = engine.metrics();
        const auto r = run({"--db",
                            dir.filePath("w.db"),
                            "load",
                            "--url",
                            engine.url(),
                            "--model",
                            "tiny-llama",
                            "--concurrency",
                            "1",
                            "--dataset",
                            "cold-recovery",
                            "--documents",
                            "2",
                            "--document-tokens",
                            "300",
                            "--questions",
                            "2",
                            "--output-len",
                            "4",
                            "--reset-prefix-cache",
                            "--out",
                            dir.filePath("r.json")});
        QVERIFY2(r.code == 0, (r.err + r.out + engine.log().toUtf8()).constData());
        const std::string after = engine.metrics();
        QVERIFY2(r.out.contains("Reset: reset_prefix_cache ok"), r.out.constData());
        logged = requestLog(logFrom);
        QCOMPARE(logged.size(), std::size_t(2 + 2 + 4)); // the direct pair, documents, questions
        long restored = 0;
        for (std::size_t i = 4; i < logged.size(); ++i) {
            QVERIFY2(logged[i]["restored_tokens"].get<int>() >= 256, "every question restores");
            restored += logged[i]["restored_tokens"].get<long>();
        }
        const double hits = value(after, "lmcache:num_hit_tokens_total") -
                            value(before, "lmcache:num_hit_tokens_total");
        QCOMPARE(hits, double(restored));
        QFile file(dir.filePath("r.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto json = nlohmann::json::parse(file.readAll().toStdString());
        bool checked = false;
        for (const auto& check : json["validity"])
            if (check["check"] == "cache_evidence") {
                QCOMPARE(check["status"].get<std::string>(), std::string("pass"));
                QCOMPARE(check["hit_tokens"].get<double>(), hits);
                checked = true;
            }
        QVERIFY2(checked, json["validity"].dump().c_str());
        // The engine listens on this machine, so its own I/O (its process group's read_bytes)
        // is measured over the run: a figure, 0 or more, never absent.
        QVERIFY2(json.contains("engine_read_bytes") && json["engine_read_bytes"].is_number(),
                 json.dump().c_str());
        QVERIFY(json["evidence"]["engine_read_bytes"].is_number());
    }

    // A load's session holds the engine's /metrics, recorded during the load: analyze reads the
    // engine's figures from it (its TTFT breakdown counts the load's requests), never "no engine
    // data".
    void analyzeOfALoadSessionHasTheEngine() {
        QTemporaryDir dir;
        const QString db = dir.filePath("w.db");
        const auto r =
            run({"--db", db, "load", "--url", m_engine.url(), "--model", "tiny-llama",
                 "--concurrency", "1", "--requests", "3", "--input-len", "40", "--output-len", "4",
                 "--interval", "250ms", "--out", dir.filePath("r.json")});
        QVERIFY2(r.code == 0, (r.err + r.out + m_engine.log().toUtf8()).constData());
        QFile file(dir.filePath("r.json"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const auto session = nlohmann::json::parse(file.readAll().toStdString())["session_id"];
        const auto a = run({"--db", db, "analyze", "--session",
                            QString::number(session.get<std::int64_t>()), "--format", "json"});
        QVERIFY2(a.code == 0, a.err.constData());
        const auto analysis = nlohmann::json::parse(a.out.toStdString());
        qInfo("analyze of the load session: %s",
              analysis["ttft_breakdown"]["text"].get<std::string>().c_str());
        QCOMPARE(analysis["ttft_breakdown"]["requests"].get<double>(), 3.0);
        QVERIFY(analysis["ttft_breakdown"]["queue_mean_s"].is_number());
        QCOMPARE(analysis["engine_roles"].size(), std::size_t(1));
        QVERIFY2(!a.out.contains("no engine data") && !a.out.contains("no-engine-data"),
                 a.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestLlamaEngineLoad)
#include "tst_llamaengineload.moc"
