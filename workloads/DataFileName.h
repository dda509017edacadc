#pragma once

#include <string>

namespace tierscope {

// The names of the files tierscope creates in a storage target directory. A name that does
// not parse back into exactly itself is not one of ours, whatever a manifest says about it.
class DataFileName {
  public:
    static std::string shard(int index, int count);      // model-00001-of-00004.safetensors
    static std::string kvChunk(int prefix, int chunk);   // kv-p00000-c00000.bin
    static std::string checkpoint(int index, int count); // checkpoint-00001-of-00008.pt

    // "model-load", "kv-restore" or "checkpoint-save" for one of our names; empty otherwise
    // (paths, "..", names with a sign or a different number of digits, strangers' names).
    static std::string workloadOf(const std::string& name);
};

} // namespace tierscope
