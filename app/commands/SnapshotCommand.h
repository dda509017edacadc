#pragma once

#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>
#include <string>

namespace tierscope {

// `tierscope snapshot`: what a workstation's `tierscope pull` runs on the server. Copies the
// selected sessions of this workspace into a temporary workspace file and writes it to stdout:
// a hello line, a {"type":"snapshot","bytes":N} line, then the N bytes of the file.
class SnapshotCommand {
  public:
    struct Options {
        long long session = 0;
        std::string experiment;
    };
    static CLI::App* attach(CLI::App& parent, Options& options);
    static int run(const GlobalOptions& global, const Options& options);
};

} // namespace tierscope
