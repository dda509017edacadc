#include "collectors/storage/PathDevice.h"

#include "collectors/base/SysfsReader.h"
#include "collectors/storage/BlockDeviceNames.h"

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <sys/sysmacros.h>

namespace tierscope {

namespace fs = std::filesystem;

namespace {

// A partition's sysfs directory sits inside its disk's and has a "partition" file.
std::string wholeDiskOf(const fs::path& dir) {
    if (fs::exists(dir / "partition"))
        return dir.parent_path().filename().string();
    return dir.filename().string();
}

void addPathsOf(const std::string& head, const std::vector<std::string>& blocks,
                std::vector<std::string>& out) {
    for (const auto& name : blocks)
        if (BlockDeviceNames::multipathHead(name) == head &&
            std::find(out.begin(), out.end(), name) == out.end())
            out.push_back(name);
}

} // namespace

PathDevice PathDevice::fromDeviceNumber(unsigned major, unsigned minor, const SystemPaths& paths) {
    PathDevice out;
    const std::string number = std::to_string(major) + ":" + std::to_string(minor);
    std::error_code error;
    const fs::path dir = fs::canonical(fs::path(paths.sys) / "dev" / "block" / number, error);
    if (error) {
        out.why = "device " + number + " is not in " + paths.sys + "/dev/block";
        return out;
    }
    out.device = wholeDiskOf(dir);
    const std::string sysBlock = paths.sys + "/block/";
    // A stacked device's members, one level down and then their own members (LVM on md).
    std::vector<std::string> pending = {out.device};
    while (!pending.empty()) {
        const std::string name = pending.back();
        pending.pop_back();
        for (const auto& slave : SysfsReader::listDir(sysBlock + name + "/slaves")) {
            const auto resolved =
                fs::canonical(fs::path(sysBlock + name + "/slaves") / slave, error);
            const std::string disk = error ? slave : wholeDiskOf(resolved);
            if (std::find(out.members.begin(), out.members.end(), disk) == out.members.end()) {
                out.members.push_back(disk);
                pending.push_back(disk);
            }
        }
    }
    const auto blocks = SysfsReader::listDir(paths.sys + "/block");
    addPathsOf(out.device, blocks, out.paths);
    for (const auto& member : out.members)
        addPathsOf(member, blocks, out.paths);
    std::sort(out.members.begin(), out.members.end());
    std::sort(out.paths.begin(), out.paths.end());
    return out;
}

PathDevice PathDevice::resolve(const std::string& path, const SystemPaths& paths) {
    struct stat st {};
    PathDevice out;
    if (path.empty()) {
        out.why = "no tier directory";
    } else if (::stat(path.c_str(), &st) != 0) {
        out.why = "cannot stat " + path;
    } else if (major(st.st_dev) == 0) {
        out.why = path + " is not on a block device (tmpfs, overlay, NFS or another virtual "
                         "filesystem): the block layer cannot see its reads";
    } else {
        out = fromDeviceNumber(major(st.st_dev), minor(st.st_dev), paths);
    }
    out.path = path;
    return out;
}

nlohmann::json PathDevice::toJson() const {
    nlohmann::json j = {{"path", path}, {"members", members}, {"paths", paths}};
    j["device"] = device.empty() ? nlohmann::json() : nlohmann::json(device);
    if (!why.empty())
        j["why"] = why;
    return j;
}

} // namespace tierscope
