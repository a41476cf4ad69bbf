// cuzk-cli: offline proving tools (setup, prove, verify, snarkjs interop,
// SnapDeals test sectors). Subcommands register themselves from the files
// beside this one (tools/common/command_registry.hpp).
#include "tools/common/tool_main.hpp"

int main(int argc, char** argv) { return cuzk::tools::RunTool("cuzk-cli: cuzk offline proving tools", argc, argv); }
