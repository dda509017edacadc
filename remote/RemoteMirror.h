#pragma once

#include "remote/SshSession.h"
#include "core/model/DeviceRecord.h"
#include "core/model/SampleSink.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace tierscope {

// Watches a server: runs `tierscope stream` there (the server records into its own workspace,
// so nothing is lost when this end goes away) and mirrors what arrives into a local session,
// and into `observer` (the live view). Blocks until `stop` is set, the server's stream ends,
// or the connection is lost or silent for `silence`; the result says which, in one line.
class RemoteMirror {
  public:
    struct Options {
        std::string dbPath; // the local workspace
        std::string interval = "1s";
        std::string duration; // empty: until stopped
        std::string label;    // of the server's session; the mirror's says where it is from
        std::string storageProfile;
        SampleSink* observer = nullptr;
        std::chrono::milliseconds silence{15000};
        // The mirror session exists: its id, the server's host name and session, the devices.
        std::function<void(std::int64_t local, const std::string& host, std::int64_t remote,
                           const std::vector<DeviceRecord>& devices)>
            started;
    };
    struct Result {
        bool ok = false;
        std::string error; // one line when !ok
        SshDiagnosis::Kind kind = SshDiagnosis::Kind::Other;
        std::string host; // the server's own name, from its hello
        std::int64_t localSession = 0;
        std::int64_t remoteSession = 0;
        std::size_t sampleRows = 0; // sample lines mirrored
    };

    static Result run(SshSession& session, const Options& options, const std::atomic<bool>& stop);
};

} // namespace tierscope
