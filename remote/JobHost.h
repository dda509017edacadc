#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace tierscope {

// The server half of a workstation's `run --target` and `storage run --target`. A job is one
// tierscope command (run or storage run) detached from the SSH session, in a process group
// and session of its own, so a dropped connection does not stop it; its progress (stderr),
// report (stdout) and exit status are owner-only files under the workspace's jobs/
// directory, which follow() streams as the versioned JSON lines from the start, so
// reconnecting shows all of it. Every file is created O_EXCL|O_NOFOLLOW, never followed.
class JobHost {
  public:
    explicit JobHost(std::filesystem::path jobsDirectory) : m_jobs(std::move(jobsDirectory)) {}

    struct Started {
        enum class Status { Started, CannotWrite, Failed } status = Status::Failed;
        std::string id;
        std::string error; // what failed, for a person
    };
    // Runs `tierscope --db DB ARGS...` (this executable) as a job and writes the stream's
    // "started" record with its id to stdout. With `plan`, the plan is saved in the job's
    // directory first and "{plan}" in the arguments names that copy.
    Started start(const std::string& dbPath, const std::vector<std::string>& args,
                  const std::optional<std::string>& plan) const;

    bool exists(const std::string& id) const;
    // Streams the job's progress from its first line to stdout: each line of its stderr as a
    // log record, then its exit status. Returns when the job has ended, or when the
    // workstation goes away (stdin closes; the job goes on).
    void follow(const std::string& id) const;
    enum class Cancel { Sent, AlreadyEnded, Failed };
    // SIGINT to the job's process group (tierscope stops its run cleanly), SIGKILL with force.
    Cancel cancel(const std::string& id, bool force, std::string& error) const;
    // The job's report (its stdout), at most 16 MiB, to stdout.
    void output(const std::string& id) const;

    const std::filesystem::path& directory() const { return m_jobs; }

  private:
    std::filesystem::path m_jobs;
};

} // namespace tierscope
