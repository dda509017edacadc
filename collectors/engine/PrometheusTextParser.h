#pragma once

#include "collectors/engine/PromSample.h"

#include <atomic>
#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tierscope {

// Pure parser for the text exposition format 0.0.4 and OpenMetrics text. Malformed lines are
// counted and the first few described; they never stop the parse. "# EOF" ends it.
class PrometheusTextParser {
  public:
    struct Result {
        std::vector<PromSample> samples;
        // family -> counter|gauge|histogram|summary|..., from # TYPE lines; an untyped family
        // with <family>_bucket samples that carry an le label is a histogram.
        std::map<std::string, std::string> types;
        std::map<std::string, std::string> help;
        int malformedLines = 0;
        std::vector<std::string> errors; // at most kMaxErrors, "line N: why"
        bool sawEof = false;
        // The parse stopped early: at Limits::maxSamples samples, or because Limits::cancel was
        // set. Either way the samples are a prefix of the exposition, never a scrape to map.
        bool tooManySamples = false;
        bool cancelled = false;

        // The family a sample belongs to: its own name when typed, else the name without the
        // _bucket/_sum/_count/_total/_created/_info suffix that a typed family explains.
        std::string familyOf(const std::string& sampleName) const;
        std::string typeOf(const std::string& sampleName) const;
    };
    static constexpr std::size_t kMaxErrors = 20;

    struct Limits {
        std::size_t maxSamples = std::numeric_limits<std::size_t>::max();
        // Read every few thousand lines, so a stop asked for during a 16 MiB parse is seen in
        // milliseconds instead of seconds.
        const std::atomic<bool>* cancel = nullptr;
    };

    static Result parse(std::string_view text) { return parse(text, Limits{}); }
    static Result parse(std::string_view text, const Limits& limits);
    // "+Inf", "-Inf", "NaN" (any case) and decimal floats; false on anything else.
    static bool parseValue(std::string_view text, double& out);
};

} // namespace tierscope
