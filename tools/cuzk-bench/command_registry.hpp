#pragma once
// cuzk-bench's subcommands use the registry shared by all cuzk tools.
#include "tools/common/command_registry.hpp"

namespace cuzk::bench {
using tools::CommandExitCode;
using tools::CommandList;
using tools::CommandRegistrar;
using tools::CommandSetup;
}  // namespace cuzk::bench
