#pragma once

#include "core/model/DeviceRecord.h"

#include <QTreeWidget>
#include <vector>

namespace tierscope {

// What discovery found, by kind: GPUs, NVMe controllers (transport, address, NQN, model,
// serial), block devices and the controller each maps to, engine endpoints, and every
// backend's availability with its reason.
class DevicesView : public QTreeWidget {
    Q_OBJECT
  public:
    explicit DevicesView(QWidget* parent = nullptr);
    void setDevices(const std::vector<DeviceRecord>& devices);
};

} // namespace tierscope
