#pragma once

#include "app/commands/ImportCommand.h"
#include "app/common/GlobalOptions.h"

#include <CLI/CLI.hpp>

namespace tierscope {

// `import fio`, `import aiperf` and `import guidellm`: each file (or AIPerf artifact folder)
// read by its pure parser (core/store), every one checked before the workspace is opened, then
// stored as runs of one new session in one transaction, as `import vllm-bench` does.
class ImportTools {
  public:
    // Adds the three subcommands to `import`.
    static void attach(CLI::App& import, ImportCommand::Options& options);
    static int run(const GlobalOptions& global, const ImportCommand::Options& options);
};

} // namespace tierscope
