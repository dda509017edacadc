#pragma once

#include "core/view/OverlayFrame.h"

#include <QMetaType>
#include <QObject>
#include <QString>
#include <vector>

namespace tierscope {

// What the overlay draws from: both sides' ranges with every series they offer, and the union
// of those series (matched by metric path), in the timeline's order.
struct OverlayData {
    OverlayFrame::Side a;
    OverlayFrame::Side b;
    std::vector<OverlayFrame::Series> series;
};

// Reads the overlay's two sides on a worker thread, so the view never waits on SQLite. A side
// is "session:N" (the whole session, one range from its start), "run:N[,M...]" or
// "arm:EXPERIMENT/ARM[@SESSION]" (each measured run a range from its own start). With B empty
// and A a session, the sides are that session's first two arms.
class OverlayWorker : public QObject {
    Q_OBJECT
  public:
    // Plot points asked of the store per series and range: twice a wide chart's columns.
    static constexpr int kPoints = 1200;

    explicit OverlayWorker(QObject* parent = nullptr);

    void load(const QString& db, const QString& a, const QString& b, quint64 request);

  signals:
    void loaded(quint64 request, const tierscope::OverlayData& data);
    void failed(quint64 request, const QString& message);
};

} // namespace tierscope

Q_DECLARE_METATYPE(tierscope::OverlayData)
