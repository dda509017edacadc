#pragma once

#include "collectors/storage/NvmeNamespaceInfo.h"

#include <string>
#include <vector>

namespace tierscope {

struct NvmeControllerInfo {
    std::string name;      // nvme0
    std::string transport; // pcie, tcp, rdma, fc, loop
    std::string traddr;
    std::string trsvcid;
    std::string hostTraddr;
    std::string subsystem; // nvme-subsys0
    std::string subsysNqn;
    std::string model;
    std::string serial;
    std::string firmware;
    std::string state;
    std::vector<NvmeNamespaceInfo> namespaces;
};

} // namespace tierscope
