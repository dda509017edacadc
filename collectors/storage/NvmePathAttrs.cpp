#include "collectors/storage/NvmePathAttrs.h"

#include "collectors/base/SysfsReader.h"
#include "collectors/storage/BlockDeviceNames.h"

#include <algorithm>
#include <array>
#include <filesystem>

namespace tierscope {

namespace {

// sysfs_emit(buf, "%s\n", ...): one line; a value read by hand may carry spaces around it.
std::string_view trimmed(std::string_view text) {
    text = text.substr(0, text.find('\n'));
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos)
        return {};
    const auto last = text.find_last_not_of(" \t\r");
    return text.substr(first, last - first + 1);
}

template <std::size_t N>
std::optional<std::string> oneOf(std::string_view text, const std::array<const char*, N>& names) {
    const auto value = trimmed(text);
    for (const char* name : names)
        if (value == name)
            return std::string(value);
    return std::nullopt;
}

} // namespace

std::optional<std::string> NvmePathAttrs::parseAnaState(std::string_view text) {
    // nvme_ana_state_names[], less [0] "invalid state": the state is not known yet.
    static constexpr std::array<const char*, 5> kStates = {
        "optimized", "non-optimized", "inaccessible", "persistent-loss", "change"};
    return oneOf(text, kStates);
}

std::optional<std::string> NvmePathAttrs::parseIopolicy(std::string_view text) {
    static constexpr std::array<const char*, 3> kPolicies = {"numa", "round-robin", "queue-depth"};
    return oneOf(text, kPolicies);
}

NvmePathAttrs::Address NvmePathAttrs::parseAddress(std::string_view text) {
    Address out;
    const auto value = trimmed(text);
    if (value.empty())
        return out;
    if (value.find('=') == std::string_view::npos) {
        out.traddr = std::string(value); // PCIe: the function's PCI address
        return out;
    }
    std::size_t pos = 0;
    while (pos <= value.size()) {
        const auto end = std::min(value.find(',', pos), value.size());
        const auto pair = value.substr(pos, end - pos);
        const auto eq = pair.find('=');
        if (eq != std::string_view::npos && eq + 1 < pair.size()) {
            const auto key = pair.substr(0, eq);
            std::string v(pair.substr(eq + 1));
            if (key == "traddr")
                out.traddr = std::move(v);
            else if (key == "trsvcid")
                out.trsvcid = std::move(v);
            else if (key == "host_traddr")
                out.hostTraddr = std::move(v);
            else if (key == "src_addr")
                out.srcAddr = std::move(v);
        }
        pos = end + 1;
    }
    return out;
}

std::optional<NvmePathAttrs> NvmePathAttrs::of(const std::string& blockName,
                                               const std::string& sysRoot) {
    if (blockName.empty() || blockName.find('/') != std::string::npos)
        return std::nullopt;
    const auto iopolicyOf = [&](const std::string& head) -> std::optional<std::string> {
        const auto text = SysfsReader::readAttr(sysRoot + "/block/" + head + "/device/iopolicy");
        return text ? parseIopolicy(*text) : std::nullopt;
    };
    NvmePathAttrs out;
    const auto head = BlockDeviceNames::multipathHead(blockName);
    if (!head) {
        // A head's device is its subsystem, the only one with an iopolicy.
        out.iopolicy = iopolicyOf(blockName);
        if (!out.iopolicy)
            return std::nullopt;
        return out;
    }
    const std::string dir = sysRoot + "/block/" + blockName;
    out.iopolicy = iopolicyOf(*head);
    if (const auto text = SysfsReader::readAttr(dir + "/ana_state"))
        out.anaState = parseAnaState(*text);
    std::error_code error;
    const auto link = std::filesystem::read_symlink(dir + "/device", error);
    if (!error && !link.filename().empty())
        out.controller = link.filename().string();
    if (const auto transport = SysfsReader::readAttr(dir + "/device/transport"))
        out.transport = *transport;
    if (const auto state = SysfsReader::readAttr(dir + "/device/state"))
        out.controllerState = *state;
    if (const auto address = SysfsReader::readAttr(dir + "/device/address"))
        out.address = parseAddress(*address);
    return out;
}

} // namespace tierscope
