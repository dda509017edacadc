#pragma once

#include <QDialog>
#include <QString>

class QCheckBox;
class QSpinBox;

namespace tierscope {

// What an image export asks before it writes: the width (where the caller lets it be chosen),
// the resolution, and the light theme, offered where the view is dark and can be drawn again
// off screen (HeadlessExport). Used by File > Export view and Compare's "Save as image…".
class ImageExportDialog : public QDialog {
    Q_OBJECT
  public:
    struct Options {
        QString title;
        int width = 0;          // the width row's start value; 0: no width row
        QString widthLabel;     // its label
        bool dark = false;      // the view is in the dark theme
        bool redrawable = true; // ... and can be drawn again in the light one
        QString lightTip;       // what "Light theme" does there
    };

    ImageExportDialog(const Options& options, QWidget* parent);

    int width() const; // 0 where there is no width row
    int dpi() const;
    bool light() const; // a dark view to be drawn again in the light theme

  private:
    QSpinBox* m_width = nullptr;
    QSpinBox* m_dpi = nullptr;
    QCheckBox* m_light = nullptr;
    bool m_dark = false;
};

} // namespace tierscope
