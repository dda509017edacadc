#pragma once

#include "remote/SshTarget.h"

#include <string>
#include <string_view>

namespace tierscope {

// One clear line for why talking to a server failed, from what the ssh client and the remote
// shell said. Pure: OpenSSH's own messages are matched, never shown raw when a plainer
// sentence exists.
class SshDiagnosis {
  public:
    enum class Kind {
        Unreachable,   // no route, refused, timed out, name unknown
        AuthRefused,   // the server refused every key (BatchMode: no password prompt)
        HostKey,       // the host key is unknown or changed
        MissingBinary, // tierscope is not on the server's PATH (or not at the given path)
        Incompatible,  // a tierscope without this command or with another stream format
        Lost,          // the connection went away mid-stream
        Other,
    };
    struct Result {
        Kind kind = Kind::Other;
        std::string line;
    };

    // ssh's exit status (255 for its own errors, else the remote command's) and its stderr.
    static Result classify(const SshTarget& target, int exitCode, std::string_view stderrText,
                           const std::string& remoteBinary = "tierscope");

    // Printable text from a hostile source: control characters (terminal escapes) become '?',
    // and at most `maxLength` bytes are kept.
    static std::string printable(std::string_view text, std::size_t maxLength = 200);
};

} // namespace tierscope
