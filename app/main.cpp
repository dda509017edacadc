#include "app/common/CancelOnSignal.h"
#include "app/CommandLine.h"

#include <csignal>

int main(int argc, char** argv) {
    // First of all: a signal that arrives during start-up is kept until the command polls it.
    tierscope::CancelOnSignal stop;
    // A file-size limit (RLIMIT_FSIZE) must fail the write, not kill the process: the writer
    // then stops with a clear error and everything committed stays.
    std::signal(SIGXFSZ, SIG_IGN);
    tierscope::CommandLine commandLine;
    return commandLine.run(argc, argv, &stop);
}
