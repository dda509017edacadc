#pragma once

#include <QString>
#include <QStringList>

namespace tierscope {

// The GUI's persistent preferences (QSettings, organisation and application "tierscope").
struct Settings {
    enum class Theme { System, Light, Dark };

    QString database;       // empty: the default workspace
    int intervalMs = 100;   // live sampling interval
    int redrawMs = 500;     // the live view draws at most this often (LiveFramePacer)
    QStringList engineUrls; // /metrics endpoints scraped while recording
    bool openGl = false;    // QtCharts' OpenGL series
    Theme theme = Theme::System;

    static Settings load();
    void save() const;
    QString databaseOrDefault() const;
};

} // namespace tierscope
