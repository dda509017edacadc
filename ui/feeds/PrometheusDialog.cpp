#include "ui/feeds/PrometheusDialog.h"

#include "ui/feeds/PrometheusFeed.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace tierscope {

PrometheusDialog::PrometheusDialog(PrometheusFeed* feed, const QString& url, QWidget* parent)
    : QDialog(parent), m_feed(feed) {
    setWindowTitle(tr("Connect to Prometheus"));
    resize(560, 420);
    m_url = new QLineEdit(url.isEmpty() ? "http://127.0.0.1:9090" : url, this);
    m_nodes = new QLineEdit(".+", this);
    m_nodes->setToolTip(tr("Regular expression on the instance label, e.g. gpu0[1-4]:.*"));
    m_step = new QComboBox(this);
    for (const auto& [text, seconds] : {std::pair{"1 s", 1.0}, {"5 s", 5.0}, {"15 s", 15.0}})
        m_step->addItem(tr(text), seconds);
    auto* find = new QPushButton(tr("Find nodes"), this);
    auto* nodeRow = new QHBoxLayout;
    nodeRow->addWidget(m_nodes, 1);
    nodeRow->addWidget(find);
    auto* form = new QFormLayout;
    form->addRow(tr("Server"), m_url);
    form->addRow(tr("Nodes"), nodeRow);
    form->addRow(tr("Resolution"), m_step);
    m_list = new QListWidget(this);
    m_status = new QLabel(tr("The live view and a new session will hold every matching node; "
                             "each chart can show one node or all."),
                          this);
    m_status->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Connect"));
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_list, 1);
    layout->addWidget(m_status);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(find, &QPushButton::clicked, this, &PrometheusDialog::findNodes);
    connect(m_feed, &PrometheusFeed::nodesListed, this,
            [this](const QStringList& nodes, const QString& error) {
                m_list->clear();
                m_list->addItems(nodes);
                m_status->setText(!error.isEmpty() ? tr("Cannot list nodes: %1").arg(error)
                                  : nodes.isEmpty()
                                      ? tr("No scraped node matches.")
                                      : tr("%n node(s) match.", nullptr, nodes.size()));
                emit nodesShown();
            });
}

QString PrometheusDialog::url() const {
    return m_url->text().trimmed();
}
QString PrometheusDialog::nodes() const {
    return m_nodes->text().trimmed();
}
double PrometheusDialog::stepS() const {
    return m_step->currentData().toDouble();
}
void PrometheusDialog::setUrl(const QString& url) {
    m_url->setText(url);
}
void PrometheusDialog::setNodes(const QString& regex) {
    m_nodes->setText(regex);
}

QStringList PrometheusDialog::listedNodes() const {
    QStringList out;
    for (int i = 0; i < m_list->count(); ++i)
        out << m_list->item(i)->text();
    return out;
}

void PrometheusDialog::findNodes() {
    m_status->setText(tr("Asking %1…").arg(url()));
    QMetaObject::invokeMethod(
        m_feed, [feed = m_feed, url = url(), nodes = nodes()] { feed->listNodes(url, nodes); });
}

} // namespace tierscope
