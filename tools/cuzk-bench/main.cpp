// cuzk-bench: benchmarks and (later) the client of the daemon. Subcommands are
// registered by the files beside this one (tools/common/command_registry.hpp).
#include "tools/common/tool_main.hpp"

int main(int argc, char** argv) { return cuzk::tools::RunTool("cuzk-bench: cuzk benchmarks and client", argc, argv); }
