#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tierscope {

// Who listens on a local TCP port: /proc/net/tcp{,6} give the listening socket's inode, and the
// process holding it is the one with a /proc/PID/fd link to "socket:[inode]". An engine left
// over from an earlier arm is found this way before it can answer for the next one.
class PortHolder {
  public:
    struct Holder {
        int pid = 0;
        std::string cmdline; // arguments joined by spaces
    };
    // The inodes of sockets in the LISTEN state on `port` (any local address), from the text of
    // /proc/net/tcp or /proc/net/tcp6.
    static std::vector<std::uint64_t> listeningInodes(std::string_view procNetTcp, int port);
    // The port of an http(s) URL whose host is this machine (127.0.0.1, localhost, ::1,
    // 0.0.0.0); nullopt for a remote host or a malformed URL.
    static std::optional<int> localPort(const std::string& url);

    static bool listening(int port);
    // nullopt when nobody listens or the holder is not visible (another user's process, another
    // PID namespace).
    static std::optional<Holder> holder(int port);
    // The process group of the process listening on a local engine URL's port: the engine's
    // processes, whose own I/O (/proc/<pid>/io) is the evidence of what it read. nullopt for a
    // remote URL, nobody listening or a holder that is not visible.
    static std::optional<int> processGroup(const std::string& url);
    // "127.0.0.1:8000 is already in use by pid N (cmdline)", or says the holder is unknown.
    static std::string describe(int port);
};

} // namespace tierscope
