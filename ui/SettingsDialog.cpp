#include "ui/SettingsDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSpinBox>

namespace tierscope {

SettingsDialog::SettingsDialog(const Settings& s, QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("tierscope settings"));
    auto* form = new QFormLayout(this);
    m_database = new QLineEdit(s.database, this);
    m_database->setPlaceholderText(s.databaseOrDefault());
    form->addRow(tr("Workspace database"), m_database);
    m_interval = new QSpinBox(this);
    m_interval->setRange(100, 10000);
    m_interval->setSingleStep(100);
    m_interval->setSuffix(" ms");
    m_interval->setValue(s.intervalMs);
    form->addRow(tr("Sampling interval"), m_interval);
    // The live view's CPU share follows this, not the sampling interval (docs/PERFORMANCE.md).
    m_redraw = new QSpinBox(this);
    m_redraw->setRange(0, 5000);
    m_redraw->setSingleStep(100);
    m_redraw->setSuffix(" ms");
    m_redraw->setSpecialValueText(tr("every pixel"));
    m_redraw->setValue(s.redrawMs);
    m_redraw->setToolTip(tr("The live charts move at most this often. Shorter scrolls more "
                            "smoothly and costs more CPU; samples are recorded at the "
                            "sampling interval either way."));
    form->addRow(tr("Redraw the live view every"), m_redraw);
    m_engines = new QPlainTextEdit(s.engineUrls.join('\n'), this);
    m_engines->setPlaceholderText("http://gpu-node:8000/metrics");
    m_engines->setMaximumHeight(90);
    form->addRow(tr("Engine /metrics URLs\n(one per line)"), m_engines);
    m_openGl = new QCheckBox(tr("Draw charts with OpenGL"), this);
    m_openGl->setChecked(s.openGl);
    form->addRow(QString(), m_openGl);
    m_theme = new QComboBox(this);
    m_theme->addItems({tr("Follow the system"), tr("Light"), tr("Dark")});
    m_theme->setCurrentIndex(static_cast<int>(s.theme));
    form->addRow(tr("Theme"), m_theme);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

Settings SettingsDialog::settings() const {
    Settings s;
    s.database = m_database->text().trimmed();
    s.intervalMs = m_interval->value();
    s.redrawMs = m_redraw->value();
    for (const auto& line : m_engines->toPlainText().split('\n', Qt::SkipEmptyParts))
        if (!line.trimmed().isEmpty())
            s.engineUrls << line.trimmed();
    s.openGl = m_openGl->isChecked();
    s.theme = static_cast<Settings::Theme>(m_theme->currentIndex());
    return s;
}

} // namespace tierscope
