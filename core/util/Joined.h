#pragma once

#include <string>
#include <string_view>

namespace tierscope {

// The items of a range of strings, in its order, with `separator` between them: "a, b, c".
template <typename Range>
std::string joined(const Range& items, std::string_view separator = ", ") {
    std::string out;
    for (const auto& item : items) {
        if (!out.empty())
            out += separator;
        out += item;
    }
    return out;
}

} // namespace tierscope
