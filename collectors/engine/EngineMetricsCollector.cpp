#include "collectors/engine/EngineMetricsCollector.h"

#include "collectors/base/BearerToken.h"
#include "core/util/Redaction.h"

#include <chrono>
#include <curl/curl.h>
#include <nlohmann/json.hpp>
#include <spdlog/spdlog.h>

namespace tierscope {

namespace {

struct Body {
    std::string* text;
    std::size_t limit;
    bool overflow = false;
};

std::size_t onData(char* data, std::size_t size, std::size_t count, void* user) {
    auto* body = static_cast<Body*>(user);
    const std::size_t n = size * count;
    if (body->text->size() + n > body->limit) {
        body->overflow = true;
        return 0; // aborts the transfer
    }
    body->text->append(data, n);
    return n;
}

int onProgress(void* interrupted, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
    return static_cast<const std::atomic<bool>*>(interrupted)->load() ? 1 : 0; // 1 aborts
}

} // namespace

EngineMetricsCollector::EngineMetricsCollector(Options options)
    : m_options(std::move(options)), m_id(EngineMetricsMapper::endpointIdFromUrl(m_options.url)),
      m_mapper(m_id, m_options.recordRaw) {
    static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    (void)initialised;
    m_curl = curl_easy_init();
    m_authorization = BearerToken::authorizationHeader(m_options.tokenEnvVar, "engine " + m_id);
    if (m_options.insecureTls)
        spdlog::warn("engine {}: TLS certificate verification is OFF for {}", m_id,
                     Redaction::url(m_options.url));
}

EngineMetricsCollector::~EngineMetricsCollector() {
    curl_easy_cleanup(static_cast<CURL*>(m_curl));
}

bool EngineMetricsCollector::fetch(std::string& text) {
    auto* curl = static_cast<CURL*>(m_curl);
    if (!curl) {
        m_lastError = "libcurl could not be initialised";
        return false;
    }
    Body body{&text, m_options.maxBodyBytes};
    curl_slist* headers = nullptr;
    if (!m_authorization.empty())
        headers = curl_slist_append(headers, m_authorization.c_str());
    headers = curl_slist_append(
        headers, "Accept: text/plain;version=0.0.4, application/openmetrics-text;q=0.5");
    curl_easy_setopt(curl, CURLOPT_URL, m_options.url.c_str());
    // Never file://, gopher:// and the rest, not even through a redirect.
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, onData);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &body);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(m_options.timeout.count()));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(m_options.timeout.count()));
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, onProgress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &m_interrupted);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, m_options.insecureTls ? 0L : 1L);
    curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, m_options.insecureTls ? 0L : 2L);
    curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");
    const CURLcode rc = curl_easy_perform(curl);
    curl_slist_free_all(headers);
    long status = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
    if (body.overflow) {
        m_lastError = "response larger than " + std::to_string(m_options.maxBodyBytes) + " bytes";
        return false;
    }
    if (rc != CURLE_OK) {
        m_lastError = curl_easy_strerror(rc);
        return false;
    }
    if (status != 200) {
        m_lastError = "HTTP " + std::to_string(status);
        return false;
    }
    m_lastError.clear();
    return true;
}

std::vector<Reading> EngineMetricsCollector::sample(std::int64_t tNs) {
    const auto started = std::chrono::steady_clock::now();
    std::string text;
    const bool fetched = fetch(text);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (m_interrupted)
        return {};
    PrometheusTextParser::Result scrape;
    if (fetched) {
        scrape = PrometheusTextParser::parse(text, {m_options.maxSamples, &m_interrupted});
        if (scrape.cancelled)
            return {};
        if (scrape.tooManySamples)
            m_lastError = "more than " + std::to_string(m_options.maxSamples) + " samples";
    }
    const bool ok = fetched && !scrape.tooManySamples;
    std::vector<Reading> out;
    const std::string prefix = "engine/" + m_id + "/";
    if (ok) {
        out = m_mapper.update(scrape, tNs);
        out.push_back({{prefix + "malformed_lines", "1", "gauge", "{}"},
                       static_cast<double>(scrape.malformedLines)});
        if (scrape.malformedLines > 0 && !scrape.errors.empty())
            spdlog::debug("engine {}: {} malformed lines, first: {}", m_id, scrape.malformedLines,
                          scrape.errors.front());
    } else {
        spdlog::debug("engine {}: scrape failed: {}", m_id, m_lastError);
    }
    out.push_back({{prefix + "scrape_ok", "1", "gauge", "{}"}, ok ? 1.0 : 0.0});
    out.push_back({{prefix + "scrape_duration_s", "s", "gauge", "{}"}, seconds});
    return out;
}

std::vector<DeviceRecord> EngineMetricsCollector::devices() {
    nlohmann::json attrs = {{"url", Redaction::url(m_options.url)},
                            {"authenticated", !m_authorization.empty()},
                            {"tls_verify", !m_options.insecureTls}};
    return {{"engine-endpoint", m_id, attrs.dump()}};
}

} // namespace tierscope
