#pragma once

#include <string>
#include <string_view>

namespace tierscope {

// Whether bytes are well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, at most
// U+10FFFF). An engine's stream that is not is broken, and its text must not be stored.
class Utf8 {
  public:
    static bool valid(std::string_view bytes);
    // The bytes with each ill-formed part replaced by U+FFFD, one per maximal subpart as the
    // Unicode standard recommends (3.9, "U+FFFD Substitution of Maximal Subparts"): for text
    // such as a command's output, kept for a person to read, that must not fail to store.
    static std::string lossy(std::string_view bytes);
};

} // namespace tierscope
