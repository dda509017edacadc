#pragma once

#include <string_view>

namespace tierscope {

// Whether bytes are well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, at most
// U+10FFFF). An engine's stream that is not is broken, and its text must not be stored.
class Utf8 {
  public:
    static bool valid(std::string_view bytes);
};

} // namespace tierscope
