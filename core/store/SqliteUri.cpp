#include "core/store/SqliteUri.h"

#include <sys/stat.h>

namespace tierscope {

namespace {

bool nonEmptyFile(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0 && st.st_size > 0;
}

} // namespace

std::string SqliteUri::immutable(const std::string& path) {
    static const char* hex = "0123456789ABCDEF";
    std::string out = "file:";
    for (const char c : path) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '?' || c == '#' || c == '%' || u < 0x21 || u >= 0x7F) {
            out += '%';
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            out += c;
        }
    }
    return out + "?immutable=1";
}

bool SqliteUri::immutableUsable(const std::string& path) {
    return !nonEmptyFile(path + "-wal") && nonEmptyFile(path);
}

} // namespace tierscope
