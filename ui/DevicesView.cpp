#include "ui/DevicesView.h"

#include "ui/timeline/StatusColor.h"

#include <QHeaderView>
#include <map>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

struct Kind {
    const char* title;
    std::vector<const char*> fields; // attrs shown, in order
};

const std::map<std::string, Kind>& kinds() {
    static const std::map<std::string, Kind> k = {
        {"gpu", {"GPUs", {"vendor", "model", "bus", "vram_total_bytes", "serial"}}},
        {"nvme-controller",
         {"NVMe controllers", {"transport", "traddr", "subsysnqn", "model", "serial", "state"}}},
        {"block",
         {"Block devices",
          {"transport", "path_of", "ana_state", "iopolicy", "traddr", "in_total", "model",
           "size_bytes"}}},
        {"engine-endpoint", {"Engine endpoints", {"url", "authenticated", "tls_verify"}}},
        // The catalog roles each endpoint served over the session, and those it never did.
        {"engine-roles", {"Engine metric roles", {"served", "not_served"}}},
        // NVMe multipath: a path that carried nearly all the I/O, or is not optimized.
        {"path-finding", {"Multipath findings", {"text"}}},
        {"backend", {"Backends", {"state", "reason", "detail", "source"}}},
    };
    return k;
}

QString describe(const nlohmann::json& attrs, const std::vector<const char*>& fields) {
    QStringList parts;
    for (const char* f : fields) {
        if (!attrs.contains(f) || attrs[f].is_null())
            continue;
        const auto& v = attrs[f];
        const QString text = v.is_string() ? QString::fromStdString(v.get<std::string>())
                                           : QString::fromStdString(v.dump());
        if (!text.isEmpty())
            parts << QString("%1: %2").arg(f, text);
    }
    return parts.join("   ");
}

} // namespace

DevicesView::DevicesView(QWidget* parent) : QTreeWidget(parent) {
    setColumnCount(2);
    setHeaderLabels({tr("Device"), tr("Details")});
    header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    setRootIsDecorated(true);
    setAlternatingRowColors(true);
}

void DevicesView::setDevices(const std::vector<DeviceRecord>& devices) {
    clear();
    std::map<std::string, QTreeWidgetItem*> groups;
    for (const auto& [kind, spec] : kinds()) {
        auto* group = new QTreeWidgetItem(this, {QString(spec.title)});
        group->setFirstColumnSpanned(true);
        groups[kind] = group;
    }
    for (const auto& d : devices) {
        const auto attrs = nlohmann::json::parse(d.attrs, nullptr, false);
        const auto kind = kinds().find(d.kind);
        QTreeWidgetItem* parentItem = kind == kinds().end() ? nullptr : groups[d.kind];
        if (!parentItem) {
            auto& other = groups["other"];
            if (!other)
                other = new QTreeWidgetItem(this, {tr("Other")});
            parentItem = other;
        }
        const QString details = attrs.is_object() && kind != kinds().end()
                                    ? describe(attrs, kind->second.fields)
                                    : QString::fromStdString(d.attrs);
        auto* item = new QTreeWidgetItem(parentItem, {QString::fromStdString(d.name), details});
        item->setToolTip(1, QString::fromStdString(attrs.is_object() ? attrs.dump(2) : d.attrs));
        const bool unavailable =
            d.kind == "backend" && attrs.is_object() && attrs.value("state", "") != "available";
        if (unavailable || d.kind == "path-finding")
            item->setForeground(1, StatusColor::text(StatusColor::Kind::Caution, palette()));
    }
    for (auto& [kind, group] : groups) {
        // Judged over a recorded session's data: without them, no group rather than "none".
        if ((kind == "engine-roles" || kind == "path-finding") && group->childCount() == 0)
            delete group;
        else if (group->childCount() == 0)
            new QTreeWidgetItem(group, {tr("none found")});
    }
    expandAll();
}

} // namespace tierscope
