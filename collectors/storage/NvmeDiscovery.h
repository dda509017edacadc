#pragma once

#include "collectors/storage/NvmeControllerInfo.h"
#include "collectors/base/SystemPaths.h"
#include "core/model/DeviceRecord.h"

#include <map>
#include <string>
#include <vector>

namespace tierscope {

// Controllers through libnvme's topology scan; namespaces and sizes from sysfs, because
// libnvme 1.3 lists namespaces only when it can open their /dev nodes (root).
class NvmeDiscovery {
  public:
    explicit NvmeDiscovery(SystemPaths paths = {});

    std::vector<NvmeControllerInfo> discover() const;

    static std::vector<DeviceRecord> toDeviceRecords(const std::vector<NvmeControllerInfo>& ctrls);
    // Block device name -> transport; a multipath head whose paths differ gets "tcp+rdma".
    static std::map<std::string, std::string>
    transportsByBlockDevice(const std::vector<NvmeControllerInfo>& ctrls);

  private:
    std::vector<NvmeNamespaceInfo> namespacesOf(const std::string& ctrlSysfsDir) const;

    SystemPaths m_paths;
};

} // namespace tierscope
