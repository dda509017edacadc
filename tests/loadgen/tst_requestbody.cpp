#include "SseTestServer.h"
#include "core/util/WallClock.h"
#include "loadgen/LoadGenerator.h"

#include <QtTest>
#include <nlohmann/json.hpp>

using namespace tierscope;
using Sse = test::SseTestServer;

// What every request carries beside the prompt: vLLM bench serve's ignore_eos, so outputs are
// max_tokens long whatever the model generates, and the fields of an extra body (its
// --extra-body), merged in; never the fields the measurement depends on.
class TestRequestBody : public QObject {
    Q_OBJECT
  private:
    static Sse::Reply complete(const std::string&) {
        Sse::Reply r;
        r.events = {{0, Sse::textChunk("a")}, {0, Sse::usageChunk(3, 1)}, {0, Sse::done()}};
        return r;
    }

    // The bodies a two-request run sent with these options.
    static std::vector<nlohmann::json> sent(LoadGenerator::Options o, const char* api) {
        Sse server(complete);
        WallClock clock;
        o.url = server.url();
        o.model = "m";
        o.api = api;
        o.concurrency = 1;
        o.requests = 2;
        LoadGenerator generator(o, {Conversation{"", {"q"}, {5}}, Conversation{"", {"r"}, {5}}},
                                clock);
        for (const auto& r : generator.run())
            if (!r.ok())
                qFatal("request failed: %s", r.error.c_str());
        std::vector<nlohmann::json> out;
        for (const auto& b : server.bodies())
            out.push_back(nlohmann::json::parse(b));
        return out;
    }

  private slots:
    void ignoreEosAndTheExtraBodyReachEveryRequest() {
        for (const char* api : {"completions", "chat"}) {
            LoadGenerator::Options plain;
            for (const auto& body : sent(plain, api)) {
                QVERIFY(!body.contains("ignore_eos")); // vLLM's default stays the engine's
                QCOMPARE(body["max_tokens"].get<int>(), 5);
            }
            LoadGenerator::Options o;
            o.ignoreEos = true;
            o.extraBody = {{"top_k", 1}, {"priority", -2}, {"stop_token_ids", {2, 3}}};
            const auto bodies = sent(o, api);
            QCOMPARE(bodies.size(), std::size_t(2));
            for (const auto& body : bodies) {
                QCOMPARE(body["ignore_eos"].get<bool>(), true);
                QCOMPARE(body["top_k"].get<int>(), 1);
                QCOMPARE(body["priority"].get<int>(), -2);
                QCOMPARE(body["stop_token_ids"], nlohmann::json({2, 3}));
                // What tierscope owns is untouched.
                QCOMPARE(body["max_tokens"].get<int>(), 5);
                QCOMPARE(body["stream"].get<bool>(), true);
                QCOMPARE(body["stream_options"]["include_usage"].get<bool>(), true);
                QCOMPARE(body["model"].get<std::string>(), std::string("m"));
            }
            // The extra body may set the sampling temperature tierscope defaults to 0.
            LoadGenerator::Options warm;
            warm.extraBody = {{"temperature", 0.7}};
            QCOMPARE(sent(warm, api)[0]["temperature"].get<double>(), 0.7);
        }
    }

    void theExtraBodyMayNotSetWhatTheMeasurementIs() {
        QVERIFY(!LoadGenerator::checkExtraBody(nlohmann::json::object()));
        QVERIFY(!LoadGenerator::checkExtraBody({{"ignore_eos", false}, {"seed", 3}}));
        for (const char* key : {"model", "prompt", "messages", "stream", "stream_options",
                                "max_tokens", "max_completion_tokens", "n"}) {
            const auto why = LoadGenerator::checkExtraBody({{key, 1}});
            QVERIFY2(why && why->find(key) != std::string::npos, key);
        }
        QVERIFY(LoadGenerator::checkExtraBody(nlohmann::json::array({1})));
        QVERIFY(LoadGenerator::checkExtraBody("top_k"));
        // The generator refuses such a body outright, before any request.
        LoadGenerator::Options o;
        o.url = "http://127.0.0.1:9";
        o.model = "m";
        o.concurrency = 1;
        o.requests = 1;
        o.extraBody = {{"stream", false}};
        WallClock clock;
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 LoadGenerator(o, {Conversation{"", {"q"}, {5}}}, clock));
    }
};

QTEST_GUILESS_MAIN(TestRequestBody)
#include "tst_requestbody.moc"
