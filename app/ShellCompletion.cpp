#include "app/ShellCompletion.h"

#include "app/CommandTree.h"

#include <set>
#include <sstream>

namespace tierscope {

namespace {

using Command = CommandTree::Command;
using Option = CommandTree::Option;

// A single-quoted shell word; both shells read '\'' as a quote inside one.
std::string quoted(const std::string& text) {
    std::string out = "'";
    for (const char c : text) {
        if (c == '\'')
            out += "'\\''";
        else if (c == '\n')
            out += ' ';
        else
            out += c;
    }
    return out + "'";
}

std::string joined(const std::vector<std::string>& words) {
    std::string out;
    for (const auto& w : words)
        out += (out.empty() ? "" : " ") + w;
    return out;
}

// A command's own options, then those of its parents it does not shadow: a subcommand
// falls through to its parents (CommandLine), so `sessions --db X` is valid.
std::vector<Option> optionsAt(const std::vector<Command>& tree, const Command& command) {
    std::vector<Option> out;
    std::set<std::string> seen;
    std::string path = command.path;
    while (true) {
        for (const auto& c : tree) {
            if (c.path != path)
                continue;
            for (const auto& o : c.options) {
                if (!seen.insert(o.names.back()).second)
                    continue;
                out.push_back(o);
            }
        }
        if (path.empty())
            break;
        const auto space = path.rfind(' ');
        path = space == std::string::npos ? "" : path.substr(0, space);
    }
    return out;
}

std::vector<std::string> allNames(const std::vector<Option>& options, bool valuesOnly) {
    std::vector<std::string> out;
    for (const auto& o : options)
        if (!valuesOnly || !o.valueName.empty())
            out.insert(out.end(), o.names.begin(), o.names.end());
    return out;
}

std::vector<std::string> positionalChoices(const Command& command) {
    std::vector<std::string> out;
    for (const auto& p : command.positionals)
        out.insert(out.end(), p.choices.begin(), p.choices.end());
    return out;
}

constexpr const char* kBashMain = R"(_tierscope() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev='' path='' word i
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        if [[ $word == -* ]]; then
            [[ " $(_tierscope_value_options "$path") " == *" $word "* ]] && ((i++))
            continue
        fi
        [[ " $(_tierscope_commands "$path") " == *" $word "* ]] && path=${path:+$path }$word
    done
    local words
    if [[ $prev == -* && " $(_tierscope_value_options "$path") " == *" $prev "* ]]; then
        words=$(_tierscope_choices "$path" "$prev")
    elif [[ $cur == -* ]]; then
        words=$(_tierscope_options "$path")
    else
        words=$(_tierscope_commands "$path")
        [[ -z $words ]] && words=$(_tierscope_choices "$path" '')
    fi
    if [[ -n $words ]]; then
        COMPREPLY=($(compgen -W "$words" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _tierscope tierscope
)";

constexpr const char* kZshMain = R"(_tierscope() {
    local cmdpath='' word i cur=${words[CURRENT]} prev=${words[CURRENT-1]}
    local -a ts_names ts_opts ts_values ts_cmds ts_choices
    for ((i = 2; i < CURRENT; i++)); do
        word=${words[i]}
        _tierscope_data "$cmdpath"
        if [[ $word == -* ]]; then
            (( ${ts_values[(Ie)$word]} )) && ((i++))
            continue
        fi
        (( ${ts_names[(Ie)$word]} )) && cmdpath=${cmdpath:+$cmdpath }$word
    done
    _tierscope_data "$cmdpath"
    if (( ${ts_values[(Ie)$prev]} )); then
        ts_choices=(${=$(_tierscope_choices "$cmdpath" "$prev")})
    elif [[ $cur == -* ]]; then
        _describe -t options option ts_opts
        return
    elif (( $#ts_cmds )); then
        _describe -t commands command ts_cmds
        return
    else
        ts_choices=(${=$(_tierscope_choices "$cmdpath" '')})
    fi
    if (( $#ts_choices )); then
        compadd -a ts_choices
    else
        _files
    fi
}

_tierscope "$@"
)";

} // namespace

std::string ShellCompletion::bash(const CLI::App& app) {
    const auto tree = CommandTree::of(app);
    std::ostringstream commands, options, values, choices;
    for (const auto& c : tree) {
        const auto opts = optionsAt(tree, c);
        commands << "        " << quoted(c.path) << ") echo " << quoted(joined(c.subcommands))
                 << " ;;\n";
        options << "        " << quoted(c.path) << ") echo "
                << quoted(joined(allNames(opts, false))) << " ;;\n";
        values << "        " << quoted(c.path) << ") echo " << quoted(joined(allNames(opts, true)))
               << " ;;\n";
        for (const auto& o : opts)
            for (const auto& name : o.names)
                if (!o.choices.empty())
                    choices << "        " << quoted(c.path + "|" + name) << ") echo "
                            << quoted(joined(o.choices)) << " ;;\n";
        if (const auto positional = positionalChoices(c); !positional.empty())
            choices << "        " << quoted(c.path + "|") << ") echo " << quoted(joined(positional))
                    << " ;;\n";
    }
    std::ostringstream out;
    out << "# bash completion for tierscope. Generated by `tierscope generate bash` from the\n"
           "# program's own commands and options: do not edit.\n\n"
        << "_tierscope_commands() {\n    case $1 in\n"
        << commands.str() << "    esac\n}\n\n"
        << "_tierscope_options() {\n    case $1 in\n"
        << options.str() << "    esac\n}\n\n"
        << "_tierscope_value_options() {\n    case $1 in\n"
        << values.str() << "    esac\n}\n\n"
        << "_tierscope_choices() {\n    case \"$1|$2\" in\n"
        << choices.str() << "    esac\n}\n\n"
        << kBashMain;
    return out.str();
}

std::string ShellCompletion::zsh(const CLI::App& app) {
    const auto tree = CommandTree::of(app);
    std::ostringstream data, choices;
    for (const auto& c : tree) {
        const auto opts = optionsAt(tree, c);
        data << "        " << quoted(c.path) << ")\n";
        data << "            ts_names=(" << joined(c.subcommands) << ")\n";
        data << "            ts_cmds=(";
        for (std::size_t i = 0; i < c.subcommands.size(); ++i)
            data << (i ? " " : "") << quoted(c.subcommands[i] + ":" + c.subcommandDescriptions[i]);
        data << ")\n            ts_opts=(";
        bool first = true;
        for (const auto& o : opts)
            for (const auto& name : o.names) {
                data << (first ? "" : " ") << quoted(name + ":" + o.description);
                first = false;
            }
        data << ")\n            ts_values=(" << joined(allNames(opts, true)) << ")\n";
        data << "            ;;\n";
        for (const auto& o : opts)
            for (const auto& name : o.names)
                if (!o.choices.empty())
                    choices << "        " << quoted(c.path + "|" + name) << ") echo "
                            << quoted(joined(o.choices)) << " ;;\n";
        if (const auto positional = positionalChoices(c); !positional.empty())
            choices << "        " << quoted(c.path + "|") << ") echo " << quoted(joined(positional))
                    << " ;;\n";
    }
    std::ostringstream out;
    out << "#compdef tierscope\n"
           "# zsh completion for tierscope. Generated by `tierscope generate zsh` from the\n"
           "# program's own commands and options: do not edit.\n\n"
        << "_tierscope_data() {\n    ts_names=() ts_cmds=() ts_opts=() ts_values=()\n"
        << "    case $1 in\n"
        << data.str() << "    esac\n}\n\n"
        << "_tierscope_choices() {\n    case \"$1|$2\" in\n"
        << choices.str() << "    esac\n}\n\n"
        << kZshMain;
    return out.str();
}

} // namespace tierscope
