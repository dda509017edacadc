#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

class QProcess;
class QTimer;

namespace tierscope {

// `tierscope export chart …` in a child process: a view drawn anew off screen, for the light
// theme of a window shown dark (its charts cannot change theme in place). The child runs in a
// process group of its own, is killed with it at the time limit or when this object goes (the
// window closed), and finished() says once whether the file was written.
class HeadlessExport : public QObject {
    Q_OBJECT
  public:
    static constexpr int kTimeLimitMs = 10 * 60 * 1000; // a long session, redrawn unoptimised

    // `args` are tierscope's (after the program name); `path` is the file they write.
    HeadlessExport(QStringList args, QString path, QObject* parent);
    ~HeadlessExport() override;
    void setTimeLimit(int ms);
    void start();
    bool running() const;

    // The tierscope executable: this program, unless a test set the built one.
    static QString binary();
    static void setBinary(const QString& path);

  signals:
    void finished(const QString& path, const QString& error); // error empty: written

  private:
    void finish(const QString& error);
    void killGroup();

    QStringList m_args;
    QString m_path;
    QProcess* m_process = nullptr;
    QTimer* m_limit = nullptr;
    bool m_finished = false;
};

} // namespace tierscope
