#pragma once
// The main() shared by cuzk's command-line tools: builds a CLI11 app from the
// self-registered subcommands and maps exceptions to exit code 2.
#include "tools/common/command_registry.hpp"

namespace cuzk::tools {
int RunTool(const char* description, int argc, char** argv);
}
