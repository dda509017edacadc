#pragma once

namespace tierscope {

// Process exit codes, documented in README.md ("Exit codes"). 3-7 mirror StoreError::Code.
enum ExitCode : int {
    kExitOk = 0,
    kExitFailure = 1,           // unexpected internal error
    kExitUsage = 2,             // bad command line
    kExitNotADatabase = 3,      // not SQLite, or not a tierscope workspace
    kExitNewerSchema = 4,       // written by a newer tierscope
    kExitCannotWrite = 5,       // read-only location, no permission, disk full
    kExitNotFound = 6,          // no such session, metric or database
    kExitIo = 7,                // other database I/O failure
    kExitNoSpace = 8,           // a storage workload would not fit in the free space
    kExitRefused = 9,           // would overwrite a file tierscope did not create, or bad data set
    kExitStorageIo = 10,        // a storage workload's read, write or fsync failed
    kExitGateFailed = 11,       // compare: a gate failed
    kExitGateInconclusive = 12, // compare: no gate failed, one is undecided
    kExitInvalid = 13,          // compare: a validity check of a run failed; no gate judged
    kExitRemote = 14,           // --target ssh://: the server cannot be reached or used
};

} // namespace tierscope
