#pragma once

#include "core/view/OverlayFrame.h"
#include "ui/compare/OverlayWorker.h"

#include <QDialog>
#include <QStringList>
#include <QThread>
#include <vector>

class QDoubleSpinBox;
class QLabel;
class QListWidget;
class QVBoxLayout;

namespace tierscope {

class OverlayChart;
class OverlayHistogram;

// The A/B overlay: two runs, two arms or two sessions on one set of charts, each range aligned
// at its own start, B shifted by an offset the user sets, coloured by side, with a dot per
// request's TTFT and both sides' TTFT histograms overlaid beside. Opened from Compare and from
// the session browser; the sides are specs as Compare takes them (OverlayWorker). The data is
// read once on a worker thread; picking series and moving the offset redraw from memory.
class OverlayView : public QDialog {
    Q_OBJECT
  public:
    OverlayView(QString db, const QString& a, const QString& b, QWidget* parent = nullptr);
    ~OverlayView() override;
    // A window of its own over `parent`, deleted when closed.
    static OverlayView* open(const QString& db, const QString& a, const QString& b,
                             QWidget* parent);

    // Shifts side B by this many seconds (the spin box's value) and redraws.
    void setOffset(double seconds);
    double offset() const;
    // Draws these series (OverlayFrame::Series::key), in the picker's order; unknown keys are
    // ignored.
    void choose(const QStringList& keys);
    QStringList chosen() const;

    QDoubleSpinBox* offsetBox() const { return m_offset; }
    QListWidget* seriesList() const { return m_list; }
    const std::vector<OverlayChart*>& charts() const { return m_charts; }
    OverlayHistogram* histogram() const { return m_histogram; }
    const OverlayData& data() const { return m_data; }
    const OverlayFrame& frame() const { return m_frame; }
    QString statusText() const;
    QString sidesText() const; // the title line naming both sides

  signals:
    void loaded();
    void failed(const QString& message);
    void redrawn();

  protected:
    void changeEvent(QEvent* event) override;

  private:
    bool isDark() const;
    void remake();
    void describeSides();
    void showData(const OverlayData& data);
    void redraw();
    QStringList sideLabels() const;

    QString m_db;
    QThread m_thread;
    OverlayWorker* m_worker = nullptr;
    quint64 m_request = 0;
    OverlayData m_data;
    OverlayFrame m_frame;
    bool m_dark = false;
    bool m_loaded = false;
    bool m_filling = false; // the picker is being filled: no redraw per item

    QLabel* m_sides = nullptr;
    QLabel* m_status = nullptr;
    QDoubleSpinBox* m_offset = nullptr;
    QListWidget* m_list = nullptr;
    QWidget* m_chartBox = nullptr;
    QVBoxLayout* m_chartLayout = nullptr;
    std::vector<OverlayChart*> m_charts;
    OverlayHistogram* m_histogram = nullptr;
};

} // namespace tierscope
