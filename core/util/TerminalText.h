#pragma once

#include <string>
#include <string_view>

namespace tierscope {

// Text from a workspace or a plan (labels, storage profiles, hosts, report cells) on its way to
// a terminal: anyone who could write the workspace chose it, and an escape sequence in a label
// can retitle the window, hide lines, or (on some terminals) answer back with keystrokes.
// clean() keeps newlines and tabs and drops every other control character: C0 (ESC, CR, BEL,
// NUL, ...), DEL, C1 (U+0080-U+009F, among them the one-character CSI) and the bidirectional
// overrides and isolates (U+202A-U+202E, U+2066-U+2069) that reorder what is shown. Bytes that
// are not UTF-8 become U+FFFD first, so a lone 0x9B cannot act as CSI either.
class TerminalText {
  public:
    static std::string clean(std::string_view text);
};

} // namespace tierscope
