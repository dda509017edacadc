// The main window's chart layouts: View > Charts… (the metric picker) and View > Layouts
// (saved and named, QSettings).
#include "ui/ChartPickerDialog.h"
#include "ui/MainWindow.h"
#include "ui/SavedLayouts.h"
#include "ui/timeline/TimelineView.h"

#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>

namespace tierscope {

std::vector<MetricInfo> MainWindow::viewMetrics() const {
    return isLive() ? m_buffer.metrics() : m_shownMetrics;
}

void MainWindow::setChartLayout(const ChartLayout& layout) {
    m_layout = layout;
    if (!m_options.exportOnly)
        SavedLayouts::setCurrent(m_layout);
    m_timeline->setHiddenSeries(m_layout.hiddenSeries);
    if (isLive()) {
        m_chartedSeries = 0; // the charts are rebuilt on the next frame
        m_drawnVersion = 0;
        refreshLive();
    } else {
        openSession(m_shownSession); // a new chart's series must be read
    }
}

ChartPickerDialog* MainWindow::pickCharts() {
    auto* dialog = new ChartPickerDialog(m_timeline->specs(), viewMetrics(), m_layout, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QDialog::accepted, this, [this, dialog] { setChartLayout(dialog->layout()); });
    dialog->show();
    return dialog;
}

void MainWindow::buildLayoutMenu(QMenu* view) {
    view->addSeparator();
    auto* charts = view->addAction(tr("&Charts…"));
    charts->setShortcut(QKeySequence("Ctrl+Shift+C"));
    charts->setToolTip(tr("Choose the charts shown, and chart any recorded metric"));
    connect(charts, &QAction::triggered, this, &MainWindow::pickCharts);
    auto* layouts = view->addMenu(tr("&Layouts"));
    // Filled when opened: layouts saved by another window appear too.
    connect(layouts, &QMenu::aboutToShow, this, [this, layouts] { fillLayoutsMenu(layouts); });
    fillLayoutsMenu(layouts);
}

void MainWindow::fillLayoutsMenu(QMenu* menu) {
    menu->clear();
    connect(menu->addAction(tr("&Save layout as…")), &QAction::triggered, this, [this] {
        bool ok = false;
        const QString name = QInputDialog::getText(this, tr("Save layout"), tr("Name"),
                                                   QLineEdit::Normal, QString(), &ok);
        if (!ok)
            return;
        if (!SavedLayouts::save(name, m_layout))
            QMessageBox::warning(this, tr("Save layout"),
                                 tr("A layout's name may not be empty or contain / or \\."));
        else
            statusBar()->showMessage(tr("Layout \"%1\" saved").arg(name.trimmed()), 5000);
    });
    connect(menu->addAction(tr("&Default layout")), &QAction::triggered, this,
            [this] { setChartLayout(ChartLayout{}); });
    const QStringList names = SavedLayouts::names();
    if (!names.isEmpty())
        menu->addSection(tr("Saved"));
    for (const auto& name : names)
        connect(menu->addAction(name), &QAction::triggered, this, [this, name] {
            if (const auto layout = SavedLayouts::load(name))
                setChartLayout(*layout);
            else
                statusBar()->showMessage(tr("Layout \"%1\" is damaged: not applied").arg(name),
                                         10000);
        });
    if (names.isEmpty())
        return;
    auto* remove = menu->addMenu(tr("D&elete"));
    for (const auto& name : names)
        connect(remove->addAction(name), &QAction::triggered, this, [this, name] {
            if (QMessageBox::question(this, tr("Delete layout"),
                                      tr("Delete the layout \"%1\"?").arg(name)) ==
                QMessageBox::Yes)
                SavedLayouts::remove(name);
        });
}

} // namespace tierscope
