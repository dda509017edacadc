#include "ui/Settings.h"

#include "core/store/WorkspacePaths.h"

#include <QSettings>

namespace tierscope {

Settings Settings::load() {
    QSettings s("tierscope", "tierscope");
    Settings out;
    out.database = s.value("database").toString();
    out.intervalMs = std::clamp(s.value("intervalMs", 100).toInt(), 100, 10000);
    out.redrawMs = std::clamp(s.value("redrawMs", 500).toInt(), 0, 5000);
    out.engineUrls = s.value("engineUrls").toStringList();
    out.openGl = s.value("openGl", false).toBool();
    const QString theme = s.value("theme", "system").toString();
    out.theme = theme == "light" ? Theme::Light : theme == "dark" ? Theme::Dark : Theme::System;
    return out;
}

void Settings::save() const {
    QSettings s("tierscope", "tierscope");
    s.setValue("database", database);
    s.setValue("intervalMs", intervalMs);
    s.setValue("redrawMs", redrawMs);
    s.setValue("engineUrls", engineUrls);
    s.setValue("openGl", openGl);
    s.setValue("theme", theme == Theme::Light ? "light" : theme == Theme::Dark ? "dark" : "system");
}

QString Settings::databaseOrDefault() const {
    return database.isEmpty() ? QString::fromStdString(WorkspacePaths::defaultDatabase())
                              : database;
}

} // namespace tierscope
