#pragma once

#include <string>

namespace tierscope {

// Credentials out of what tierscope shows or keeps (reports, the stored plan, a run's URL, the
// --out JSON). A secret is recognised by its name where it has one and by its form where it
// does not, because a plan's [arm.env] names are the user's (DB_PASS, hf_token, AUTH_HEADER)
// and a value can carry a credential under any name ("Bearer ...", a URL's password):
//  - a `name = value` or `name: value` whose name has a part (split at _ - .) that is token,
//    key, apikey, secret, password, passwd, pass, pwd, credential(s), auth, authorization or
//    cookie; a part after "per" is a unit (kv_bytes_per_token is a size, not a secret);
//  - a URL's user:password@ and the values of query parameters with such names (api_key=);
//  - "Bearer X" and "Basic X" anywhere;
//  - the forms of well-known tokens: hf_..., sk-..., ghp_/gho_/ghs_..., AKIA...
// What is removed becomes <redacted>, so a reader sees that something was there.
class Redaction {
  public:
    static constexpr const char* kMark = "<redacted>";

    // Text of any kind: a plan, a log line, a command.
    static std::string text(const std::string& text);
    // A URL as shown and stored: no user:password@ at all, secret query values redacted.
    static std::string url(const std::string& url);
    // Whether a variable or parameter of this name holds a secret.
    static bool secretName(const std::string& name);
};

} // namespace tierscope
