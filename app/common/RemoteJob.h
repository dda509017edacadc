#pragma once

#include <string>
#include <vector>

namespace tierscope {

class SshSession;

// The workstation's half of a job on a server (JobCommand there): starts it with the plan sent
// along, or reattaches to it by id, and streams its progress here until it ends. Ctrl-C asks
// the server to stop the job's process group cleanly (a second Ctrl-C kills it); a dropped
// connection leaves the job running and says how to reattach. The job's report goes to
// stdout, or to `reportPath`. Returns the job's exit status, or kExitRemote.
class RemoteJob {
  public:
    struct Request {
        std::string command;           // "run" or "storage run": for messages
        std::vector<std::string> args; // tierscope ARGS on the server; "{plan}": the plan
        std::string planText;          // sent along when args name {plan}
        std::string attachId;          // reattach to this job instead of starting one
        std::string reportPath;        // write the report here instead of stdout
        std::string targetText;        // as the user wrote it, for the reattach hint
    };
    static int run(SshSession& session, const Request& request);
    // Connects to `target` and starts `args` there, or follows job `id` again.
    static int start(const std::string& target, const std::string& command,
                     const std::vector<std::string>& args, const std::string& planText,
                     const std::string& reportPath);
    static int attach(const std::string& target, const std::string& command, const std::string& id,
                      const std::string& reportPath);
};

} // namespace tierscope
