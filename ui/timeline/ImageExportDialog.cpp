#include "ui/timeline/ImageExportDialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QSpinBox>

namespace tierscope {

ImageExportDialog::ImageExportDialog(const Options& options, QWidget* parent)
    : QDialog(parent), m_dark(options.dark) {
    setWindowTitle(options.title);
    auto* form = new QFormLayout(this);
    if (options.width > 0) {
        m_width = new QSpinBox(this);
        m_width->setRange(200, 10000);
        m_width->setValue(options.width);
        m_width->setSuffix(tr(" px"));
        form->addRow(options.widthLabel, m_width);
    }
    m_dpi = new QSpinBox(this);
    m_dpi->setRange(24, 2400);
    m_dpi->setValue(96);
    m_dpi->setSuffix(tr(" dpi"));
    m_dpi->setToolTip(tr("96: one pixel per screen pixel; 300 for print"));
    form->addRow(tr("Resolution"), m_dpi);
    m_light = new QCheckBox(tr("Light theme"), this);
    m_light->setChecked(!options.dark);
    m_light->setEnabled(options.dark && options.redrawable);
    m_light->setToolTip(options.lightTip);
    form->addRow(tr("Theme"), m_light);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    form->addRow(buttons);
}

int ImageExportDialog::width() const {
    return m_width ? m_width->value() : 0;
}

int ImageExportDialog::dpi() const {
    return m_dpi->value();
}

bool ImageExportDialog::light() const {
    return m_dark && m_light->isEnabled() && m_light->isChecked();
}

} // namespace tierscope
