#pragma once

#include "collectors/base/SystemPaths.h"
#include "collectors/gpu/GpuBackends.h"
#include "ui/feeds/GpuProcessMetaType.h"

#include <QObject>
#include <memory>

class QTimer;

namespace tierscope {

class GpuProcessReader;

// Lists the processes on each GPU once a period on the thread it lives on: opening the vendor
// libraries (rocm-smi is probed in a child process), asking them and reading /proc/<pid>/comm
// are all work the GUI thread must not wait for. Each period's list comes back as a snapshot.
class GpuProcessSampler : public QObject {
    Q_OBJECT
  public:
    // $TIERSCOPE_NVML_LIBRARY and $TIERSCOPE_DCMI_LIBRARY apply, as for the recorder.
    explicit GpuProcessSampler(
        SystemPaths paths = {},
        GpuBackends::Libraries libraries = GpuBackends::Libraries::fromEnvironment(),
        QObject* parent = nullptr);
    ~GpuProcessSampler() override;

    // Both run on the sampler's thread (QMetaObject::invokeMethod): the timer belongs to it.
    // The backends are opened at the first start and kept.
    void start(int periodMs = 1000);
    void stop();
    bool running() const;

  signals:
    void sampled(const tierscope::GpuProcessSnapshot& snapshot);

  private:
    void sample();

    SystemPaths m_paths;
    GpuBackends::Libraries m_libraries;
    std::unique_ptr<GpuProcessReader> m_reader;
    QTimer* m_timer = nullptr;
};

} // namespace tierscope
