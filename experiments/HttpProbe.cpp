#include "experiments/HttpProbe.h"

#include <curl/curl.h>

namespace tierscope {

namespace {

constexpr std::size_t kMaxBody = 1 << 20;

std::size_t onData(char* data, std::size_t size, std::size_t count, void* user) {
    auto* body = static_cast<std::string*>(user);
    const std::size_t n = size * count;
    body->append(data, std::min(n, kMaxBody - std::min(kMaxBody, body->size())));
    return n;
}

HttpProbe::Response request(const std::string& url, bool post, std::chrono::milliseconds timeout) {
    static const bool initialised = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
    HttpProbe::Response out;
    CURL* curl = initialised ? curl_easy_init() : nullptr;
    if (!curl) {
        out.error = "libcurl could not be initialised";
        return out;
    }
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    // Never file://, gopher:// and the rest, not even through a redirect.
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, onData);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &out.body);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(timeout.count()));
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(timeout.count()));
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    if (post) {
        curl_easy_setopt(curl, CURLOPT_POST, 1L);
        curl_easy_setopt(curl, CURLOPT_POSTFIELDS, "");
        curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, 0L);
    }
    const CURLcode rc = curl_easy_perform(curl);
    if (rc == CURLE_OK)
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out.status);
    else
        out.error = curl_easy_strerror(rc);
    curl_easy_cleanup(curl);
    return out;
}

} // namespace

HttpProbe::Response HttpProbe::get(const std::string& url, std::chrono::milliseconds timeout) {
    return request(url, false, timeout);
}

HttpProbe::Response HttpProbe::post(const std::string& url, std::chrono::milliseconds timeout) {
    return request(url, true, timeout);
}

} // namespace tierscope
