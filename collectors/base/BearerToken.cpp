#include "collectors/base/BearerToken.h"

#include <cstdlib>
#include <spdlog/spdlog.h>

namespace tierscope {

std::string BearerToken::authorizationHeader(const std::string& envVar, const std::string& who) {
    if (envVar.empty())
        return {};
    const char* token = std::getenv(envVar.c_str());
    if (token && *token)
        return std::string("Authorization: Bearer ") + token;
    spdlog::warn("{}: ${} is not set; sending requests without a bearer token", who, envVar);
    return {};
}

} // namespace tierscope
