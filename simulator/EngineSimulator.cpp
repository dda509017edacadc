#include "simulator/EngineSimulator.h"

#include "simulator/SimulatedKvTiers.h"
#include "simulator/SimulatedMetrics.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <httplib.h>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <sys/socket.h>

namespace tierscope {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string w; in >> w;)
        out.push_back(std::move(w));
    return out;
}

// Prefix-dependent hashes of each complete chunk, as a KV-cache key: FNV-1a over every token
// from the start of the prompt to the end of the chunk.
std::vector<std::uint64_t> chunkHashes(const std::vector<std::string>& tokens, int chunkTokens) {
    std::vector<std::uint64_t> out;
    std::uint64_t h = 1469598103934665603ull;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        for (const char c : tokens[i])
            h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
        h = (h ^ 0x20) * 1099511628211ull;
        if ((i + 1) % static_cast<std::size_t>(chunkTokens) == 0)
            out.push_back(h);
    }
    return out;
}

std::string promptOf(const nlohmann::json& body, bool chat) {
    if (!chat) {
        const auto& p = body.value("prompt", nlohmann::json(""));
        return p.is_string() ? p.get<std::string>() : p.dump();
    }
    std::string text;
    for (const auto& m : body.value("messages", nlohmann::json::array())) {
        const auto& c = m.value("content", nlohmann::json(""));
        text += (c.is_string() ? c.get<std::string>() : c.dump()) + " ";
    }
    return text;
}

} // namespace

struct EngineSimulator::Plan {
    std::int64_t id = 0;
    int promptTokens = 0;
    int maxTokens = 0;
    std::vector<std::uint64_t> cachedChunks;
    std::vector<std::uint64_t> missChunks;
    double queueS = 0;
    // For the phase histograms: arrival at the front end, the end of queueing (vLLM's
    // "scheduled"), and the first token.
    Clock::time_point arrival, admitted, firstToken;
};

// One request to /v1/completions or /v1/chat/completions as it arrived, with its injected fault.
struct EngineSimulator::Completion {
    bool chat = false;
    std::int64_t requestId = 0;
    Clock::time_point arrival;
    std::string prompt;
    int maxTokens = 0;
    bool usage = false;
    std::string fault; // "", "disconnect" or "stall"
    std::string id;
    std::string object;
    long created = 0;
};

EngineSimulator::EngineSimulator(Options options)
    : m_options(std::move(options)), m_server(std::make_unique<httplib::Server>()),
      m_metrics(std::make_unique<SimulatedMetrics>(m_options.model, !m_options.kvDir.empty(),
                                                   m_options.kvConnector)),
      m_random(m_options.seed) {
    if (m_options.threads <= 0)
        m_options.threads = m_options.maxConcurrency + 32;
    m_server->new_task_queue = [threads = m_options.threads] {
        return new httplib::ThreadPool(threads);
    };
    // Token chunks are tiny writes: without TCP_NODELAY, Nagle holds each one until the client's
    // delayed ACK (~40 ms), which would show up as TTFT and ITL.
    m_server->set_tcp_nodelay(true);
    // cpp-httplib closes a keep-alive connection after 5 requests by default; engines do not,
    // and every reconnect would add a TCP handshake to some request's TTFT.
    m_server->set_keep_alive_max_count(m_options.closeConnections ? 1 : 1'000'000);
    m_server->set_keep_alive_timeout(60);
    // Remember the listening socket: start() raises its backlog past cpp-httplib's built-in 5.
    m_server->set_socket_options([this](int fd) {
        int yes = 1;
        ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
        m_listenFd = fd;
    });
    routes();
    m_kvTiers = std::make_unique<SimulatedKvTiers>(m_options); // starts the KV writer
}

EngineSimulator::~EngineSimulator() {
    stop();
    // The KV writer after the server: no request is left to queue a write or to wait for one.
    m_kvTiers.reset();
}

bool EngineSimulator::kvDirectIo() const {
    return m_kvTiers->kvDirectIo();
}

int EngineSimulator::start() {
    const int port =
        m_options.port == 0
            ? m_server->bind_to_any_port(m_options.host)
            : (m_server->bind_to_port(m_options.host, m_options.port) ? m_options.port : -1);
    if (port <= 0)
        throw std::runtime_error("cannot listen on " + m_options.host + ":" +
                                 std::to_string(m_options.port));
    // A burst of connections (64 streams opening at once) overflows a 5-deep accept queue, and
    // the kernel drops SYNs that clients resend only after a second: raise it as servers do.
    if (m_listenFd >= 0)
        ::listen(m_listenFd, 4096);
    if (m_options.kvConnector == "lmcache-mp")
        startLmcacheServer();
    auto returned = std::make_shared<std::atomic<bool>>(false);
    m_listener = std::thread([this, returned] {
        m_server->listen_after_bind();
        *returned = true;
    });
    // cpp-httplib's stop() does nothing until its accept loop runs, and the loop would then run
    // on: a stop() right after start() (a Ctrl-C during start-up) must find it running.
    while (!m_server->is_running() && !*returned)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return port;
}

// LMCache's multi-process server answers on a port of its own: its lookups, read from the
// same tiers the engine reads.
void EngineSimulator::startLmcacheServer() {
    m_mpServer = std::make_unique<httplib::Server>();
    m_mpServer->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
        res.set_content(m_kvTiers->lmcacheMpText(), "text/plain; version=0.0.4");
    });
    m_mpPort = m_options.lmcacheMpPort == 0
                   ? m_mpServer->bind_to_any_port(m_options.host)
                   : (m_mpServer->bind_to_port(m_options.host, m_options.lmcacheMpPort)
                          ? m_options.lmcacheMpPort
                          : -1);
    if (m_mpPort <= 0)
        throw std::runtime_error("cannot listen for LMCache's server on " + m_options.host + ":" +
                                 std::to_string(m_options.lmcacheMpPort));
    auto returned = std::make_shared<std::atomic<bool>>(false);
    m_mpListener = std::thread([this, returned] {
        m_mpServer->listen_after_bind();
        *returned = true;
    });
    while (!m_mpServer->is_running() && !*returned)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void EngineSimulator::stop() {
    if (m_mpServer)
        m_mpServer->stop();
    if (m_mpListener.joinable())
        m_mpListener.join();
    if (m_server)
        m_server->stop();
    if (m_listener.joinable())
        m_listener.join();
}

void EngineSimulator::wait() {
    if (m_listener.joinable())
        m_listener.join();
}

bool EngineSimulator::roll(double rate) {
    if (rate <= 0)
        return false;
    std::lock_guard lock(m_mutex);
    return std::uniform_real_distribution<double>(0, 1)(m_random) < rate;
}

EngineSimulator::Plan EngineSimulator::admit(std::int64_t id, const std::string& prompt,
                                             int maxTokens) {
    const auto tokens = words(prompt);
    const auto chunks = chunkHashes(tokens, m_options.chunkTokens);
    const auto arrival = Clock::now();
    Plan plan;
    plan.id = id;
    plan.promptTokens = static_cast<int>(tokens.size());
    plan.maxTokens = maxTokens;
    std::unique_lock lock(m_mutex);
    ++m_waiting;
    m_slotFree.wait(lock, [&] { return m_running < m_options.maxConcurrency; });
    --m_waiting;
    ++m_running;
    plan.queueS = since(arrival);
    plan.admitted = Clock::now();
    std::size_t i = 0;
    for (; i < chunks.size(); ++i) {
        const auto it = m_cached.find(chunks[i]);
        if (it == m_cached.end())
            break;
        m_lru.splice(m_lru.begin(), m_lru, it->second); // touch
        plan.cachedChunks.push_back(chunks[i]);
    }
    plan.missChunks.assign(chunks.begin() + static_cast<std::ptrdiff_t>(i), chunks.end());
    m_activeTokens += plan.promptTokens + maxTokens;
    m_metrics->countPrompt(plan.promptTokens,
                           static_cast<double>(plan.cachedChunks.size()) * m_options.chunkTokens);
    return plan;
}

void EngineSimulator::release(const Plan& plan) {
    {
        std::lock_guard lock(m_mutex);
        --m_running;
        m_activeTokens -= plan.promptTokens + plan.maxTokens;
    }
    m_slotFree.notify_one();
}

void EngineSimulator::remember(RequestRecord record) {
    // A soak sends millions of requests: the simulator must not be what grows.
    if (m_records.size() >= std::max<std::size_t>(1, m_options.recordLimit))
        m_records.pop_front();
    m_records.push_back(std::move(record));
}

std::vector<EngineSimulator::RequestRecord> EngineSimulator::records() const {
    std::lock_guard lock(m_mutex);
    return {m_records.begin(), m_records.end()};
}

std::string EngineSimulator::metricsText() const {
    std::lock_guard lock(m_mutex);
    if (m_options.kvConnector == "hicache") {
        const auto [host, storage] = m_kvTiers->hitTokensByTier();
        const double usage = std::min(1.0, static_cast<double>(m_activeTokens) /
                                               static_cast<double>(m_options.kvCapacityTokens));
        return m_metrics->sglangText(m_running, m_waiting, usage, host, storage) +
               m_metrics->processText();
    }
    std::string out =
        m_metrics->text(m_running, m_waiting,
                        std::min(1.0, static_cast<double>(m_activeTokens) /
                                          static_cast<double>(m_options.kvCapacityTokens)),
                        m_deferred);
    out += m_kvTiers->lmcacheMetricsText(m_cached.size());
    out += m_metrics->processText();
    return out;
}

void EngineSimulator::resetPrefixCache() {
    std::lock_guard lock(m_mutex);
    m_metrics->countPrefixReset();
    if (!m_options.kvDir.empty())
        return;
    m_lru.clear();
    m_cached.clear();
}

void EngineSimulator::routes() {
    m_server->Post("/reset_prefix_cache", [this](const httplib::Request&, httplib::Response& res) {
        handleResetPrefixCache(res);
    });
    m_server->Get("/metrics",
                  [this](const httplib::Request&, httplib::Response& res) { handleMetrics(res); });
    m_server->Get("/v1/models",
                  [this](const httplib::Request&, httplib::Response& res) { handleModels(res); });
    m_server->Get("/sim/requests",
                  [this](const httplib::Request&, httplib::Response& res) { handleRequests(res); });
    m_server->Post("/v1/completions", [this](const httplib::Request& req, httplib::Response& res) {
        handleCompletion(req, res, false);
    });
    m_server->Post("/v1/chat/completions",
                   [this](const httplib::Request& req, httplib::Response& res) {
                       handleCompletion(req, res, true);
                   });
}

void EngineSimulator::handleResetPrefixCache(httplib::Response& res) {
    resetPrefixCache();
    res.status = 200;
}

void EngineSimulator::handleMetrics(httplib::Response& res) const {
    res.set_content(metricsText(), "text/plain; version=0.0.4");
}

void EngineSimulator::handleModels(httplib::Response& res) const {
    const nlohmann::json models = {
        {"object", "list"},
        {"data", {{{"id", m_options.model}, {"object", "model"}, {"owned_by", "tierscope-sim"}}}}};
    res.set_content(models.dump(), "application/json");
}

void EngineSimulator::handleRequests(httplib::Response& res) const {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : records())
        out.push_back({{"id", r.id},
                       {"prompt_tokens", r.promptTokens},
                       {"cached_tokens", r.cachedTokens},
                       {"queue_s", r.queueS},
                       {"prefill_s", r.prefillS},
                       {"kv_read_s", r.kvReadS},
                       {"kv_bytes_read", r.kvBytesRead},
                       {"ttft_s", r.ttftS},
                       {"fault", r.fault}});
    res.set_content(out.dump(), "application/json");
}

void EngineSimulator::handleCompletion(const httplib::Request& req, httplib::Response& res,
                                       bool chat) {
    Completion c;
    c.chat = chat;
    c.arrival = Clock::now();
    c.requestId = m_nextId++;
    const auto body = nlohmann::json::parse(req.body, nullptr, false);
    if (body.is_discarded() || !body.is_object()) {
        res.status = 400;
        res.set_content(
            R"({"error":{"message":"request body is not a JSON object","type":"BadRequestError"}})",
            "application/json");
        return;
    }
    c.maxTokens = std::max(1, body.value("max_tokens", body.value("max_completion_tokens", 16)));
    const bool stream = body.value("stream", false);
    c.usage = body.contains("stream_options") && body["stream_options"].is_object() &&
              body["stream_options"].value("include_usage", false);
    c.prompt = promptOf(body, chat);
    if (roll(m_options.errorRate)) {
        std::lock_guard lock(m_mutex);
        remember({c.requestId, 0, 0, 0, 0, 0, 0, 0, "error"});
        res.status = 500;
        res.set_content(R"({"error":{"message":"injected failure","type":"InternalServerError"}})",
                        "application/json");
        return;
    }
    c.fault = roll(m_options.disconnectRate) ? "disconnect"
              : roll(m_options.stallRate)    ? "stall"
                                             : "";
    c.id = (chat ? "chatcmpl-" : "cmpl-") + std::to_string(c.requestId);
    c.object = chat ? "chat.completion.chunk" : "text_completion";
    c.created = static_cast<long>(std::time(nullptr));
    if (!stream) {
        replyWhole(c, res);
        return;
    }
    res.set_chunked_content_provider(
        "text/event-stream",
        [this, c](std::size_t, httplib::DataSink& sink) { return streamReply(c, sink); });
}

EngineSimulator::Plan EngineSimulator::prefill(const Completion& c) {
    Plan plan = admit(c.requestId, c.prompt, c.maxTokens);
    plan.arrival = c.arrival;
    const bool deferred = m_options.kvConnector == "offloading" && !plan.cachedChunks.empty();
    if (deferred) {
        std::lock_guard lock(m_mutex);
        ++m_deferred;
    }
    const SimulatedKvTiers::KvRetrieval kv =
        m_kvTiers->retrieveKv(plan.cachedChunks, plan.promptTokens);
    if (deferred) {
        std::lock_guard lock(m_mutex);
        --m_deferred;
    }
    const std::int64_t bytes = kv.bytes;
    const double kvRead = kv.readS;
    const int cached =
        static_cast<int>(plan.cachedChunks.size()) * m_options.chunkTokens - kv.recomputedTokens;
    const double prefillS = (plan.promptTokens - cached) / m_options.prefillTokensPerS;
    std::this_thread::sleep_for(std::chrono::duration<double>(prefillS));
    m_kvTiers->storeKv(plan.missChunks);
    plan.firstToken = Clock::now();
    const double ttft = since(c.arrival);
    std::lock_guard lock(m_mutex);
    cacheChunks(plan.missChunks);
    const RequestRecord record{
        plan.id, plan.promptTokens, cached, plan.queueS, prefillS, kvRead, ttft, bytes, c.fault};
    m_metrics->observeFirstToken(
        ttft, plan.queueS, std::chrono::duration<double>(plan.firstToken - plan.admitted).count(),
        plan.cachedChunks.empty() ? std::nullopt : std::optional<double>(record.kvReadS));
    remember(record);
    return plan;
}

void EngineSimulator::cacheChunks(const std::vector<std::uint64_t>& chunks) {
    const std::size_t capacity = static_cast<std::size_t>(
        std::max<std::int64_t>(1, m_options.kvCapacityTokens / m_options.chunkTokens));
    for (const auto hash : chunks) {
        if (m_cached.count(hash))
            continue;
        m_lru.push_front(hash);
        m_cached[hash] = m_lru.begin();
        while (m_cached.size() > capacity) {
            const auto victim = m_lru.back();
            m_lru.pop_back();
            m_cached.erase(victim);
            m_kvTiers->removeKv(victim);
        }
    }
}

void EngineSimulator::replyWhole(const Completion& c, httplib::Response& res) {
    const Plan plan = prefill(c);
    std::this_thread::sleep_for(
        std::chrono::duration<double>((c.maxTokens - 1) / m_options.decodeTokensPerS));
    std::string text;
    for (int t = 0; t < c.maxTokens; ++t)
        text += "tok ";
    {
        std::lock_guard lock(m_mutex);
        m_metrics->countGenerated(c.maxTokens);
        m_metrics->observeFinished(plan.arrival, plan.admitted, plan.firstToken);
    }
    release(plan);
    nlohmann::json choice =
        c.chat ? nlohmann::json{{"index", 0},
                                {"message", {{"role", "assistant"}, {"content", text}}},
                                {"finish_reason", "length"}}
               : nlohmann::json{{"index", 0}, {"text", text}, {"finish_reason", "length"}};
    const nlohmann::json reply = {{"id", c.id},
                                  {"object", c.chat ? "chat.completion" : "text_completion"},
                                  {"created", c.created},
                                  {"model", m_options.model},
                                  {"choices", {choice}},
                                  {"usage",
                                   {{"prompt_tokens", plan.promptTokens},
                                    {"completion_tokens", c.maxTokens},
                                    {"total_tokens", plan.promptTokens + c.maxTokens}}}};
    res.set_content(reply.dump(), "application/json");
}

bool EngineSimulator::streamReply(const Completion& c, httplib::DataSink& sink) {
    const Plan plan = prefill(c);
    const auto first = Clock::now();
    auto event = [&](const nlohmann::json& choice, const char* finish) {
        nlohmann::json chunk = choice;
        chunk["index"] = 0;
        chunk["finish_reason"] = finish ? nlohmann::json(finish) : nlohmann::json(nullptr);
        const nlohmann::json data = {{"id", c.id},
                                     {"object", c.object},
                                     {"created", c.created},
                                     {"model", m_options.model},
                                     {"choices", {chunk}}};
        const std::string line = "data: " + data.dump() + "\n\n";
        return sink.write(line.data(), line.size());
    };
    auto token = [&](const char* finish) {
        return c.chat ? event({{"delta", {{"content", "tok "}}}}, finish)
                      : event({{"text", "tok "}}, finish);
    };
    bool alive = !c.chat || event({{"delta", {{"role", "assistant"}, {"content", ""}}}}, nullptr);
    int sent = 0;
    for (int t = 0; alive && t < c.maxTokens; ++t) {
        if (t > 0)
            std::this_thread::sleep_until(
                first + std::chrono::duration<double>(t / m_options.decodeTokensPerS));
        if (t == c.maxTokens / 2 && c.fault == "disconnect")
            alive = false;
        if (t == c.maxTokens / 2 && c.fault == "stall")
            std::this_thread::sleep_for(std::chrono::milliseconds(m_options.stallMs));
        if (alive && (alive = token(t + 1 == c.maxTokens ? "length" : nullptr)))
            ++sent;
    }
    {
        std::lock_guard lock(m_mutex);
        m_metrics->countGenerated(sent);
        if (alive) // vLLM observes finished requests, not aborted ones
            m_metrics->observeFinished(plan.arrival, plan.admitted, plan.firstToken);
    }
    if (alive && c.usage) {
        const nlohmann::json chunk = {{"id", c.id},
                                      {"object", c.object},
                                      {"created", c.created},
                                      {"model", m_options.model},
                                      {"choices", nlohmann::json::array()},
                                      {"usage",
                                       {{"prompt_tokens", plan.promptTokens},
                                        {"completion_tokens", sent},
                                        {"total_tokens", plan.promptTokens + sent}}}};
        const std::string line = "data: " + chunk.dump() + "\n\n";
        alive = sink.write(line.data(), line.size());
    }
    if (alive) {
        static const std::string done = "data: [DONE]\n\n";
        sink.write(done.data(), done.size());
        sink.done();
    }
    release(plan);
    return alive; // false drops the connection mid-stream
}

} // namespace tierscope
