#pragma once

#include "core/model/Sample.h"

#include <optional>
#include <span>
#include <vector>

namespace tierscope {

// Packs one series' samples into a blob: a varint count, zigzag-varint time deltas, then the raw
// IEEE doubles. Time deltas of a regularly sampled series take 2-4 bytes instead of 8.
class ChunkCodec {
  public:
    static std::vector<unsigned char> encode(std::span<const Sample> samples);
    // nullopt when the blob is truncated or malformed; never reads past the blob.
    static std::optional<std::vector<Sample>> decode(std::span<const unsigned char> blob);
};

} // namespace tierscope
