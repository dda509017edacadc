#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tierscope {

// The visible commands and options of a CLI11 app, flattened for the generators of shell
// completions and the man page. Hidden entries (CLI11 group "") are left out.
class CommandTree {
  public:
    struct Option {
        std::vector<std::string> names; // "-q", "--quiet"
        std::string description;
        std::string valueName;            // empty: a flag; the positional's name for positionals
        std::vector<std::string> choices; // from an IsMember check; empty: any value
        bool required = false;
    };
    struct Command {
        std::string path; // "" for the top level, "storage prepare"
        std::string description;
        std::string footer;
        std::vector<std::string> subcommands;
        std::vector<std::string> subcommandDescriptions;
        std::vector<Option> options;
        std::vector<Option> positionals;
    };

    // Depth first, the top level first.
    static std::vector<Command> of(const CLI::App& app);

  private:
    static void add(const CLI::App& app, const std::string& path, std::vector<Command>& out);
};

} // namespace tierscope
