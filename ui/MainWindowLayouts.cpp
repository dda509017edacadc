// The main window's chart layouts: View > Charts… (the metric picker) and View > Layouts
// (saved and named, QSettings).
#include "ui/ChartPickerDialog.h"
#include "ui/MainWindow.h"
#include "ui/SavedLayouts.h"
#include "ui/timeline/TimelineView.h"

#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QScreen>
#include <QStatusBar>

namespace tierscope {

// The window and its frame inside the screen's free area, so the status bar is on the screen:
// at 1280x720, at 2560x1440 with scale factor 2, or with a geometry saved on a larger screen.
// Before the window manager has framed the window its frame is unknown: kFrame stands for it.
void MainWindow::fitToScreen() {
    const QScreen* s = screen();
    if (!s)
        return;
    static constexpr QMargins kFrame(4, 36, 4, 4);
    const QRect free = s->availableGeometry();
    resize(size().boundedTo(free.size().shrunkBy(kFrame)));
    QRect framed(pos(), size().grownBy(kFrame));
    framed.moveRight(std::min(framed.right(), free.right()));
    framed.moveBottom(std::min(framed.bottom(), free.bottom()));
    framed.moveLeft(std::max(framed.left(), free.left()));
    framed.moveTop(std::max(framed.top(), free.top()));
    if (framed.topLeft() != pos())
        move(framed.topLeft());
}

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
        m_pacer.invalidate();
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
