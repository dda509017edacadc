#include "ui/SavedLayouts.h"

#include <QSettings>

namespace tierscope {

namespace {

// The QSettings key of a layout's name, absent for a name that is not one key.
std::optional<QString> keyOf(const QString& name) {
    const QString trimmed = name.trimmed();
    if (trimmed.isEmpty() || trimmed.contains('/') || trimmed.contains('\\'))
        return std::nullopt;
    return "layouts/" + trimmed;
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
    const auto key = keyOf(name);
    if (!key)
        return std::nullopt;
    QSettings s("tierscope", "tierscope");
    const QString text = s.value(*key).toString();
    return text.isEmpty() ? std::nullopt : ChartLayout::fromJson(text.toStdString());
}

bool SavedLayouts::save(const QString& name, const ChartLayout& layout) {
    const auto key = keyOf(name);
    if (!key)
        return false;
    QSettings s("tierscope", "tierscope");
    s.setValue(*key, QString::fromStdString(layout.toJson()));
    return true;
}

void SavedLayouts::remove(const QString& name) {
    const auto key = keyOf(name);
    if (!key)
        return;
    QSettings s("tierscope", "tierscope");
    s.remove(*key);
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
