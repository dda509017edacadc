#include "app/commands/RemoteRecord.h"

#include "app/common/CancelOnSignal.h"
#include "app/common/ExitCode.h"
#include "app/common/SummaryPrinter.h"
#include "app/common/TargetOption.h"
#include "remote/RemoteMirror.h"
#include "core/store/SessionSummary.h"
#include "core/store/Store.h"

#include <filesystem>
#include <iostream>

namespace tierscope {

int RemoteRecord::run(const GlobalOptions& global, const RecordCommand::Options& o) {
    int rc = kExitOk;
    const auto session = TargetOption::connect(o.target, "record", rc);
    if (!session)
        return rc;
    RemoteMirror::Options m;
    m.dbPath = global.dbPath();
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(m.dbPath).parent_path(), ec);
    m.interval = o.interval;
    m.duration = o.duration;
    m.label = o.label;
    m.storageProfile = o.storageProfile;
    m.started = [&o](std::int64_t local, const std::string& host, std::int64_t remote,
                     const std::vector<DeviceRecord>&) {
        if (!o.quiet)
            std::cerr << "recording " << host << " (its session " << remote
                      << "), mirrored here as session " << local << "\n";
    };
    RemoteMirror::Result result;
    {
        CancelOnSignal cancel;
        result = RemoteMirror::run(*session, m, CancelOnSignal::flag());
    }
    if (!result.ok) {
        std::cerr << "tierscope record: " << result.error << "\n";
        return kExitRemote;
    }
    if (!o.quiet) {
        Store store(m.dbPath, Store::Mode::ReadOnly);
        SummaryPrinter::print(std::cout, SessionSummary::compute(store, result.localSession),
                              m.dbPath);
    }
    return kExitOk;
}

} // namespace tierscope
