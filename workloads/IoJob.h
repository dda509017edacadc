#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tierscope {

// One file a stream reads or writes, whole.
struct FileSpan {
    std::string path;
    std::uint64_t size = 0;
    std::uint64_t inode = 0; // nonzero: the opened file must be this one, or the run is refused
};

// What IoRunner executes: streams of files, `concurrency` streams at a time, each with up to
// `depth` operations in flight. A model load is one stream per shard; a KV restore is one
// stream per request over its chunk files; a checkpoint is one stream per file, fsync'd.
struct IoJob {
    std::vector<std::vector<FileSpan>> streams;
    bool write = false;
    bool create = false;         // write: create the files (O_EXCL: never reuse a stranger's file)
    bool fsyncEachFile = false;  // write: fsync before a file counts as done (torch.save + fsync)
    bool preallocate = false;    // write: fallocate the whole file first (fio's default layout)
    bool random = false;         // read: block-aligned random offsets instead of sequential
    std::uint64_t randomOps = 0; // random: operations per stream (0: size / block size)
    std::uint64_t seed = 1;
    int concurrency = 1;
    int depth = 1;
    std::uint32_t blockSize = 1 << 20;
    bool direct = true; // O_DIRECT, falling back to buffered where the filesystem refuses it
};

} // namespace tierscope
