#pragma once

#include <string>

namespace tierscope {

// Bearer tokens come only from an environment variable the user names; the token itself is
// never logged, stored or put in a metric path.
class BearerToken {
  public:
    // "Authorization: Bearer <token>" from $envVar; empty when no variable is named, or (with a
    // warning naming `who`) when it is unset or empty.
    static std::string authorizationHeader(const std::string& envVar, const std::string& who);
};

} // namespace tierscope
