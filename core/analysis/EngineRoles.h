#pragma once

#include "core/model/MetricInfo.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tierscope {

class Store;

// What the engine endpoints of a session said of the engine metric catalog's roles (the schema
// canary the recorder keeps as engine/<endpoint>/served{role=...}): per endpoint, per role,
// whether it was served at some time in a span (true) or recorded as not served throughout it
// (false). A role never recorded there is not in the map.
class EngineRoles {
  public:
    using ByEndpoint = std::map<std::string, std::map<std::string, bool>>;

    // The recorder repeats the canary at least this often, so a span reads from this long
    // before its start too.
    static constexpr std::int64_t kRepeatNs = 60'000'000'000LL;

    // `metrics`: the session's (Store::metrics), which the caller has read already.
    static ByEndpoint read(Store& store, const std::vector<MetricInfo>& metrics, std::int64_t t0Ns,
                           std::int64_t t1Ns);
};

} // namespace tierscope
