#include "ui/EngineAbsence.h"

#include <QCoreApplication>
#include <nlohmann/json.hpp>

namespace tierscope {

namespace {

// The catalog's advice for an engine chart; matched by its start so new engine charts follow.
constexpr const char* kNoEngine = "No inference engine is scraped";

QString tr(const char* text) {
    return QCoreApplication::translate("EngineAbsence", text);
}

} // namespace

void EngineAbsence::explain(std::vector<ChartCatalog::Chart>& charts, const QStringList& urls,
                            bool live, Scrape scrape) {
    if (urls.isEmpty())
        return;
    const QString list = urls.join(", ");
    QString reason;
    if (!live)
        reason = tr("%1 was scraped, but it reported none of these metrics").arg(list);
    else if (scrape == Scrape::Failing)
        reason = tr("Cannot scrape %1: the last scrapes failed (is the engine up, and is this its "
                    "/metrics URL?)")
                     .arg(list);
    else if (scrape == Scrape::Answering)
        reason = tr("%1 answers, but reports none of these metrics (a vLLM, SGLang or LMCache "
                    "/metrics endpoint?)")
                     .arg(list);
    else
        reason = tr("Scraping %1: no engine metrics yet").arg(list);
    for (auto& c : charts)
        if (c.series.empty() && c.absentReason.starts_with(kNoEngine))
            c.absentReason = reason.toStdString();
}

QStringList EngineAbsence::urlsOf(const std::vector<DeviceRecord>& devices) {
    QStringList out;
    for (const auto& d : devices) {
        if (d.kind != "engine-endpoint")
            continue;
        const auto attrs = nlohmann::json::parse(d.attrs, nullptr, false);
        const std::string url = attrs.is_object() ? attrs.value("url", d.name) : d.name;
        out << QString::fromStdString(url);
    }
    return out;
}

} // namespace tierscope
