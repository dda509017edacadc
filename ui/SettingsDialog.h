#pragma once

#include "ui/Settings.h"

#include <QDialog>

class QComboBox;
class QCheckBox;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace tierscope {

class SettingsDialog : public QDialog {
    Q_OBJECT
  public:
    SettingsDialog(const Settings& settings, QWidget* parent = nullptr);
    Settings settings() const;

  private:
    QLineEdit* m_database;
    QSpinBox* m_interval;
    QSpinBox* m_redraw;
    QPlainTextEdit* m_engines;
    QCheckBox* m_openGl;
    QComboBox* m_theme;
};

} // namespace tierscope
