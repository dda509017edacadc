#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace tierscope {

// The validity checks of one measured run, from numbers taken before and after it: each a JSON
// object {"check", "status": pass|warn|fail, "detail", and its numbers}, stored in the run's
// summary "validity" array. A failed check makes a comparison INVALID (Comparison::validity).
class ValidityChecks {
  public:
    // Device reads at or above this share of the KV the workload implies pass; below
    // kFailShare they fail; between, warn.
    static constexpr double kPassShare = 0.5;
    static constexpr double kFailShare = 0.1;

    // What the arm's plan says its KV comes from: a declared recompute baseline expects no tier
    // hits and next to no reads; a restoring arm at least `minHitShare` of the tokens it looked
    // up in its KV tier hit.
    struct CacheExpectation {
        bool recompute = false;
        double minHitShare = 0.5;
    };
    // The bytes read in the measured phase: the block device's (every process on the machine)
    // and the engine's own (the read_bytes of its process group's processes in /proc/<pid>/io),
    // each absent where not known. The engine's are the evidence where known.
    struct Reads {
        std::optional<std::string> device;
        std::string deviceWhy;
        std::optional<double> deviceBytes;
        std::optional<double> engineBytes;
        int engineProcesses = 0;
    };

    // Bytes read from the arm's block device in the measured phase against the KV bytes the
    // workload implies (its distinct prefix tokens x KV bytes per token).
    static nlohmann::json storageEvidence(const std::optional<std::string>& device,
                                          const std::string& deviceWhy,
                                          std::optional<double> deviceReadBytes,
                                          std::optional<double> impliedBytes);
    // The same judged on the engine's own reads where known (the device's beside them, labelled
    // machine-wide), and for a recompute baseline inverted: it passes on reading next to
    // nothing.
    static nlohmann::json storageEvidence(const Reads& reads, std::optional<double> impliedBytes,
                                          const CacheExpectation& expect);
    // Prefix-cache / LMCache hit tokens and retrieves that moved in the measured phase
    // (`counters`: EvidenceSnapshot::delta), and a recompute fallback: a recompute counter that
    // moved, or hits with no storage read at all.
    // With `expect.recompute`, the check passes when no KV tier served a token.
    static nlohmann::json
    cacheEvidence(const std::optional<std::map<std::string, double>>& counters,
                  std::optional<double> deviceReadBytes, std::optional<double> impliedBytes,
                  const CacheExpectation& expect);
    static nlohmann::json
    cacheEvidence(const std::optional<std::map<std::string, double>>& counters,
                  std::optional<double> deviceReadBytes, std::optional<double> impliedBytes) {
        return cacheEvidence(counters, deviceReadBytes, impliedBytes, CacheExpectation{});
    }
    // Page cache that grew by about the KV size while the device read next to nothing though
    // the KV store says it read (`storeReadBytes`, LMCache's read bytes; absent: not reported):
    // the "cold" reads came from RAM. A store that read nothing was served elsewhere (a CPU
    // tier, a recompute), which the other checks name.
    static nlohmann::json pageCache(std::optional<double> growthBytes,
                                    std::optional<double> deviceReadBytes,
                                    std::optional<double> impliedBytes,
                                    std::optional<double> storeReadBytes);
    // The measured phase's failed requests against the plan's max_failure_rate.
    static nlohmann::json errors(long failed, long issued, std::optional<double> limit);
};

} // namespace tierscope
