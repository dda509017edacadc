#include "collectors/storage/NvmeIdentity.h"

#include "collectors/base/SysfsReader.h"

#include <regex>
#include <set>

namespace tierscope {

std::optional<NvmeIdentity> NvmeIdentity::of(const std::string& blockName,
                                             const std::string& sysRoot) {
    if (blockName.empty() || blockName.find('/') != std::string::npos)
        return std::nullopt;
    const std::string dir = sysRoot + "/block/" + blockName;
    const auto nsid = SysfsReader::readAttr(dir + "/nsid");
    // A namespace's device is its controller; a multipath head's is its subsystem: both carry
    // the subsystem NQN.
    const auto nqn = SysfsReader::readAttr(dir + "/device/subsysnqn");
    if (!nsid || nsid->empty() || !nqn || nqn->empty())
        return std::nullopt;
    NvmeIdentity out{*nqn, *nsid, {}};
    if (const auto transport = SysfsReader::readAttr(dir + "/device/transport")) {
        out.transport = *transport;
        return out;
    }
    static const std::regex kController("^nvme[0-9]+$");
    std::set<std::string> transports;
    for (const auto& entry : SysfsReader::listDir(dir + "/device"))
        if (std::regex_match(entry, kController))
            if (const auto t = SysfsReader::readAttr(dir + "/device/" + entry + "/transport"))
                transports.insert(*t);
    for (const auto& t : transports)
        out.transport += (out.transport.empty() ? "" : "+") + t;
    return out;
}

} // namespace tierscope
