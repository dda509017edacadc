#include "ui/SavedLayouts.h"

#include <QSettings>

namespace tierscope {

namespace {

bool validName(const QString& name) {
    return !name.trimmed().isEmpty() && !name.contains('/') && !name.contains('\\');
}

} // namespace

QStringList SavedLayouts::names() {
    QSettings s("tierscope", "tierscope");
    s.beginGroup("layouts");
    QStringList out = s.childKeys();
    out.sort(Qt::CaseInsensitive);
    return out;
}

std::optional<ChartLayout> SavedLayouts::load(const QString& name) {
    if (!validName(name))
        return std::nullopt;
    QSettings s("tierscope", "tierscope");
    const QString text = s.value("layouts/" + name).toString();
    return text.isEmpty() ? std::nullopt : ChartLayout::fromJson(text.toStdString());
}

bool SavedLayouts::save(const QString& name, const ChartLayout& layout) {
    if (!validName(name))
        return false;
    QSettings s("tierscope", "tierscope");
    s.setValue("layouts/" + name.trimmed(), QString::fromStdString(layout.toJson()));
    return true;
}

void SavedLayouts::remove(const QString& name) {
    if (!validName(name))
        return;
    QSettings s("tierscope", "tierscope");
    s.remove("layouts/" + name);
}

ChartLayout SavedLayouts::current() {
    QSettings s("tierscope", "tierscope");
    return ChartLayout::fromJson(s.value("layout/current").toString().toStdString())
        .value_or(ChartLayout{});
}

void SavedLayouts::setCurrent(const ChartLayout& layout) {
    QSettings s("tierscope", "tierscope");
    s.setValue("layout/current", QString::fromStdString(layout.toJson()));
}

} // namespace tierscope
