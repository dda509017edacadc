#pragma once

#include <QWidget>

class QLabel;
class QStackedWidget;
class QTableView;

namespace tierscope {

class ProcessIoTableModel;

// The "Top I/O processes" table with, in place of an empty table, the reason it is empty, and
// under it the total of all processes and who could not be read.
class ProcessIoPanel : public QWidget {
    Q_OBJECT
  public:
    explicit ProcessIoPanel(ProcessIoTableModel* model, QWidget* parent = nullptr);

    QTableView* table() const { return m_table; }
    QLabel* messageLabel() const { return m_message; }
    QLabel* footnoteLabel() const { return m_footnote; }
    QSize sizeHint() const override;

  private:
    void refresh();

    ProcessIoTableModel* m_model;
    QStackedWidget* m_stack = nullptr;
    QTableView* m_table = nullptr;
    QLabel* m_message = nullptr;
    QLabel* m_footnote = nullptr;
};

} // namespace tierscope
