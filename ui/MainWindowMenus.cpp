// MainWindow's menus and the shortcut list, kept apart from MainWindow.cpp so each feature's
// wiring stays in one place.
#include "core/util/Version.h"
#include "ui/MainWindow.h"
#include "ui/timeline/TimelineView.h"

#include <QAction>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>

namespace tierscope {

void MainWindow::buildMenus(const QList<QAction*>& tools, QAction* plan, QAction* settings) {
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(plan);
    auto* exportView = file->addAction(tr("&Export view…"));
    exportView->setShortcut(QKeySequence("Ctrl+E"));
    connect(exportView, &QAction::triggered, this, [this] {
        if (const auto to = askExportTarget(tr("Export view"), "tierscope.png", m_timeline->size()))
            this->exportView(to->first, to->second);
    });
    file->addSeparator();
    file->addAction(settings);
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"));
    quit->setShortcut(QKeySequence("Ctrl+Q")); // QKeySequence::Quit is empty on some platforms
    quit->setMenuRole(QAction::QuitRole);
    connect(quit, &QAction::triggered, this, &QWidget::close);

    auto* view = menuBar()->addMenu(tr("&View"));
    view->addAction(m_liveAction);
    view->addAction(m_pause);
    view->addSeparator();
    for (auto* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());
    buildLayoutMenu(view);
    auto* full = view->addAction(tr("&Full screen"));
    full->setShortcut(QKeySequence::FullScreen);
    full->setCheckable(true);
    connect(full, &QAction::toggled, this,
            [this](bool on) { on ? showFullScreen() : showNormal(); });

    auto* toolMenu = menuBar()->addMenu(tr("&Tools"));
    toolMenu->addActions(tools);

    auto* help = menuBar()->addMenu(tr("&Help"));
    auto* keys = help->addAction(tr("&Keyboard shortcuts"));
    keys->setShortcut(QKeySequence::HelpContents);
    connect(keys, &QAction::triggered, this,
            [this] { QMessageBox::information(this, tr("Keyboard shortcuts"), shortcutList()); });
    auto* about = help->addAction(tr("&About tierscope"));
    about->setMenuRole(QAction::AboutRole);
    connect(about, &QAction::triggered, this, [this] {
        QMessageBox::about(
            this, tr("About tierscope"),
            tr("<b>tierscope %1</b><p>Is storage what holds the GPUs back, and by how much does "
               "B beat A? GPU, storage and engine TTFT on one timeline, with A/B experiments "
               "whose every figure carries a 95 % interval over runs.</p><p>Workspace: %2</p>")
                .arg(QString::fromUtf8(kToolVersion), m_db.toHtmlEscaped()));
    });
}

QString MainWindow::shortcutList() const {
    QStringList lines;
    for (auto* menu : menuBar()->findChildren<QMenu*>())
        for (auto* a : menu->actions())
            if (!a->shortcut().isEmpty())
                lines << QString("%1\t%2").arg(a->shortcut().toString(QKeySequence::NativeText),
                                               a->text().remove('&'));
    lines.removeDuplicates();
    return lines.join('\n');
}

} // namespace tierscope
