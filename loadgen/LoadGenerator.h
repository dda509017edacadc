#pragma once

#include "core/model/RequestRecord.h"
#include "core/util/WallClock.h"
#include "loadgen/ClientSaturation.h"
#include "loadgen/Conversation.h"
#include "loadgen/RequestSchedule.h"
#include "loadgen/StreamTransfer.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

class LoadDispatch;
class LoadRun;

// Streams OpenAI-compatible completions (SSE, include_usage) from event loops on their own
// threads (one per core by default), each a libcurl multi interface driven by
// curl_multi_socket_action and epoll: one loop saturates near 4,000 streams on a 2-core
// machine (docs/PERFORMANCE.md). Each request is issued, read and finished by one loop; the
// records reach the sink on the thread that called run().
//   Closed loop: `concurrency` requests in flight at all times.
//   Open loop: arrivals at `rate` req/s from a gamma process (`burstiness` 1 = Poisson), as
//   vLLM's benchmark client does. Each request records both its TTFT from the actual send and
//   from its scheduled send time, so a client that falls behind cannot hide its own queueing
//   (coordinated omission).
//   Scheduled: open loop at a RequestSchedule's own offsets (a trace replay), the same path as
//   the rate: only where the send times come from differs.
// Multi-round conversations send round r+1 when round r has finished, with the history.
class LoadGenerator {
  public:
    struct Options {
        std::string url; // server base (http://host:port) or a full /v1/... endpoint
        std::string model;
        std::string api = "completions"; // or "chat"
        int concurrency = 0;
        double rate = 0;
        double burstiness = 1.0;
        int requests = 0; // 0: until duration
        std::chrono::nanoseconds duration{0};
        int warmup = 0; // issued first, left out of the records
        std::string tokenEnvVar;
        bool insecureTls = false;
        std::chrono::milliseconds requestTimeout{600'000};
        std::uint64_t seed = 0;
        std::size_t maxLineBytes = 1 << 20;
        // vLLM bench serve's --ignore-eos: every output is max_tokens long, so output lengths,
        // E2E, TPOT and throughput do not differ between runs by where a model stopped.
        bool ignoreEos = false;
        // Fields merged into every request body (vLLM bench serve's --extra-body): sampling
        // parameters, priorities, a KV-transfer hint. An object without the fields the
        // generator owns (checkExtraBody).
        nlohmann::json extraBody = nlohmann::json::object();
        // Event loops; 0: one per core. A closed loop uses at most one per request in flight.
        int clientThreads = 0;
    };
    struct Progress {
        long issued = 0, completed = 0, failed = 0, inFlight = 0;
    };

    // With a `schedule` (not owned, outliving the generator), requests and their send times
    // come from it, `conversations` is empty and neither concurrency nor rate is given;
    // requests and duration, when given, still end the run early.
    LoadGenerator(Options options, std::vector<Conversation> conversations, const WallClock& clock,
                  RequestSchedule* schedule = nullptr);

    using RecordSink = std::function<void(RequestRecord&&)>;
    using EventObserver = StreamTransfer::EventObserver;

    // Hands every measured (not warm-up) request to `sink` as it finishes and keeps none, so a
    // run of any length holds only the requests in flight.
    void run(const RecordSink& sink, const std::function<void(const Progress&)>& onProgress = {},
             const std::atomic<bool>* cancel = nullptr);
    // The same, collecting the requests: for runs whose requests fit in memory.
    std::vector<RequestRecord> run(const std::function<void(const Progress&)>& onProgress = {},
                                   const std::atomic<bool>* cancel = nullptr);

    // From the first measured send to the last measured completion: vLLM's benchmark duration,
    // whose clock starts after the warm-ups. 0 when no measured request finished.
    double durationS() const { return m_durationS; }
    // The most measured requests in flight at once (vLLM's "Peak concurrent requests"); the
    // configured limit is Options::concurrency.
    int maxConcurrent() const { return m_maxConcurrent; }
    // The client's own load in the last run: each loop's lag and CPU.
    const ClientSaturation& saturation() const { return m_saturation; }
    // Called on the loops' threads for each piece of a stream's data (tests); before run().
    void observeEvents(EventObserver observer) { m_observer = std::move(observer); }
    // The event loops a run with `options` uses.
    static int loopsFor(const Options& options, bool scheduled);
    // Raises this process's soft limit on open files to its hard limit: every stream holds a
    // socket, and thousands of them exceed the usual soft limit of 1024.
    static void raiseFileLimit();
    std::string endpoint() const;
    std::string displayEndpoint() const; // endpoint() without a user:password part

    // Only http:// and https:// URLs are load targets (case-insensitive scheme).
    static bool httpUrl(const std::string& url);
    // The URL as stored or printed: without any user:password@ part.
    static std::string redacted(const std::string& url);
    // Why `body` cannot be merged into requests: not an object, or a field whose value the
    // measurement depends on (model, prompt, messages, stream, stream_options, max_tokens,
    // max_completion_tokens, n); nothing when it can.
    static std::optional<std::string> checkExtraBody(const nlohmann::json& body);

  private:
    void runLoops(const std::vector<std::unique_ptr<LoadRun>>& runs, LoadDispatch& dispatch,
                  const RecordSink& sink, const std::function<void(const Progress&)>& onProgress);

    Options m_options;
    std::vector<Conversation> m_conversations;
    const WallClock& m_clock;
    RequestSchedule* m_schedule = nullptr;
    double m_durationS = 0;
    int m_maxConcurrent = 0;
    ClientSaturation m_saturation;
    EventObserver m_observer;
};

} // namespace tierscope
