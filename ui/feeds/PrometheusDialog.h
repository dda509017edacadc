#pragma once

#include <QDialog>

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace tierscope {

class PrometheusFeed;

// "Connect to Prometheus": the server, a node filter (regex on the instance label) with the
// nodes it matches listed, and the resolution. Listing runs on the feed's worker thread.
class PrometheusDialog : public QDialog {
    Q_OBJECT
  public:
    PrometheusDialog(PrometheusFeed* feed, const QString& url, QWidget* parent = nullptr);

    QString url() const;
    QString nodes() const;
    double stepS() const;
    void setUrl(const QString& url);
    void setNodes(const QString& regex);
    void findNodes();
    QStringList listedNodes() const;

  signals:
    void nodesShown();

  private:
    PrometheusFeed* m_feed;
    QLineEdit* m_url = nullptr;
    QLineEdit* m_nodes = nullptr;
    QComboBox* m_step = nullptr;
    QListWidget* m_list = nullptr;
    QLabel* m_status = nullptr;
};

} // namespace tierscope
