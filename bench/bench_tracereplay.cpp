// Trace replay at scale: a synthetic Mooncake-layout trace of N requests (Poisson arrivals at
// R requests/s, integer-ms timestamps as the published traces have, so many share a
// millisecond; a 512-token block from a pool of 64 shared prefixes, then a block of the
// request's own) replayed against a minimal local SSE server, and the same number of requests
// at the same rate from --rate's gamma arrivals as the same-run baseline. Reports the schedule
// error (actual minus scheduled send) p50/p99 of each, and the client's resident memory: at
// 10 % of the run, at its peak (VmHWM, reset before each run) and at the end. Memory that
// grew with the requests sent would show as a peak far above the 10 % figure.
//
// The server runs in a child process, so the RSS is the client's alone. The client keeps no
// request: each goes to a LoadAccumulator (bounded) as `tierscope load` does.
//
//   bench_tracereplay                      20,000 requests at 1,000/s (about 45 s)
//   bench_tracereplay --requests 1000000   the full million (about 35 minutes)
#include "MinimalSseServer.h"
#include "core/stats/LoadAccumulator.h"
#include "loadgen/Datasets.h"
#include "loadgen/LoadGenerator.h"
#include "loadgen/TraceSchedule.h"

#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <curl/curl.h>
#include <fstream>
#include <random>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace tierscope;

namespace {

constexpr int kOutputTokens = 4;

// VmRSS or VmHWM of this process in MiB.
double statusMiB(const char* field) {
    std::ifstream in("/proc/self/status");
    std::string line;
    const std::size_t n = std::strlen(field);
    while (std::getline(in, line))
        if (line.compare(0, n, field) == 0)
            return std::atof(line.c_str() + n + 1) / 1024.0;
    return 0;
}

// The peak resident size starts again from the current one (Linux: clear_refs 5).
void resetPeak() {
    std::ofstream("/proc/self/clear_refs") << "5";
}

// The server in a child process: it writes its port to `portPipe`, then serves until the
// parent closes `stopPipe`.
pid_t startServer(int& port, int& stopWrite) {
    int portPipe[2], stopPipe[2];
    if (pipe(portPipe) != 0 || pipe(stopPipe) != 0)
        std::exit(1);
    const pid_t pid = fork();
    if (pid == 0) {
        close(portPipe[0]);
        close(stopPipe[1]);
        bench::MinimalSseServer server(std::chrono::milliseconds(1), 1000.0);
        const int p = server.start();
        if (write(portPipe[1], &p, sizeof p) != sizeof p)
            _exit(1);
        char c;
        while (read(stopPipe[0], &c, 1) > 0) {
        }
        server.stop();
        _exit(0);
    }
    close(portPipe[1]);
    close(stopPipe[0]);
    if (read(portPipe[0], &port, sizeof port) != sizeof port)
        std::exit(1);
    close(portPipe[0]);
    stopWrite = stopPipe[1];
    return pid;
}

// Returns the file's size in bytes.
long long writeTrace(const std::string& path, long long requests, double rate) {
    std::ofstream out(path);
    std::mt19937_64 random(42);
    std::exponential_distribution<double> gap(rate);
    std::uniform_int_distribution<int> input(600, 1000);
    std::uniform_int_distribution<int> prefix(0, 63);
    double t = 0;
    std::int64_t own = 1000;
    for (long long i = 0; i < requests; ++i) {
        t += gap(random);
        out << "{\"timestamp\": " << static_cast<long long>(t * 1000.0)
            << ", \"input_length\": " << input(random) << ", \"output_length\": " << kOutputTokens
            << ", \"hash_ids\": [" << prefix(random) << ", " << own++ << "]}\n";
    }
    out.flush();
    return static_cast<long long>(out.tellp());
}

struct Figures {
    double p50Ms = 0, p99Ms = 0, maxMs = 0;
    double rssStartMiB = 0, rssTenthMiB = 0, rssEndMiB = 0, peakMiB = 0;
    long completed = 0, failed = 0;
    double durationS = 0;
};

Figures measure(const char* name, long long requests, LoadGenerator& generator) {
    Figures f;
    LoadAccumulator accumulator;
    long done = 0;
    resetPeak();
    f.rssStartMiB = statusMiB("VmRSS:");
    generator.run(
        [&](RequestRecord&& r) {
            accumulator.add(r);
            if (++done == requests / 10)
                f.rssTenthMiB = statusMiB("VmRSS:");
        },
        [&](const LoadGenerator::Progress& p) {
            std::fprintf(stderr, "\r%s: %ld issued, %ld done, %ld failed, %ld in flight   ", name,
                         p.issued, p.completed, p.failed, p.inFlight);
        });
    std::fputs("\n", stderr);
    f.peakMiB = statusMiB("VmHWM:");
    f.rssEndMiB = statusMiB("VmRSS:");
    const auto s = accumulator.summary(generator.durationS(), generator.maxConcurrent(), true);
    f.p50Ms = s.value("median_schedule_error_ms", 0.0);
    f.p99Ms = s.value("p99_schedule_error_ms", 0.0);
    f.completed = s.value("completed", 0L);
    f.failed = s.value("failed", 0L);
    f.durationS = generator.durationS();
    return f;
}

void print(const char* name, long long requests, double rate, const Figures& f) {
    std::printf("  %-13s %lld requests at %.0f/s: schedule error p50 %.3f ms, p99 %.3f ms; client "
                "RSS %.1f MiB at the start, %.1f MiB at 10 %%, peak %.1f MiB, %.1f MiB at the end; "
                "%ld completed, %ld failed in %.1f s\n",
                name, requests, rate, f.p50Ms, f.p99Ms, f.rssStartMiB, f.rssTenthMiB, f.peakMiB,
                f.rssEndMiB, f.completed, f.failed, f.durationS);
}

} // namespace

int main(int argc, char** argv) {
    long long requests = 20'000;
    double rate = 1000;
    std::string path = "/tmp/bench_tracereplay.jsonl";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "--requests")
            requests = std::atoll(argv[i + 1]);
        else if (flag == "--rate")
            rate = std::atof(argv[i + 1]);
        else if (flag == "--trace")
            path = argv[i + 1];
    }
    // Forked before any thread starts: the server's own memory is not the client's.
    int port = 0, stop = -1;
    const pid_t server = startServer(port, stop);
    rlimit files{};
    getrlimit(RLIMIT_NOFILE, &files);
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
    curl_global_init(CURL_GLOBAL_DEFAULT);

    const long long bytes = writeTrace(path, requests, rate);
    std::printf("bench_tracereplay: %lld requests at %.0f/s, %d output tokens each, from a "
                "minimal epoll SSE server in its own process (first token after 1 ms); the "
                "trace %s is %.1f MB\n",
                requests, rate, kOutputTokens, path.c_str(), static_cast<double>(bytes) / 1e6);
    WallClock clock;
    LoadGenerator::Options o;
    o.url = "http://127.0.0.1:" + std::to_string(port);
    o.model = "m";

    // Baseline: --rate's gamma (Poisson) arrivals, the same number of requests, prompts of the
    // same lengths cycled from 1,000 (a dataset of a million would not fit its limits).
    LoadGenerator::Options r = o;
    r.rate = rate;
    r.requests = static_cast<int>(requests);
    LoadGenerator baseline(r, Datasets::synthetic(1000, 600, 1000, kOutputTokens, 3), clock);
    const Figures base = measure("rate", requests, baseline);

    TraceSchedule::Options t;
    t.path = path;
    t.format = "mooncake";
    TraceSchedule schedule(t);
    LoadGenerator replay(o, {}, clock, &schedule);
    const Figures trace = measure("trace", requests, replay);

    print("--rate", requests, rate, base);
    print("trace replay", requests, rate, trace);
    std::printf("  ratio trace / rate: schedule error p99 %.2f, peak RSS %.2f; trace peak RSS "
                "above its 10 %% figure: %.1f MiB\n",
                base.p99Ms > 0 ? trace.p99Ms / base.p99Ms : 0.0,
                base.peakMiB > 0 ? trace.peakMiB / base.peakMiB : 0.0,
                trace.peakMiB - trace.rssTenthMiB);
    close(stop);
    waitpid(server, nullptr, 0);
    std::remove(path.c_str());
    return trace.failed == 0 && base.failed == 0 ? 0 : 1;
}
