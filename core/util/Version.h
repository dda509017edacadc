#pragma once

namespace tierscope {

inline constexpr const char* kToolVersion = "0.1.0";

} // namespace tierscope
