#pragma once

#include "collectors/gpu/GpuProcessSnapshot.h"

#include <QMetaType>

// GpuProcessSnapshot travels in a queued signal from the sampler's thread: declared once,
// before any moc output instantiates the type.
Q_DECLARE_METATYPE(tierscope::GpuProcessSnapshot)
