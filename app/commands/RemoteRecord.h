#pragma once

#include "app/common/GlobalOptions.h"
#include "app/commands/RecordCommand.h"

namespace tierscope {

// `tierscope record --target ssh://host`: the server records into its own workspace while
// this workstation mirrors the stream into a local session, until --duration or Ctrl-C.
class RemoteRecord {
  public:
    static int run(const GlobalOptions& global, const RecordCommand::Options& options);
};

} // namespace tierscope
