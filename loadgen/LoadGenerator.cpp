#include "loadgen/LoadGenerator.h"

#include "core/util/Redaction.h"
#include "loadgen/LoadDispatch.h"
#include "loadgen/LoadRun.h"
#include "loadgen/ScheduleFeed.h"

#include <algorithm>
#include <cctype>
#include <curl/curl.h>
#include <stdexcept>
#include <sys/resource.h>
#include <thread>

namespace tierscope {

namespace {

// A schedule's requests made ready ahead (ScheduleFeed): at most this many, and this many
// bytes of them.
constexpr std::size_t kAhead = 64;
constexpr std::size_t kAheadBytes = 64u << 20;
// How often the caller's thread takes the loops' finished requests to the sink.
constexpr std::chrono::milliseconds kTakeEvery{10};

} // namespace

bool LoadGenerator::httpUrl(const std::string& url) {
    const auto scheme = url.find("://");
    if (scheme == std::string::npos)
        return false;
    std::string name = url.substr(0, scheme);
    for (char& c : name)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return (name == "http" || name == "https") && url.size() > scheme + 3;
}

std::string LoadGenerator::redacted(const std::string& url) {
    return Redaction::url(url);
}

std::optional<std::string> LoadGenerator::checkExtraBody(const nlohmann::json& body) {
    if (!body.is_object())
        return "the extra request body must be a JSON object, such as {\"top_k\": 1}";
    // The fields whose value the measurement is: a stream without usage has no token counts, a
    // second choice doubles the tokens, and the prompt and output length are the dataset's.
    static const char* const owned[] = {"model",
                                        "prompt",
                                        "messages",
                                        "stream",
                                        "stream_options",
                                        "max_tokens",
                                        "max_completion_tokens",
                                        "n"};
    for (const char* key : owned)
        if (body.contains(key))
            return std::string("the extra request body may not set \"") + key +
                   "\": tierscope sends it (the dataset's prompts, --output-len, --model, "
                   "one streamed choice with usage)";
    return std::nullopt;
}

LoadGenerator::LoadGenerator(Options options, std::vector<Conversation> conversations,
                             const WallClock& clock, RequestSchedule* schedule)
    : m_options(std::move(options)), m_conversations(std::move(conversations)), m_clock(clock),
      m_schedule(schedule) {
    if (!httpUrl(m_options.url))
        throw std::invalid_argument("the load generator's URL must be http:// or https://, not " +
                                    redacted(m_options.url));
    if (m_schedule) {
        if (m_options.concurrency > 0 || m_options.rate > 0 || !m_conversations.empty())
            throw std::invalid_argument("a schedule sets its own requests and send times: give "
                                        "neither prompts, concurrency nor rate");
        if (const auto why = checkExtraBody(m_options.extraBody))
            throw std::invalid_argument(*why);
        return;
    }
    if (m_conversations.empty())
        throw std::invalid_argument("the load generator needs at least one prompt");
    for (const auto& c : m_conversations)
        if (c.questions.empty() || c.questions.size() != c.maxTokens.size())
            throw std::invalid_argument("every conversation needs at least one round, each with "
                                        "its max_tokens");
    if (const auto why = checkExtraBody(m_options.extraBody))
        throw std::invalid_argument(*why);
    if ((m_options.concurrency > 0) == (m_options.rate > 0))
        throw std::invalid_argument("give exactly one of concurrency and rate");
    if (m_options.requests <= 0 && m_options.duration.count() <= 0)
        throw std::invalid_argument("give a number of requests or a duration");
}

std::string LoadGenerator::endpoint() const {
    if (m_options.url.find("/v1/") != std::string::npos)
        return m_options.url;
    std::string base = m_options.url;
    while (!base.empty() && base.back() == '/')
        base.pop_back();
    return base + (m_options.api == "chat" ? "/v1/chat/completions" : "/v1/completions");
}

std::string LoadGenerator::displayEndpoint() const {
    return redacted(endpoint());
}

std::vector<RequestRecord>
LoadGenerator::run(const std::function<void(const Progress&)>& onProgress,
                   const std::atomic<bool>* cancel) {
    std::vector<RequestRecord> records;
    run([&](RequestRecord&& r) { records.push_back(std::move(r)); }, onProgress, cancel);
    return records;
}

void LoadGenerator::raiseFileLimit() {
    rlimit files{};
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        setrlimit(RLIMIT_NOFILE, &files);
    }
}

int LoadGenerator::loopsFor(const Options& options, bool scheduled) {
    int loops = options.clientThreads > 0
                    ? options.clientThreads
                    : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
    // A closed loop's share of requests in flight per loop: no loop with none.
    if (!scheduled && options.concurrency > 0)
        loops = std::min(loops, options.concurrency);
    return loops;
}

void LoadGenerator::run(const RecordSink& sink,
                        const std::function<void(const Progress&)>& onProgress,
                        const std::atomic<bool>* cancel) {
    static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    (void)initialised;
    const int loops = loopsFor(m_options, m_schedule != nullptr);
    LoadDispatch dispatch(m_options.requests > 0 ? m_options.requests + m_options.warmup : -1,
                          m_conversations.size(), loops, cancel);
    std::unique_ptr<ScheduleFeed> feed;
    if (m_schedule) { // the first requests are made ready before the clock starts
        feed = std::make_unique<ScheduleFeed>(
            *m_schedule,
            [this](const std::shared_ptr<const Conversation>& conversation) {
                return LoadRun::requestBody(m_options, *conversation, {});
            },
            kAhead, kAheadBytes, static_cast<std::size_t>(loops));
        feed->waitFilled();
    }
    // One loop runs on this thread and hands records straight to the sink; several hand them
    // to this thread, so the sink never runs on two threads nor stalls a loop.
    const RecordSink deliver = [&dispatch](RequestRecord&& r) { dispatch.deliver(std::move(r)); };
    std::vector<std::unique_ptr<LoadRun>> runs;
    for (int i = 0; i < loops; ++i) {
        const int share = m_options.concurrency / loops + (i < m_options.concurrency % loops);
        runs.push_back(std::make_unique<LoadRun>(m_options, m_conversations, m_clock, endpoint(),
                                                 dispatch, LoadRun::Place{i, loops, share},
                                                 loops == 1 ? sink : deliver,
                                                 loops == 1 ? onProgress : LoadRun::OnProgress{},
                                                 feed.get(), m_observer ? &m_observer : nullptr));
    }
    dispatch.start();
    if (loops == 1)
        runs[0]->run();
    else
        runLoops(runs, dispatch, sink, onProgress);
    std::optional<LoadRun::Clock::time_point> first;
    LoadRun::Clock::time_point last{};
    m_saturation.loops.clear();
    for (const auto& r : runs) {
        if (r->firstMeasuredSend() && (!first || *r->firstMeasuredSend() < *first))
            first = r->firstMeasuredSend();
        last = std::max(last, r->lastMeasuredCompletion());
        m_saturation.loops.push_back(r->load());
    }
    m_durationS = first && last > *first ? std::chrono::duration<double>(last - *first).count() : 0;
    m_maxConcurrent = dispatch.maxConcurrent();
}

void LoadGenerator::runLoops(const std::vector<std::unique_ptr<LoadRun>>& runs,
                             LoadDispatch& dispatch, const RecordSink& sink,
                             const std::function<void(const Progress&)>& onProgress) {
    std::vector<std::thread> threads;
    for (const auto& run : runs)
        threads.emplace_back([&dispatch, loop = run.get()] {
            try {
                loop->run();
            } catch (...) {
                dispatch.fail(std::current_exception());
            }
            dispatch.loopDone();
        });
    std::vector<RequestRecord> finished;
    auto lastProgress = std::chrono::steady_clock::now();
    while (dispatch.take(finished, kTakeEvery)) {
        try {
            for (auto& r : finished)
                sink(std::move(r));
        } catch (...) { // as one loop's sink would: the run ends with the error
            dispatch.fail(std::current_exception());
        }
        finished.clear();
        if (onProgress &&
            std::chrono::steady_clock::now() - lastProgress >= std::chrono::seconds(1)) {
            lastProgress = std::chrono::steady_clock::now();
            onProgress(dispatch.progress());
        }
    }
    for (auto& t : threads)
        t.join();
    if (onProgress)
        onProgress(dispatch.progress());
    dispatch.rethrow();
}

} // namespace tierscope
