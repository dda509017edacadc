// Load-generator client cost: CPU time of the client (all its threads: the process's CPU time
// less the server thread's) per streamed event and per request at 1,000 and 4,000 concurrent
// streams against a minimal local SSE server (one epoll thread, see MinimalSseServer.h), with
// --client-threads event loops (default: one per core). Baseline in the same run: a raw
// libcurl multi loop on one thread, driven the same way (curl_multi_socket_action + epoll),
// that sends the same requests and only counts bytes: no SSE or JSON parsing, no timing, no
// records. Also reports the TTFT error against the TTFT the server itself recorded, and the
// client's own saturation (loop lag, CPU per loop) in that run.
//   bench_loadclient [STREAMS...] [--client-threads N]
#include "BenchSupport.h"
#include "MinimalSseServer.h"
#include "core/stats/LoadSummary.h"
#include "loadgen/ClientSaturation.h"
#include "loadgen/Datasets.h"
#include "loadgen/LoadGenerator.h"

#include <cstdlib>
#include <curl/curl.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sys/epoll.h>
#include <unistd.h>

using namespace tierscope;

namespace {

constexpr int kTokens = 32;

struct RawLoop {
    int epoll = -1;
    CURLM* multi = nullptr;
    long timeoutMs = -1;
};

std::size_t countBytes(char*, std::size_t size, std::size_t n, void* total) {
    *static_cast<std::size_t*>(total) += size * n;
    return size * n;
}

int rawSocket(CURL*, curl_socket_t fd, int what, void* user, void* assigned) {
    auto* loop = static_cast<RawLoop*>(user);
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(loop->epoll, EPOLL_CTL_DEL, fd, nullptr);
        return 0;
    }
    epoll_event ev{};
    ev.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
    ev.data.fd = fd;
    epoll_ctl(loop->epoll, assigned ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev);
    if (!assigned)
        curl_multi_assign(loop->multi, fd, loop);
    return 0;
}

int rawTimer(CURLM*, long timeoutMs, void* user) {
    static_cast<RawLoop*>(user)->timeoutMs = timeoutMs;
    return 0;
}

// `streams` concurrent streamed requests on one thread.
void rawClient(const std::string& url, int streams, std::size_t& bytes) {
    RawLoop loop;
    loop.epoll = epoll_create1(0);
    loop.multi = curl_multi_init();
    curl_multi_setopt(loop.multi, CURLMOPT_SOCKETFUNCTION, rawSocket);
    curl_multi_setopt(loop.multi, CURLMOPT_SOCKETDATA, &loop);
    curl_multi_setopt(loop.multi, CURLMOPT_TIMERFUNCTION, rawTimer);
    curl_multi_setopt(loop.multi, CURLMOPT_TIMERDATA, &loop);
    const std::string body = nlohmann::json{{"model", "m"},
                                            {"prompt", "a b c d e f g h"},
                                            {"max_tokens", kTokens},
                                            {"stream", true},
                                            {"stream_options", {{"include_usage", true}}}}
                                 .dump();
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    headers = curl_slist_append(headers, "Expect:");
    for (int i = 0; i < streams; ++i) {
        CURL* e = curl_easy_init();
        curl_easy_setopt(e, CURLOPT_URL, url.c_str());
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, body.c_str());
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, countBytes);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, &bytes);
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
        curl_multi_add_handle(loop.multi, e);
    }
    int running = streams;
    epoll_event events[256];
    int done = 0;
    while (done < streams) {
        const int n = epoll_wait(loop.epoll, events, 256,
                                 loop.timeoutMs < 0 ? 100 : static_cast<int>(loop.timeoutMs));
        if (n <= 0)
            curl_multi_socket_action(loop.multi, CURL_SOCKET_TIMEOUT, 0, &running);
        for (int i = 0; i < n; ++i)
            curl_multi_socket_action(loop.multi, events[i].data.fd,
                                     (events[i].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
                                         (events[i].events & EPOLLOUT ? CURL_CSELECT_OUT : 0),
                                     &running);
        int queued = 0;
        while (CURLMsg* m = curl_multi_info_read(loop.multi, &queued)) {
            if (m->msg != CURLMSG_DONE)
                continue;
            curl_multi_remove_handle(loop.multi, m->easy_handle);
            curl_easy_cleanup(m->easy_handle);
            ++done;
        }
    }
    curl_slist_free_all(headers);
    curl_multi_cleanup(loop.multi);
    close(loop.epoll);
}

// The worst loop's lags and each loop's CPU share, from the saturation's summary fields.
std::string saturation(const ClientSaturation& s) {
    const auto j = s.toJson();
    char text[192];
    // A lag not measured (no scheduled sends in this closed loop) is said so, not printed as
    // a number.
    const auto ms = [&j](const char* key) {
        char figure[32] = "n/a";
        if (const auto it = j.find(key); it != j.end() && it->is_number())
            std::snprintf(figure, sizeof figure, "%.3f ms", it->get<double>());
        return std::string(figure);
    };
    std::snprintf(text, sizeof text,
                  "client %zu loop(s), read lag p50 %s, p99 %s, schedule delay p99 %s, CPU",
                  s.loops.size(), ms("loop_lag_p50_ms").c_str(), ms("loop_lag_p99_ms").c_str(),
                  ms("schedule_delay_p99_ms").c_str());
    std::string out = text;
    for (const auto& l : j.value("per_loop", nlohmann::json::array())) {
        std::snprintf(text, sizeof text, " %.0f%%", l.value("cpu_share", 0.0) * 100);
        out += text;
    }
    return out;
}

} // namespace

int main(int argc, char** argv) {
    LoadGenerator::raiseFileLimit();
    curl_global_init(CURL_GLOBAL_DEFAULT);
    std::vector<int> sizes;
    int threads = 0; // one per core
    for (int i = 1; i < argc; ++i) {
        if (std::string(argv[i]) == "--client-threads" && i + 1 < argc)
            threads = std::atoi(argv[++i]);
        else
            sizes.push_back(std::atoi(argv[i]));
    }
    if (sizes.empty())
        sizes = {1000, 4000};
    std::printf("bench_loadclient: %d tokens per stream, first token after 20 ms, then 20 "
                "tokens/s per stream, from a minimal epoll SSE server; client threads %s\n",
                kTokens, threads > 0 ? std::to_string(threads).c_str() : "one per core");
    for (const int streams : sizes) {
        bench::MinimalSseServer server(std::chrono::milliseconds(20), 20.0);
        const std::string base = "http://127.0.0.1:" + std::to_string(server.start());

        // The client's CPU: the process's, less the server thread's.
        auto clientCpu = [&] { return bench::processCpuSeconds() - server.cpuSeconds(); };
        std::size_t bytes = 0;
        double cpu0 = clientCpu();
        rawClient(base + "/v1/completions", streams, bytes);
        const double raw = clientCpu() - cpu0;

        WallClock clock;
        LoadGenerator::Options o;
        o.url = base;
        o.model = "m";
        o.concurrency = streams;
        o.requests = streams;
        o.clientThreads = threads;
        LoadGenerator generator(o, Datasets::synthetic(streams, 8, 8, kTokens, 1), clock);
        cpu0 = clientCpu();
        const auto records = generator.run();
        const double ours = clientCpu() - cpu0;

        long events = 0, failed = 0;
        for (const auto& r : records) {
            failed += r.ok() ? 0 : 1;
            events += r.ok() ? r.outputTokens.value_or(0) : 0;
        }

        // TTFT accuracy in steady state: connections warmed up, then output lengths of 16-48
        // tokens so completions (and the next sends) are spread out as under real load.
        std::vector<Conversation> mixed;
        std::uint64_t state = 7;
        for (int i = 0; i < 3 * streams; ++i)
            mixed.push_back({"", {Datasets::words(8, state)}, {16 + static_cast<int>(state % 33)}});
        LoadGenerator::Options steady = o;
        steady.warmup = streams;
        steady.requests = 2 * streams;
        LoadGenerator accuracy(steady, mixed, clock);
        const auto measured = accuracy.run();
        std::map<std::string, double> injected;
        for (const auto& r : server.served())
            injected[r.id] = r.ttftS;
        std::vector<double> errors;
        for (const auto& r : measured)
            if (r.ok())
                errors.push_back(std::abs(*r.ttftS - injected.at(r.responseId)));
        const long rawEvents = static_cast<long>(streams) * kTokens;
        std::printf(
            "  %d streams: tierscope %.2f us/event, %.1f us/request (%ld events, %ld "
            "failed); raw libcurl loop "
            "%.2f us/event, %.1f us/request (%zu bytes); ratio %.2f; TTFT error p50 %.3f "
            "ms, p99 %.3f ms, max %.3f ms; %s\n",
            streams, ours / static_cast<double>(events) * 1e6, ours / streams * 1e6, events, failed,
            raw / static_cast<double>(rawEvents) * 1e6, raw / streams * 1e6, bytes, ours / raw,
            LoadSummary::percentile(errors, 50) * 1e3, LoadSummary::percentile(errors, 99) * 1e3,
            LoadSummary::percentile(errors, 100) * 1e3, saturation(accuracy.saturation()).c_str());
    }
    return 0;
}
