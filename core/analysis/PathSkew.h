#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// Findings on the paths of one NVMe native-multipath namespace (a head such as nvme1n1 and
// its path disks nvme1c1n1, nvme1c2n1, ...), from what sysfs says of each path (its ANA state,
// the subsystem's iopolicy) and, over a span, the bytes each path moved and its mean queue
// depth. Every finding needs its evidence: an absent state, policy or byte count gives none.
//
// How the kernel picks a path (drivers/nvme/host/multipath.c, __nvme_find_path and the three
// policies) is what makes a pattern a finding:
// - Only "optimized" paths carry I/O while one is usable; "non-optimized" ones only when no
//   optimized path is left; "inaccessible", "persistent-loss" and "change" paths carry none.
// - round-robin alternates over the usable paths and queue-depth picks the one with the fewest
//   requests in flight: with two or more optimized paths, both spread the load. One path
//   carrying nearly all bytes then means the others are slow, reconnecting or failing over.
// - numa sends each NUMA node's I/O down the path nearest to it: a process on one node uses
//   one path by design. That is a note, not a finding.
class PathSkew {
  public:
    struct Path {
        std::string name;                    // nvme1c1n1
        std::optional<std::string> anaState; // absent: no ana_state file (no ANA) or not read
        std::optional<double> bytes;         // read + written over the span
        std::optional<double> meanQueueDepth;
        std::string transport; // shown in sentences; empty when unknown
        std::string address;   // traddr:trsvcid, shown in sentences
    };
    struct Head {
        std::string name;                    // nvme1n1
        std::optional<std::string> iopolicy; // numa, round-robin, queue-depth
        std::vector<Path> paths;
    };

    enum class Kind {
        OnePathCarriesAll, // skew under round-robin or queue-depth
        NotOptimized,      // a path in ANA state non-optimized
        Inaccessible,      // inaccessible, persistent-loss or change: the path carries no I/O
    };
    struct Finding {
        Kind kind;
        std::string device; // the head
        std::string path;
        std::optional<double> share; // OnePathCarriesAll: the path's share of the bytes, 0..1
        std::optional<double> meanQueueDepth;
        std::optional<std::string> state;    // the ANA state
        std::optional<std::string> iopolicy; // the subsystem's, when known
        std::string text;                    // one plain sentence
    };
    struct Result {
        std::vector<Finding> findings;
        std::vector<std::string> notes; // skew that the policy explains, said once
    };

    // A path carrying at least this share of the bytes, with two or more optimized paths,
    // skews the load. 90 %: an even split over two paths is 50 %, over three 33 %; a path
    // that briefly reconnects during a run costs far less than this.
    static constexpr double kSkewShare = 0.90;
    // Below this many bytes over the span (all paths together), shares are noise: a few
    // metadata reads are not a load to balance.
    static constexpr double kMinBytes = 64.0 * 1024 * 1024;

    // ANA findings only (what `devices` can say without traffic) or all, when bytes are given.
    static Result judge(const Head& head);
    static Result judge(const std::vector<Head>& heads);

    static const char* kindName(Kind kind); // "path-skew", "path-not-optimized", ...
};

} // namespace tierscope
