#include "core/store/ChunkCodec.h"

#include <cstdint>
#include <cstring>

namespace tierscope {

namespace {

void putVarint(std::vector<unsigned char>& out, std::uint64_t v) {
    while (v >= 0x80) {
        out.push_back(static_cast<unsigned char>(v | 0x80));
        v >>= 7;
    }
    out.push_back(static_cast<unsigned char>(v));
}

bool getVarint(std::span<const unsigned char> in, std::size_t& pos, std::uint64_t& v) {
    v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (pos >= in.size())
            return false;
        const unsigned char byte = in[pos++];
        v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
        if ((byte & 0x80) == 0)
            return true;
    }
    return false;
}

std::uint64_t zigzag(std::int64_t v) {
    return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

std::int64_t unzigzag(std::uint64_t v) {
    return static_cast<std::int64_t>(v >> 1) ^ -static_cast<std::int64_t>(v & 1);
}

} // namespace

std::vector<unsigned char> ChunkCodec::encode(std::span<const Sample> samples) {
    std::vector<unsigned char> out;
    out.reserve(samples.size() * 12 + 10);
    putVarint(out, samples.size());
    std::int64_t previous = 0;
    for (const Sample& s : samples) {
        // Wrapping subtraction: any int64 pair round-trips through the zigzag varint.
        const auto delta = static_cast<std::int64_t>(static_cast<std::uint64_t>(s.tNs) -
                                                     static_cast<std::uint64_t>(previous));
        putVarint(out, zigzag(delta));
        previous = s.tNs;
    }
    const std::size_t valuesAt = out.size();
    out.resize(valuesAt + samples.size() * sizeof(double));
    for (std::size_t i = 0; i < samples.size(); ++i)
        std::memcpy(out.data() + valuesAt + i * sizeof(double), &samples[i].value, sizeof(double));
    return out;
}

std::optional<std::vector<Sample>> ChunkCodec::decode(std::span<const unsigned char> blob) {
    std::size_t pos = 0;
    std::uint64_t count = 0;
    if (!getVarint(blob, pos, count) || count > blob.size())
        return std::nullopt;
    std::vector<Sample> samples(count);
    std::uint64_t t = 0;
    for (auto& s : samples) {
        std::uint64_t delta = 0;
        if (!getVarint(blob, pos, delta))
            return std::nullopt;
        t += static_cast<std::uint64_t>(unzigzag(delta));
        s.tNs = static_cast<std::int64_t>(t);
    }
    if (blob.size() - pos != count * sizeof(double))
        return std::nullopt;
    for (std::size_t i = 0; i < count; ++i)
        std::memcpy(&samples[i].value, blob.data() + pos + i * sizeof(double), sizeof(double));
    return samples;
}

} // namespace tierscope
