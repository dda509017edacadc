#include "collectors/gpu/AscendDcmi.h"

#include <cstring>
#include <spdlog/spdlog.h>

namespace tierscope {

AscendDcmi::AscendDcmi(const std::vector<std::string>& candidates) : m_lib(candidates) {}

std::shared_ptr<AscendDcmi> AscendDcmi::open(const std::vector<std::string>& candidates,
                                             GpuBackendStatus& status) {
    status = {"ascend", "Ascend", "NPU", false, "", ""};
    std::shared_ptr<AscendDcmi> dcmi(new AscendDcmi(candidates));
    if (!dcmi->m_lib.loaded()) {
        status.reason = (candidates.size() == 1 ? candidates.front() : std::string("libdcmi.so")) +
                        " not found";
        return nullptr;
    }
    const std::string path = dcmi->m_lib.path();
    int (*init)() = nullptr;
    int (*cardList)(int*, int*, int) = nullptr;
    int (*deviceCount)(int, int*) = nullptr;
    int (*chipInfo)(int, int, ChipInfo*) = nullptr;
    if (!dcmi->m_lib.bind(init, "dcmi_init")) {
        status.reason = path + " lacks dcmi_init";
        return nullptr;
    }
    if (!dcmi->m_lib.bind(cardList, "dcmi_get_card_list") &&
        !dcmi->m_lib.bind(cardList, "dcmi_get_card_num_list")) {
        status.reason = path + " lacks dcmi_get_card_list";
        return nullptr;
    }
    if (!dcmi->m_lib.bind(deviceCount, "dcmi_get_device_num_in_card")) {
        status.reason = path + " lacks dcmi_get_device_num_in_card";
        return nullptr;
    }
    if (const int r = init(); r != 0) {
        status.reason = "dcmi_init failed with " + std::to_string(r);
        return nullptr;
    }
    dcmi->m_lib.bind(chipInfo, "dcmi_get_device_chip_info");
    dcmi->m_lib.bind(dcmi->m_utilization, "dcmi_get_device_utilization_rate");
    dcmi->m_lib.bind(dcmi->m_hbm, "dcmi_get_device_hbm_info");
    dcmi->m_lib.bind(dcmi->m_power, "dcmi_get_device_power_info");
    dcmi->m_lib.bind(dcmi->m_temperature, "dcmi_get_device_temperature");

    int cards[64] = {};
    int cardCount = 0;
    if (cardList(&cardCount, cards, 64) != 0 || cardCount <= 0) {
        status.reason = "DCMI reports no Ascend card";
        return nullptr;
    }
    for (int c = 0; c < std::min(cardCount, 64); ++c) {
        int n = 0;
        if (deviceCount(cards[c], &n) != 0)
            continue;
        for (int dev = 0; dev < n; ++dev) {
            Device d;
            d.index = static_cast<int>(dcmi->m_devices.size());
            d.card = cards[c];
            d.device = dev;
            ChipInfo info{};
            if (chipInfo && chipInfo(d.card, dev, &info) == 0) {
                info.chipName[sizeof info.chipName - 1] = 0;
                info.chipType[sizeof info.chipType - 1] = 0;
                d.name = std::string(reinterpret_cast<const char*>(info.chipType)) +
                         reinterpret_cast<const char*>(info.chipName);
            }
            dcmi->m_devices.push_back(std::move(d));
        }
    }
    status.available = true;
    status.detail = std::to_string(dcmi->m_devices.size()) + " NPU(s) via " + path;
    return dcmi;
}

bool AscendDcmi::check(int r, const Device& d, const char* field) {
    if (r == 0)
        return true;
    if (m_logOnce.first(std::to_string(d.index) + field + std::to_string(r)))
        spdlog::info("Ascend NPU {} (card {} device {}): {} not reported: DCMI error {}", d.index,
                     d.card, d.device, field, r);
    return false;
}

std::optional<double> AscendDcmi::aiCoreUtilizationPct(const Device& d) {
    unsigned int rate = 0;
    if (!m_utilization || !check(m_utilization(d.card, d.device, kUtilizationAiCore, &rate), d,
                                 "AI core utilization"))
        return std::nullopt;
    return static_cast<double>(rate);
}

std::optional<AscendDcmi::HbmInfo> AscendDcmi::hbm(const Device& d) {
    HbmInfo info{};
    if (!m_hbm || !check(m_hbm(d.card, d.device, &info), d, "HBM"))
        return std::nullopt;
    return info;
}

std::optional<double> AscendDcmi::powerW(const Device& d) {
    int tenthsOfWatt = 0;
    if (!m_power || !check(m_power(d.card, d.device, &tenthsOfWatt), d, "power"))
        return std::nullopt;
    return tenthsOfWatt / 10.0;
}

std::optional<double> AscendDcmi::temperatureC(const Device& d) {
    int celsius = 0;
    if (!m_temperature || !check(m_temperature(d.card, d.device, &celsius), d, "temperature"))
        return std::nullopt;
    return static_cast<double>(celsius);
}

} // namespace tierscope
