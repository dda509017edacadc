#include "app/CommandTree.h"

namespace tierscope {

namespace {

// CLI11 writes an IsMember check into the type name: "TEXT:{trace,debug,info}".
std::vector<std::string> choicesOf(const std::string& typeName) {
    const auto open = typeName.find(":{");
    const auto close = typeName.find('}', open == std::string::npos ? 0 : open);
    if (open == std::string::npos || close == std::string::npos)
        return {};
    std::vector<std::string> out;
    std::string item;
    for (const char c : typeName.substr(open + 2, close - open - 2)) {
        if (c == ',') {
            out.push_back(item);
            item.clear();
        } else {
            item += c;
        }
    }
    out.push_back(item);
    return out;
}

std::string valueNameOf(const std::string& typeName) {
    return typeName.substr(0, typeName.find(':'));
}

CommandTree::Option optionOf(const CLI::Option& o) {
    CommandTree::Option out;
    for (const auto& s : o.get_snames())
        out.names.push_back("-" + s);
    for (const auto& l : o.get_lnames())
        out.names.push_back("--" + l);
    out.description = o.get_description();
    out.required = o.get_required();
    if (o.get_positional() || o.get_type_size_max() > 0) {
        out.valueName = o.get_positional() ? o.get_name(true) : valueNameOf(o.get_type_name());
        out.choices = choicesOf(o.get_type_name());
    }
    return out;
}

} // namespace

std::vector<CommandTree::Command> CommandTree::of(const CLI::App& app) {
    std::vector<Command> out;
    add(app, "", out);
    return out;
}

void CommandTree::add(const CLI::App& app, const std::string& path, std::vector<Command>& out) {
    Command command;
    command.path = path;
    command.description = app.get_description();
    command.footer = app.get_footer();
    for (const CLI::Option* o : app.get_options()) {
        if (o->get_group().empty())
            continue;
        if (o->get_positional())
            command.positionals.push_back(optionOf(*o));
        else
            command.options.push_back(optionOf(*o));
    }
    const auto visible = [](const CLI::App* sub) { return !sub->get_group().empty(); };
    const auto subs = app.get_subcommands(visible);
    for (const CLI::App* sub : subs) {
        command.subcommands.push_back(sub->get_name());
        command.subcommandDescriptions.push_back(sub->get_description());
    }
    out.push_back(command);
    for (const CLI::App* sub : subs)
        add(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name(), out);
}

} // namespace tierscope
