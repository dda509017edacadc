#include "app/ExportCommand.h"

#include "app/ExitCode.h"
#include "app/WorkspaceOpener.h"
#include "core/CsvExporter.h"
#include "core/StoreError.h"

#include <fstream>
#include <iostream>

namespace tierscope {

CLI::App* ExportCommand::attach(CLI::App& parent, Options& options) {
    auto* cmd = parent.add_subcommand("export", "Export recorded data");
    cmd->require_subcommand(1);
    auto* csv = cmd->add_subcommand("csv", "Every sample of a session as long-format CSV "
                                           "(metric,unit,time_utc,t_ns,value)");
    csv->add_option("--session", options.session, "Session ID (see `tierscope sessions`)")
        ->required();
    csv->add_option("--metric", options.metric, "Metric path glob, e.g. 'block/*/read_*'")
        ->capture_default_str();
    csv->add_option("--out", options.out, "Output file (default: standard output)");
    return cmd;
}

int ExportCommand::run(const GlobalOptions& global, const Options& options) {
    auto store = WorkspaceOpener::openExisting(global.dbPath());
    if (!store->session(options.session))
        throw StoreError(StoreError::Code::NotFound, "no session " +
                                                         std::to_string(options.session) + " in " +
                                                         global.dbPath());
    std::ofstream file;
    if (!options.out.empty()) {
        // Write beside the target and rename, so a failed export never leaves half a file
        // under the requested name.
        file.open(options.out + ".part", std::ios::binary | std::ios::trunc);
        if (!file)
            throw StoreError(StoreError::Code::CannotWrite, "cannot write " + options.out);
    }
    std::ostream& out = options.out.empty() ? std::cout : file;
    const auto result = CsvExporter::write(*store, options.session, options.metric, out);
    out.flush();
    if (!out)
        throw StoreError(StoreError::Code::CannotWrite, "writing the export failed (disk full?)");
    if (!options.out.empty()) {
        file.close();
        if (std::rename((options.out + ".part").c_str(), options.out.c_str()) != 0)
            throw StoreError(StoreError::Code::CannotWrite, "cannot rename to " + options.out);
    }
    if (result.metrics == 0) {
        std::cerr << "tierscope export csv: no metric of session " << options.session
                  << " matches \"" << options.metric << "\"\n";
        return kExitNotFound;
    }
    if (!options.out.empty())
        std::cerr << "wrote " << result.rows << " samples of " << result.metrics << " metrics to "
                  << options.out << "\n";
    return kExitOk;
}

} // namespace tierscope
