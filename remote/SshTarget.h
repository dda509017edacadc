#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace tierscope {

// Where a command runs: this machine, or a server reached with the user's own ssh client.
// Parsed from "local" or "ssh://[user@]host[:port]". Every part is checked against a narrow
// character set, so nothing from a target can reach ssh as an option or the remote shell as
// syntax (a host "-oProxyCommand=..." is refused, not passed on).
struct SshTarget {
    bool local = true;
    std::string user;        // empty: ssh's own choice (config, then the local user name)
    std::string host;        // a name, an IPv4 address, or an IPv6 address without brackets
    std::optional<int> port; // absent: ssh's own choice (config, then 22)

    struct Parsed;
    static Parsed parse(std::string_view text);

    // "ssh://gpu01:2222" or "local": what the user wrote, normalised.
    std::string uri() const;
    // The host name as the GUI and CLI label the server everywhere.
    std::string label() const { return local ? std::string("local") : host; }
};

struct SshTarget::Parsed {
    std::optional<SshTarget> target;
    std::string error; // one line, when target is absent
};

} // namespace tierscope
