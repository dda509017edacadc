#include "ui/timeline/UnitScale.h"

#include <cmath>

namespace tierscope {

namespace {

UnitScale decimal(double maxValue, const char* base) {
    static const char* prefixes[] = {"", "k", "M", "G", "T"};
    int i = 0;
    double divisor = 1.0;
    while (i < 4 && std::abs(maxValue) >= divisor * 1000.0) {
        divisor *= 1000.0;
        ++i;
    }
    return {divisor, QString("%1%2").arg(prefixes[i], base)};
}

} // namespace

UnitScale UnitScale::choose(ChartCatalog::Unit unit, double maxValue) {
    using Unit = ChartCatalog::Unit;
    switch (unit) {
    case Unit::Percent:
        return {1.0, "%"};
    case Unit::Ratio:
        return {0.01, "%"}; // 0..1 shown as 0..100 %
    case Unit::Bytes:
        return decimal(maxValue, "B");
    case Unit::BytesPerSecond:
        return decimal(maxValue, "B/s");
    case Unit::Seconds:
        return std::abs(maxValue) < 1.0 ? UnitScale{0.001, "ms"} : UnitScale{1.0, "s"};
    case Unit::TokensPerSecond:
        return decimal(maxValue, " tok/s");
    case Unit::Count:
        break;
    }
    return {1.0, ""};
}

QString UnitScale::format(double raw) const {
    const double v = raw / divisor;
    const int decimals = std::abs(v) >= 100 ? 0 : std::abs(v) >= 10 ? 1 : 2;
    // "%" sits on the number, " tok/s" brings its own space, "GB/s" gets one.
    if (suffix.isEmpty() || suffix == "%" || suffix.startsWith(' '))
        return QString::number(v, 'f', decimals) + suffix;
    return QString::number(v, 'f', decimals) + " " + suffix;
}

} // namespace tierscope
