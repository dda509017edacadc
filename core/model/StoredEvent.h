#pragma once

#include <cstdint>
#include <string>

namespace tierscope {

// A stored event of a session: a marker, an engine start, a run's warm-up, the plan it ran.
struct StoredEvent {
    std::int64_t tNs = 0;
    std::string kind;
    std::string text;
};

} // namespace tierscope
