#include "app/common/RecorderOptions.h"

#include "core/util/DurationParser.h"
#include "loadgen/LoadGenerator.h"

namespace tierscope {

namespace {

std::optional<std::chrono::nanoseconds> interval(const std::string& text) {
    const auto d = DurationParser::parse(text);
    if (!d || *d < std::chrono::milliseconds(100) || *d > std::chrono::seconds(10))
        return std::nullopt;
    return d;
}

} // namespace

std::optional<std::string> RecorderOptions::intervalError(const std::string& text) {
    if (interval(text))
        return std::nullopt;
    return "--interval must be between 100ms and 10s (got \"" + text + "\")";
}

std::optional<std::string> RecorderOptions::urlError(const std::string& option,
                                                     const std::string& url) {
    if (LoadGenerator::httpUrl(url))
        return std::nullopt;
    return option + " must be an http:// or https:// URL, not " + LoadGenerator::redacted(url);
}

std::variant<Recorder::Options, std::string> RecorderOptions::build(const Input& in) {
    const auto sampling = interval(in.interval);
    if (!sampling)
        return *intervalError(in.interval);
    const auto engineInterval = DurationParser::parse(in.engineInterval);
    if (!engineInterval || *engineInterval < std::chrono::milliseconds(100))
        return "--engine-interval must be at least 100ms (got \"" + in.engineInterval + "\")";
    Recorder::Options out;
    out.dbPath = in.dbPath;
    out.label = in.label;
    out.storageProfile = in.storageProfile;
    out.tags = in.tags;
    out.interval = *sampling;
    out.engineInterval = *engineInterval;
    for (const auto& engine : in.engines) {
        if (auto error = urlError(in.engineOption, engine.url))
            return *error;
        out.engines.push_back({engine.url, engine.tokenEnv, std::chrono::milliseconds(2000),
                               in.engineRaw, in.insecure});
    }
    return out;
}

} // namespace tierscope
