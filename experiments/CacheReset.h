#pragma once

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tierscope {

// The cache-control steps a plan's arm runs between runs, so that a "cold" run is not served
// from memory: the engine's prefix cache, a free-form command (an LMCache CPU tier, ...) and
// the kernel's page cache. Each step's outcome goes into the run's summary as
//   {"step": "drop_caches", "ok": false, "detail": "...", "seconds": 0.01}.
class CacheReset {
  public:
    struct Outcome {
        std::string step; // reset_prefix_cache | reset | drop_caches
        bool ok = false;
        std::string detail;
        double seconds = 0;
        nlohmann::json toJson() const;
        std::string describe() const; // "drop_caches failed: ..."
    };
    struct Steps {
        bool resetPrefixCache = false;
        std::string engineUrl;
        std::string command; // already substituted
        std::map<std::string, std::string> env;
        std::chrono::milliseconds timeout{60000};
        bool dropCaches = false;
        std::string dropCachesPath = "/proc/sys/vm/drop_caches";
    };

    // In the order the plan documents; every step runs even when an earlier one failed, so the
    // summary says all that was and was not done.
    static std::vector<Outcome> run(const Steps& steps);
    // POST {engine}/reset_prefix_cache, as vLLM serves it.
    static Outcome resetPrefixCache(const std::string& engineUrl);
    static Outcome command(const std::string& text, const std::map<std::string, std::string>& env,
                           std::chrono::milliseconds timeout);
    // sync(), then "3" (page cache, dentries and inodes) into `path`.
    static Outcome dropCaches(const std::string& path);
    // Why writing drop_caches failed, in words a user can act on.
    static std::string dropCachesError(const std::string& path, int error);
    static bool allOk(const std::vector<Outcome>& outcomes);
};

} // namespace tierscope
