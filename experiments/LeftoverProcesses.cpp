#include "experiments/LeftoverProcesses.h"

#include "collectors/base/SysfsReader.h"

#include <algorithm>
#include <charconv>
#include <dirent.h>

namespace tierscope {

namespace {

std::optional<std::int64_t> number(std::string_view text) {
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || ptr != text.data() + text.size() || value <= 0)
        return std::nullopt;
    return value;
}

std::string commandLine(std::string text) {
    std::replace(text.begin(), text.end(), '\0', ' ');
    while (!text.empty() && text.back() == ' ')
        text.pop_back();
    return text;
}

} // namespace

std::string LeftoverProcesses::ownerValue() {
    const ProcessIdentity self = ProcessIdentity::self();
    return std::to_string(self.pid) + "/" + std::to_string(self.startTicks) + "/" + self.bootId +
           "/" + self.pidNamespace;
}

std::optional<ProcessIdentity> LeftoverProcesses::parseOwner(std::string_view value) {
    std::string_view parts[4];
    for (int i = 0; i < 3; ++i) {
        const auto slash = value.find('/');
        if (slash == std::string_view::npos)
            return std::nullopt;
        parts[i] = value.substr(0, slash);
        value.remove_prefix(slash + 1);
    }
    parts[3] = value;
    const auto pid = number(parts[0]);
    const auto ticks = number(parts[1]);
    if (!pid || !ticks || parts[2].empty() || parts[3].empty())
        return std::nullopt;
    ProcessIdentity id;
    id.pid = *pid;
    id.startTicks = *ticks;
    id.bootId = std::string(parts[2]);
    id.pidNamespace = std::string(parts[3]);
    return id;
}

std::optional<std::string> LeftoverProcesses::ownerIn(std::string_view environ) {
    const std::string prefix = std::string(kVariable) + "=";
    while (!environ.empty()) {
        const auto end = std::min(environ.find('\0'), environ.size());
        const auto entry = environ.substr(0, end);
        if (entry.starts_with(prefix))
            return std::string(entry.substr(prefix.size()));
        environ.remove_prefix(std::min(end + 1, environ.size()));
    }
    return std::nullopt;
}

std::vector<LeftoverProcesses::Leftover> LeftoverProcesses::find(const ProcessIdentity& here,
                                                                 const std::string& proc) {
    std::vector<Leftover> out;
    DIR* dir = opendir(proc.c_str());
    if (!dir)
        return out;
    while (const dirent* entry = readdir(dir)) {
        const auto pid = number(entry->d_name);
        if (!pid || *pid == here.pid)
            continue;
        const std::string base = proc + "/" + entry->d_name;
        const auto value =
            ownerIn(SysfsReader::readFile(base + "/environ").value_or(std::string()));
        if (!value)
            continue;
        const auto owner = parseOwner(*value);
        // The owner must be gone; one that runs (another `run`, the GUI) still looks after it.
        if (!owner || !owner->provablyGone(here))
            continue;
        out.push_back(
            {static_cast<pid_t>(*pid), *owner,
             commandLine(SysfsReader::readFile(base + "/cmdline").value_or(std::string()))});
    }
    closedir(dir);
    std::sort(out.begin(), out.end(),
              [](const Leftover& a, const Leftover& b) { return a.pid < b.pid; });
    return out;
}

std::string LeftoverProcesses::describe(const std::vector<Leftover>& leftovers) {
    std::string text;
    for (const auto& l : leftovers)
        text += "pid " + std::to_string(l.pid) + " (" +
                (l.command.empty() ? std::string("no command line") : l.command) +
                "), started by tierscope pid " + std::to_string(l.owner.pid) + ", which is gone\n";
    return text;
}

} // namespace tierscope
