// MainWindow's menus and the shortcut list, kept apart from MainWindow.cpp so each feature's
// wiring stays in one place.
#include "core/util/ShellTemplate.h"
#include "core/util/TimeRangeText.h"
#include "core/util/Version.h"
#include "ui/MainWindow.h"
#include "ui/timeline/TimelineView.h"

#include <QAction>
#include <QClipboard>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QGuiApplication>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <cmath>

namespace tierscope {

void MainWindow::buildMenus(const QList<QAction*>& tools, QAction* plan, QAction* settings) {
    auto* file = menuBar()->addMenu(tr("&File"));
    file->addAction(plan);
    auto* exportView = file->addAction(tr("&Export view…"));
    exportView->setShortcut(QKeySequence("Ctrl+E"));
    connect(exportView, &QAction::triggered, this, &MainWindow::askExportView);
    auto* link = file->addAction(tr("Copy &link"));
    link->setShortcut(QKeySequence("Ctrl+Shift+L"));
    link->setToolTip(tr("Copy the command that opens this view (session, range, runs)"));
    connect(link, &QAction::triggered, this, [this] {
        const QString command = viewLink();
        QGuiApplication::clipboard()->setText(command);
        statusBar()->showMessage(tr("Copied: %1").arg(command), 10000);
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
    // F11 everywhere; the platform's own key too (empty on some, Ctrl+F11 on GNOME).
    QList<QKeySequence> fullKeys{QKeySequence(Qt::Key_F11)};
    for (const auto& key : QKeySequence::keyBindings(QKeySequence::FullScreen))
        if (!fullKeys.contains(key))
            fullKeys << key;
    full->setShortcuts(fullKeys);
    full->setCheckable(true);
    // Toggled from the window's state, not the check mark: the window manager may have left
    // full screen meanwhile; a maximized window comes back maximized.
    connect(full, &QAction::triggered, this, [this, full] {
        setWindowState(windowState() ^ Qt::WindowFullScreen);
        full->setChecked(isFullScreen());
    });

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

// From the actions themselves, so the list cannot miss one: the menus', the toolbar's and the
// timeline's (Ctrl+0) alike, each with all of its keys.
QString MainWindow::shortcutList() const {
    QStringList lines;
    for (auto* a : findChildren<QAction*>()) {
        QStringList keys;
        for (const auto& key : a->shortcuts())
            keys << key.toString(QKeySequence::NativeText);
        if (!keys.isEmpty())
            lines << QString("%1\t%2").arg(keys.join(", "), a->text().remove('&'));
    }
    lines.removeDuplicates();
    return lines.join('\n');
}

QString MainWindow::linkFor(const QString& db, qint64 session, std::optional<std::int64_t> fromNs,
                            std::optional<std::int64_t> toNs, const QList<qint64>& runs) {
    QStringList words{"tierscope"};
    if (!db.isEmpty()) // absolute: the colleague's shell is not in this directory
        words << "--db"
              << QString::fromStdString(
                     ShellTemplate::quote(QFileInfo(db).absoluteFilePath().toStdString()));
    words << "gui";
    if (session <= 0)
        return words.join(' ');
    words << "--session" << QString::number(session);
    if (fromNs || toNs)
        words << "--range" << QString::fromStdString(TimeRangeText::format({fromNs, toNs}));
    QStringList ids;
    for (const qint64 run : runs)
        ids << QString::number(run);
    if (!ids.isEmpty())
        words << "--runs" << ids.join(',');
    return words.join(' ');
}

QString MainWindow::viewLink() const {
    if (isLive()) // the recording behind the live view, whole: "now" moves on
        return linkFor(m_db, liveSourceSession(), std::nullopt, std::nullopt, {});
    const auto ns = [](double s) { return static_cast<std::int64_t>(std::llround(s * 1e9)); };
    // A range selected for its figures is the view's subject; else what the charts show.
    const bool selected = m_timeline->hasSelection();
    const double x0 = selected ? m_timeline->selectionStart() : m_timeline->rangeStart();
    const double x1 = selected ? m_timeline->selectionEnd() : m_timeline->rangeEnd();
    return linkFor(m_db, m_shownSession, ns(x0), ns(x1), m_timeline->selectedRuns());
}

QString MainWindow::examplePlansDir(const QString& appDir) {
    // Installed: <prefix>/bin beside <prefix>/share/doc/tierscope/examples. A build directory
    // lies inside the source tree (build/asan/app), so its resources/plans is a few levels up.
    QDir dir(appDir);
    for (int up = 0; up < 5; ++up) {
        for (const char* candidate : {"share/doc/tierscope/examples", "resources/plans"})
            if (QFileInfo::exists(dir.filePath(QString(candidate) + "/disk-vs-shm.toml")))
                return QDir::cleanPath(dir.filePath(candidate));
        if (!dir.cdUp())
            break;
    }
    return {};
}

} // namespace tierscope
