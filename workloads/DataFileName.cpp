#include "workloads/DataFileName.h"

#include <cstdio>
#include <optional>

namespace tierscope {

namespace {

struct Pattern {
    const char* workload;
    const char* format;
    const char* prefix;
    const char* middle;
    const char* suffix;
};

constexpr Pattern kPatterns[] = {
    {"model-load", "model-%05d-of-%05d.safetensors", "model-", "-of-", ".safetensors"},
    {"kv-restore", "kv-p%05d-c%05d.bin", "kv-p", "-c", ".bin"},
    {"checkpoint-save", "checkpoint-%05d-of-%05d.pt", "checkpoint-", "-of-", ".pt"},
};

std::string numbered(const char* format, int a, int b) {
    char name[96];
    std::snprintf(name, sizeof name, format, a, b);
    return name;
}

bool skip(const std::string& name, std::size_t& at, const std::string& literal) {
    if (name.compare(at, literal.size(), literal) != 0)
        return false;
    at += literal.size();
    return true;
}

// Up to 9 digits, so the value fits an int; the caller's re-rendering rejects odd forms.
std::optional<int> digits(const std::string& name, std::size_t& at) {
    const std::size_t start = at;
    int value = 0;
    while (at < name.size() && name[at] >= '0' && name[at] <= '9' && at - start < 9)
        value = value * 10 + (name[at++] - '0');
    if (at == start)
        return std::nullopt;
    return value;
}

} // namespace

std::string DataFileName::shard(int index, int count) {
    return numbered(kPatterns[0].format, index + 1, count);
}

std::string DataFileName::kvChunk(int prefix, int chunk) {
    return numbered(kPatterns[1].format, prefix, chunk);
}

std::string DataFileName::checkpoint(int index, int count) {
    return numbered(kPatterns[2].format, index + 1, count);
}

std::string DataFileName::workloadOf(const std::string& name) {
    for (const auto& p : kPatterns) {
        std::size_t at = 0;
        if (!skip(name, at, p.prefix))
            continue;
        const auto a = digits(name, at);
        if (!a || !skip(name, at, p.middle))
            continue;
        const auto b = digits(name, at);
        if (!b || !skip(name, at, p.suffix) || at != name.size())
            continue;
        if (numbered(p.format, *a, *b) == name)
            return p.workload;
    }
    return {};
}

} // namespace tierscope
