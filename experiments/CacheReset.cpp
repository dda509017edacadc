#include "experiments/CacheReset.h"

#include "experiments/ShellCommand.h"
#include "experiments/EngineIdentity.h"
#include "experiments/HttpProbe.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace tierscope {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

} // namespace

nlohmann::json CacheReset::Outcome::toJson() const {
    return {{"step", step}, {"ok", ok}, {"detail", detail}, {"seconds", seconds}};
}

std::string CacheReset::Outcome::describe() const {
    return step + (ok ? " ok" : " failed") + (detail.empty() ? "" : ": " + detail);
}

std::vector<CacheReset::Outcome> CacheReset::run(const Steps& steps) {
    std::vector<Outcome> out;
    if (steps.resetPrefixCache)
        out.push_back(resetPrefixCache(steps.engineUrl));
    if (!steps.command.empty())
        out.push_back(command(steps.command, steps.env, steps.timeout));
    if (steps.dropCaches) // last: what the steps before read is dropped too
        out.push_back(dropCaches(steps.dropCachesPath));
    return out;
}

CacheReset::Outcome CacheReset::resetPrefixCache(const std::string& engineUrl) {
    const auto started = Clock::now();
    const std::string url = EngineIdentity::baseUrl(engineUrl) + "/reset_prefix_cache";
    const auto answer = HttpProbe::post(url, std::chrono::seconds(30));
    Outcome o{"reset_prefix_cache", answer.status == 200, "", since(started)};
    o.detail = "POST " + url + ": " +
               (answer.status ? "HTTP " + std::to_string(answer.status) : answer.error);
    return o;
}

CacheReset::Outcome CacheReset::command(const std::string& text,
                                        const std::map<std::string, std::string>& env,
                                        std::chrono::milliseconds timeout) {
    const auto started = Clock::now();
    const auto result = ShellCommand::run(text, env, timeout);
    Outcome o{"reset", result.ok(), result.describe(), since(started)};
    constexpr std::size_t kKept = 2000;
    if (!result.ok() && !result.output.empty())
        o.detail += ": " + (result.output.size() > kKept
                                ? "[...]" + result.output.substr(result.output.size() - kKept)
                                : result.output);
    return o;
}

std::string CacheReset::dropCachesError(const std::string& path, int error) {
    std::string why = "cannot write " + path + " (" + std::strerror(error) + ")";
    if (error == EACCES || error == EPERM || error == EROFS)
        return why + ": dropping the page cache needs root (or CAP_SYS_ADMIN with a writable "
                     "/proc/sys); run tierscope as root or remove drop_caches from the plan";
    return why;
}

CacheReset::Outcome CacheReset::dropCaches(const std::string& path) {
    const auto started = Clock::now();
    ::sync(); // dirty pages are not dropped: write them out first
    Outcome o{"drop_caches", false, "", 0};
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        o.detail = dropCachesError(path, errno);
    } else {
        const ssize_t n = ::write(fd, "3\n", 2);
        const int error = errno;
        ::close(fd);
        o.ok = n == 2;
        o.detail = o.ok ? "page cache, dentries and inodes dropped" : dropCachesError(path, error);
    }
    o.seconds = since(started);
    return o;
}

bool CacheReset::allOk(const std::vector<Outcome>& outcomes) {
    for (const auto& o : outcomes)
        if (!o.ok)
            return false;
    return true;
}

} // namespace tierscope
