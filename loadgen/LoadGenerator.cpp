#include "loadgen/LoadGenerator.h"

#include "core/util/Redaction.h"
#include "loadgen/LoadRun.h"

#include <cctype>
#include <curl/curl.h>
#include <stdexcept>

namespace tierscope {

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

void LoadGenerator::run(const RecordSink& sink,
                        const std::function<void(const Progress&)>& onProgress,
                        const std::atomic<bool>* cancel) {
    static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    (void)initialised;
    LoadRun run(m_options, m_conversations, m_clock, endpoint(), sink, onProgress, cancel,
                m_schedule);
    run.run();
    m_durationS = run.durationS();
    m_maxConcurrent = run.maxConcurrent();
}

} // namespace tierscope
