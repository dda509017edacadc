#pragma once

#include "core/store/ImportedRun.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// `fio --output-format=json` results (fio 3.x: stat.c show_thread_status_json and
// add_ddir_status_json, or client.c's "client_stats" of `fio --client`) as storage runs, one
// per job, workload "storage/fio". Each keeps fio's job object verbatim ("fio_job") beside
// the fields tierscope's own storage runs have: seconds (job_runtime), bytes_read and
// bytes_written (io_bytes), read_gb_per_s and write_gb_per_s (fio's bw_bytes / 1e9), and the
// KPIs fio adds: IOPS and completion-latency p50/p99 (clat_ns "50.000000", "99.000000").
// A direction that moved nothing has no rate and no latency: absent, never 0.
//
// What a job compares with is its params' "variant": a sequential read with direct=1 is what
// tierscope's model-load measures ("storage/model-load"); any other job compares only with fio
// jobs of the same rw, block size and page-cache use ("storage/fio/randread@bs4096").
class FioImport {
  public:
    // Throws std::runtime_error with one line naming what is wrong: not JSON (where), not
    // fio's output, a job without its figures, a figure that is no figure or that fio's own
    // formula contradicts (bw_bytes = 1000 x io_bytes / runtime). Lines before the JSON (fio
    // prints a job's I/O errors into the same file, fio issue #731) are kept as messages.
    static std::vector<ImportedRun> parse(const std::string& text);

    // A size option as fio reads it (parse.c get_mult_bytes): "4096", "4k", "1M", "128KiB",
    // with kb_base 1024 (fio's default: k = 1024, and "KiB" = 1000) or 1000 (the reverse).
    // nullopt for anything else: a range ("4k-64k"), per-direction sizes ("4k,64k").
    static std::optional<std::uint64_t> sizeBytes(const std::string& text, int kbBase);
    // A boolean option's value as fio reads it (parse.c check_int: an unsigned number, "0x"
    // hexadecimal): anything but 0 is true; text that is no number is false.
    static bool truthy(const std::string& value);
    // The workload variant of a job (see above).
    static std::string variant(const std::string& rw, const std::string& blockSize, bool direct,
                               int kbBase);
};

} // namespace tierscope
