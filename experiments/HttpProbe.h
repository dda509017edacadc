#pragma once

#include <chrono>
#include <string>

namespace tierscope {

// One short blocking HTTP request for the experiment runner's engine checks (readiness,
// /metrics, cache reset): not for load, which is the LoadGenerator's job.
class HttpProbe {
  public:
    struct Response {
        long status = 0;   // 0: no HTTP answer (refused, timed out)
        std::string body;  // the first 1 MiB
        std::string error; // libcurl's reason when status is 0
    };
    static Response get(const std::string& url, std::chrono::milliseconds timeout);
    static Response post(const std::string& url, std::chrono::milliseconds timeout);
};

} // namespace tierscope
