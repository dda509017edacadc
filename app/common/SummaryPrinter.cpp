#include "app/common/SummaryPrinter.h"

#include "core/util/UnitFormat.h"

#include <cstdio>

namespace tierscope {

namespace {

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items)
        out += (out.empty() ? "" : ", ") + item;
    return out;
}

std::string bandwidth(const std::optional<double>& v) {
    return v ? UnitFormat::bytesPerSecond(*v) : std::string("n/a");
}

} // namespace

void SummaryPrinter::print(std::ostream& out, const SessionSummary& s, const std::string& dbPath) {
    const double seconds =
        s.session.endNs ? static_cast<double>(*s.session.endNs - s.session.startNs) / 1e9 : 0.0;
    out << "Session " << s.session.id;
    if (!s.session.label.empty())
        out << " \"" << s.session.label << "\"";
    if (!s.session.storageProfile.empty())
        out << " [" << s.session.storageProfile << "]";
    out << ": " << UnitFormat::seconds(seconds) << " on " << s.session.host << ", started "
        << UnitFormat::utcTime(s.session.startNs) << "\n";
    out << "  database:   " << dbPath << "\n";
    out << "  devices:    " << s.blockDevices.size() << " block ("
        << (s.blockDevices.empty() ? "none" : joined(s.blockDevices)) << "), "
        << s.nvmeControllers.size() << " NVMe controller(s)"
        << (s.nvmeControllers.empty() ? "" : " (" + joined(s.nvmeControllers) + ")") << "\n";
    for (const auto& backend : s.backends)
        out << "  backend:    " << backend << "\n";
    out << "  metrics:    " << s.metrics << " series, " << UnitFormat::count(s.samples)
        << " samples\n";
    if (s.diskPeaks.empty()) {
        out << "  peak disk:  no block device traffic was measured\n";
    } else {
        out << "  peak disk bandwidth (highest sample):\n";
        for (const auto& p : s.diskPeaks) {
            char line[256];
            const std::string name =
                p.transport.empty() ? p.device : p.device + " (nvme/" + p.transport + ")";
            std::snprintf(line, sizeof line, "    %-24s read %12s   write %12s\n", name.c_str(),
                          bandwidth(p.readBytesPerS).c_str(), bandwidth(p.writeBytesPerS).c_str());
            out << line;
        }
    }
    if (s.selfCpuMean) {
        char line[96];
        std::snprintf(line, sizeof line, "  self cost:  %.2f %% of one core (collectors)\n",
                      *s.selfCpuMean * 100.0);
        out << line;
    }
}

} // namespace tierscope
