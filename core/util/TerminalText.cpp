#include "core/util/TerminalText.h"

#include "core/util/Utf8.h"

namespace tierscope {

namespace {

// How many bytes the well-formed UTF-8 sequence starting with `lead` has.
std::size_t sequenceLength(unsigned char lead) {
    return lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
}

bool dropped(std::string_view c) {
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(c[i]); };
    if (c.size() == 1)
        return (b(0) < 0x20 && c[0] != '\n' && c[0] != '\t') || b(0) == 0x7F;
    if (c.size() == 2)
        return b(0) == 0xC2 && b(1) < 0xA0; // U+0080..U+009F
    if (c.size() == 3 && b(0) == 0xE2)
        return (b(1) == 0x80 && b(2) >= 0xAA && b(2) <= 0xAE) || // U+202A..U+202E
               (b(1) == 0x81 && b(2) >= 0xA6 && b(2) <= 0xA9);   // U+2066..U+2069
    return false;
}

} // namespace

std::string TerminalText::clean(std::string_view text) {
    const std::string utf8 = Utf8::lossy(text);
    std::string out;
    out.reserve(utf8.size());
    for (std::size_t i = 0; i < utf8.size();) {
        const std::size_t n = sequenceLength(static_cast<unsigned char>(utf8[i]));
        const std::string_view c = std::string_view(utf8).substr(i, n);
        if (!dropped(c))
            out += c;
        i += n;
    }
    return out;
}

} // namespace tierscope
