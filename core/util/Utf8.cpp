#include "core/util/Utf8.h"

namespace tierscope {

namespace {

// The length of the well-formed sequence at s[i], or minus the length of its maximal ill-formed
// subpart (at least 1): the lead byte and the continuation bytes that could still have begun a
// valid sequence.
int sequenceAt(std::string_view s, std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    int extra = 0;
    unsigned lo = 0x80, hi = 0xBF; // the allowed range of the second byte
    if (c < 0x80) {
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        extra = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
        extra = 2;
        lo = c == 0xE0 ? 0xA0 : 0x80; // no overlong forms
        hi = c == 0xED ? 0x9F : 0xBF; // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        extra = 3;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF; // nothing past U+10FFFF
    } else {
        return -1;
    }
    for (int k = 1; k <= extra; ++k) {
        if (i + static_cast<std::size_t>(k) >= s.size())
            return -k; // cut short
        const auto b = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
        if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF))
            return -k;
    }
    return extra + 1;
}

} // namespace

bool Utf8::valid(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const int n = sequenceAt(s, i);
        if (n < 0)
            return false;
        i += static_cast<std::size_t>(n);
    }
    return true;
}

std::string Utf8::lossy(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        const int n = sequenceAt(s, i);
        if (n > 0)
            out.append(s.substr(i, static_cast<std::size_t>(n)));
        else
            out.append("\xEF\xBF\xBD");
        i += static_cast<std::size_t>(n > 0 ? n : -n);
    }
    return out;
}

} // namespace tierscope
