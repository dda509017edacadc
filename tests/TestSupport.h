#pragma once

#include <QDir>
#include <QFile>
#include <QString>
#include <QtTest>
#include <string>

namespace tierscope::test {

inline std::string fixture(const QString& relative) {
    QFile file(QStringLiteral(TIERSCOPE_FIXTURES "/") + relative);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(relative));
    return file.readAll().toStdString();
}

inline void writeFile(const QString& path, const QByteArray& content) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate))
        qFatal("cannot write %s", qPrintable(path));
    file.write(content);
}

inline void writeFileBytes(const std::string& path, const std::string& content) {
    writeFile(QString::fromStdString(path), QByteArray::fromStdString(content));
}

} // namespace tierscope::test
