#pragma once

#include "core/model/MetricInfo.h"
#include "core/model/SessionInfo.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

class Store;

// Whether a session is finished, still being recorded or was interrupted: the STATE that
// `tierscope sessions` prints and the GUI's session list shows, one definition for both.
class SessionState {
  public:
    // "finished", "recording" or "interrupted".
    static std::string of(Store& store, const SessionInfo& session,
                          const std::vector<MetricInfo>& metrics, std::int64_t nowNs);
};

} // namespace tierscope
