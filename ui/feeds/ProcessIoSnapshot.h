#pragma once

#include "collectors/host/ProcessIoTop.h"

#include <QMetaType>
#include <optional>

namespace tierscope {

// One second of this machine's per-process I/O, as the sampler hands it to the GUI thread.
struct ProcessIoSnapshot {
    // Absent after the first scan: a rate needs two.
    std::optional<ProcessIoTop::Result> top;
    int readable = 0;   // processes whose /proc/<pid>/io was read
    int unreadable = 0; // refused by the kernel: other users' processes, without root
};

} // namespace tierscope

// Travels in a queued signal from the sampler's thread: declared once, before any moc output
// instantiates the type.
Q_DECLARE_METATYPE(tierscope::ProcessIoSnapshot)
