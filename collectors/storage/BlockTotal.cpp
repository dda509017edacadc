#include "collectors/storage/BlockTotal.h"

#include "collectors/storage/BlockDeviceNames.h"

namespace tierscope {

void BlockTotal::add(const std::string& name, const BlockRates& rates) {
    if (BlockDeviceNames::stackedKind(name))
        return;
    if (const auto head = BlockDeviceNames::multipathHead(name)) {
        Sum& paths = m_pathsByHead[*head];
        paths.readBytesPerS += rates.readBytesPerS;
        paths.writeBytesPerS += rates.writeBytesPerS;
        return;
    }
    m_disks.insert_or_assign(name, rates);
}

std::optional<BlockTotal::Sum> BlockTotal::sum() const {
    if (m_disks.empty() && m_pathsByHead.empty())
        return std::nullopt;
    Sum total;
    // A head that did not move adds zero here, so only its paths need a decision.
    for (const auto& [name, rates] : m_disks) {
        total.readBytesPerS += rates.readBytesPerS;
        total.writeBytesPerS += rates.writeBytesPerS;
    }
    for (const auto& [head, paths] : m_pathsByHead) {
        const auto it = m_disks.find(head);
        if (it != m_disks.end() && it->second.moved())
            continue;
        total.readBytesPerS += paths.readBytesPerS;
        total.writeBytesPerS += paths.writeBytesPerS;
    }
    return total;
}

} // namespace tierscope
