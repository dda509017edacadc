#pragma once

#include "core/model/DeviceRecord.h"

#include <QMetaType>
#include <vector>

// The devices a recording samples travel in queued signals (LiveRecording, RemoteFeed,
// ExperimentWorker): declared once, before any moc output instantiates the type.
Q_DECLARE_METATYPE(std::vector<tierscope::DeviceRecord>)
