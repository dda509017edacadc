#include "app/common/TerminalOutput.h"

#include "core/util/TerminalText.h"

#include <unistd.h>

namespace tierscope {

std::string TerminalOutput::shown(int fd, std::string_view text) {
    return isatty(fd) ? TerminalText::clean(text) : std::string(text);
}

} // namespace tierscope
