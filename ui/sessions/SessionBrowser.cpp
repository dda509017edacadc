#include "ui/sessions/SessionBrowser.h"

#include "core/analysis/AnalysisText.h"
#include "core/report/CsvExporter.h"
#include "core/store/Store.h"
#include "ui/sessions/SessionFilterProxy.h"
#include "ui/sessions/SessionListModel.h"

#include <QAction>
#include <QCheckBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QSaveFile>
#include <QThreadPool>
#include <QTreeView>
#include <QVBoxLayout>
#include <algorithm>
#include <memory>
#include <sstream>

namespace tierscope {

namespace {

// Runs `work` on the thread pool and `then(error)` back on `owner`'s thread, if it still lives.
void offThread(QObject* owner, std::function<QString()> work,
               std::function<void(const QString&)> then) {
    QPointer<QObject> guard(owner);
    QThreadPool::globalInstance()->start([guard, work = std::move(work), then = std::move(then)] {
        QString error;
        try {
            error = work();
        } catch (const std::exception& e) {
            error = QString::fromStdString(e.what());
        }
        if (guard)
            QMetaObject::invokeMethod(guard, [then, error] { then(error); });
    });
}

} // namespace

SessionBrowser::SessionBrowser(SessionListModel* model, QWidget* parent)
    : QWidget(parent), m_model(model) {
    m_proxy = new SessionFilterProxy(this);
    m_proxy->setSourceModel(model);
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Search label, profile, host, notes, date"));
    m_search->setClearButtonEnabled(true);
    m_requestsOnly = new QCheckBox(tr("With requests"), this);
    m_requestsOnly->setToolTip(
        tr("Only sessions that stored requests: loads and experiments with a load workload"));
    m_view = new QTreeView(this);
    m_view->setObjectName("sessionTree");
    m_view->setModel(m_proxy);
    m_view->setUniformRowHeights(true);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* filters = new QHBoxLayout;
    filters->setContentsMargins(0, 0, 0, 0);
    filters->addWidget(m_search, 1);
    filters->addWidget(m_requestsOnly);
    layout->addLayout(filters);
    layout->addWidget(m_view, 1);

    connect(m_search, &QLineEdit::textChanged, this, [this](const QString& text) {
        m_proxy->setFilterFixedString(text.trimmed());
        m_view->expandAll();
    });
    connect(m_requestsOnly, &QCheckBox::toggled, this, [this](bool on) {
        m_proxy->setRequestsOnly(on);
        m_view->expandAll();
    });
    connect(m_model, &QAbstractItemModel::modelReset, m_view, &QTreeView::expandAll);
    // One click opens, as in a file browser's preview; Ctrl/Shift-click only selects.
    connect(m_view, &QTreeView::clicked, this, [this](const QModelIndex& index) {
        const auto id = m_model->sessionId(m_proxy->mapToSource(index));
        if (id != 0 && selectedSessions().size() <= 1)
            emit openRequested(id);
    });
    connect(m_view, &QTreeView::activated, this, [this](const QModelIndex& index) {
        if (const auto id = m_model->sessionId(m_proxy->mapToSource(index)))
            emit openRequested(id);
    });
    connect(m_view, &QTreeView::customContextMenuRequested, this, [this](const QPoint& at) {
        auto ids = selectedSessions();
        const auto under = m_model->sessionId(m_proxy->mapToSource(m_view->indexAt(at)));
        if (under != 0 && !ids.contains(under))
            ids = {under};
        if (ids.isEmpty())
            return;
        QMenu* menu = menuFor(ids);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        menu->popup(m_view->viewport()->mapToGlobal(at));
    });
}

void SessionBrowser::select(qint64 sessionId) {
    const QModelIndex index = m_proxy->mapFromSource(m_model->indexOfSession(sessionId));
    if (index.isValid())
        m_view->setCurrentIndex(index);
}

void SessionBrowser::clearSelection() {
    m_view->clearSelection();
}

QList<qint64> SessionBrowser::selectedSessions() const {
    QList<qint64> out;
    for (const auto& index : m_view->selectionModel()->selectedRows())
        if (const auto id = m_model->sessionId(m_proxy->mapToSource(index)))
            out << id;
    std::sort(out.begin(), out.end());
    return out;
}

qint64 SessionBrowser::currentSession() const {
    return m_model->sessionId(m_proxy->mapToSource(m_view->currentIndex()));
}

int SessionBrowser::shownSessions() const {
    int n = 0;
    for (int g = 0; g < m_proxy->rowCount(); ++g)
        n += m_proxy->rowCount(m_proxy->index(g, 0));
    return n;
}

QMenu* SessionBrowser::menuFor(const QList<qint64>& ids) {
    auto* menu = new QMenu(this);
    const qint64 first = ids.value(0);
    if (ids.size() == 1)
        connect(menu->addAction(tr("Open")), &QAction::triggered, this,
                [this, first] { emit openRequested(first); });
    if (ids.size() == 2) {
        connect(menu->addAction(tr("Compare (older as A, newer as B)")), &QAction::triggered, this,
                [this, ids] {
                    emit compareRequested(QString("session:%1").arg(ids[0]),
                                          QString("session:%1").arg(ids[1]));
                });
        connect(menu->addAction(tr("Overlay (older as A, newer as B)")), &QAction::triggered, this,
                [this, ids] {
                    emit overlayRequested(QString("session:%1").arg(ids[0]),
                                          QString("session:%1").arg(ids[1]));
                });
    } else if (ids.size() == 1) {
        connect(menu->addAction(tr("Compare with…")), &QAction::triggered, this,
                [this, first] { emit compareRequested(QString("session:%1").arg(first), {}); });
        connect(menu->addAction(tr("Overlay its arms")), &QAction::triggered, this,
                [this, first] { emit overlayRequested(QString("session:%1").arg(first), {}); });
    }
    if (ids.size() == 1) {
        menu->addSeparator();
        connect(menu->addAction(tr("Rename…")), &QAction::triggered, this, [this, first] {
            const auto s = m_model->session(first);
            bool ok = false;
            const QString label = QInputDialog::getText(
                this, tr("Rename session %1").arg(first), tr("Label"), QLineEdit::Normal,
                s ? QString::fromStdString(s->label) : QString(), &ok);
            if (ok)
                rename(first, label.trimmed());
        });
        connect(menu->addAction(tr("Notes…")), &QAction::triggered, this, [this, first] {
            const auto s = m_model->session(first);
            bool ok = false;
            const QString notes = QInputDialog::getMultiLineText(
                this, tr("Notes on session %1").arg(first), tr("Notes"),
                s ? QString::fromStdString(s->notes) : QString(), &ok);
            if (ok)
                setNotes(first, notes);
        });
        connect(menu->addAction(tr("Analyze…")), &QAction::triggered, this,
                [this, first] { analyze(first); });
        connect(menu->addAction(tr("Export CSV…")), &QAction::triggered, this, [this, first] {
            const QString path = QFileDialog::getSaveFileName(
                this, tr("Export session %1").arg(first), QString("session-%1.csv").arg(first),
                tr("CSV (*.csv)"));
            if (!path.isEmpty())
                exportCsv(first, path);
        });
    }
    menu->addSeparator();
    connect(menu->addAction(tr("Delete…")), &QAction::triggered, this,
            [this, ids] { askDelete(ids); });
    return menu;
}

void SessionBrowser::analyze(qint64 sessionId) {
    constexpr std::int64_t kWindowNs = 10'000'000'000LL; // analyze's default --window
    auto text = std::make_shared<QString>();
    offThread(
        this,
        [db = m_db, sessionId, text] {
            Store store(db.toStdString(), Store::Mode::ReadOnly);
            if (!store.session(sessionId))
                return QString("no session %1 in this workspace").arg(sessionId);
            *text = QString::fromStdString(
                AnalysisText::of(SessionAnalysis::analyze(store, sessionId, kWindowNs)));
            return QString();
        },
        [this, sessionId, text](const QString& error) {
            if (!error.isEmpty()) {
                emit done({}, tr("Analyze session %1: %2").arg(sessionId).arg(error));
                return;
            }
            auto* dialog = new QDialog(this);
            dialog->setAttribute(Qt::WA_DeleteOnClose);
            dialog->setWindowTitle(tr("Session %1: bottlenecks in 10 s windows").arg(sessionId));
            auto* view = new QPlainTextEdit(*text, dialog);
            view->setObjectName("analysisText");
            view->setReadOnly(true);
            view->setLineWrapMode(QPlainTextEdit::NoWrap);
            view->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
            auto* close = new QDialogButtonBox(QDialogButtonBox::Close, dialog);
            connect(close, &QDialogButtonBox::rejected, dialog, &QDialog::close);
            auto* layout = new QVBoxLayout(dialog);
            layout->addWidget(new QLabel(
                tr("As `tierscope analyze --session %1` prints it; the rules: `tierscope analyze "
                   "--help`.")
                    .arg(sessionId),
                dialog));
            layout->addWidget(view);
            layout->addWidget(close);
            dialog->resize(900, 480);
            dialog->show();
            emit analyzed(sessionId, *text);
        });
}

void SessionBrowser::describe(qint64 sessionId, std::optional<QString> label,
                              std::optional<QString> notes) {
    const auto s = m_model->session(sessionId);
    if (!s)
        return;
    const std::string newLabel = label ? label->toStdString() : s->label;
    const std::string newNotes = notes ? notes->toStdString() : s->notes;
    offThread(
        this,
        [db = m_db, sessionId, newLabel, newNotes] {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            store.describeSession(sessionId, newLabel, newNotes);
            return QString();
        },
        [this, sessionId](const QString& error) {
            emit done(tr("Session %1 updated").arg(sessionId), error);
            emit changed();
        });
}

void SessionBrowser::rename(qint64 sessionId, const QString& label) {
    describe(sessionId, label, std::nullopt);
}

void SessionBrowser::setNotes(qint64 sessionId, const QString& notes) {
    describe(sessionId, std::nullopt, notes);
}

void SessionBrowser::askDelete(const QList<qint64>& ids) {
    QStringList names;
    for (const auto id : ids) {
        if (m_busy(id)) {
            QMessageBox::information(this, tr("Delete sessions"),
                                     tr("Session %1 is being recorded: stop it first.").arg(id));
            return;
        }
        const auto s = m_model->session(id);
        names << QString("%1 %2").arg(id).arg(s ? QString::fromStdString(s->label) : QString());
    }
    QMessageBox ask(QMessageBox::Warning, tr("Delete sessions"),
                    tr("Delete %n session(s) and everything recorded in them? This cannot be "
                       "undone.\n\n%1",
                       "", static_cast<int>(ids.size()))
                        .arg(names.join('\n')),
                    QMessageBox::Yes | QMessageBox::Cancel, this);
    ask.setDefaultButton(QMessageBox::Cancel);
    ask.button(QMessageBox::Yes)->setText(tr("Delete"));
    if (ask.exec() != QMessageBox::Yes)
        return;
    offThread(
        this,
        [db = m_db, ids] {
            Store store(db.toStdString(), Store::Mode::ReadWrite);
            for (const auto id : ids)
                store.deleteSession(id);
            return QString();
        },
        [this, ids](const QString& error) {
            emit done(tr("Deleted %n session(s)", "", static_cast<int>(ids.size())), error);
            emit changed();
        });
}

void SessionBrowser::exportCsv(qint64 sessionId, const QString& path) {
    offThread(
        this,
        [db = m_db, sessionId, path] {
            Store store(db.toStdString(), Store::Mode::ReadOnly);
            std::ostringstream out;
            CsvExporter::write(store, sessionId, "*", out);
            QSaveFile file(path);
            if (!file.open(QIODevice::WriteOnly))
                return file.errorString();
            const std::string text = out.str();
            file.write(text.data(), static_cast<qint64>(text.size()));
            return file.commit() ? QString() : file.errorString();
        },
        [this, path](const QString& error) { emit done(tr("Wrote %1").arg(path), error); });
}

} // namespace tierscope
