#pragma once

#include <QTableWidget>

namespace tierscope {

// The gates of an experiment that runs until they are decided (repetitions = "auto"), one row
// per gate at each look: the verdict, the change with its interval narrowing look by look,
// and the runs per arm that would decide it. Hidden until the first look.
class GateLookTable : public QTableWidget {
    Q_OBJECT
  public:
    explicit GateLookTable(QWidget* parent = nullptr);
    // One look, as SequentialLook::toJsonText writes it.
    void addLook(int repetitions, const QString& lookJson);
    enum Column { After, Gate, Verdict, Change, Needed };
};

} // namespace tierscope
