#pragma once
// Each cuzk-bench subcommand lives in its own file and registers itself here
// with a static CommandRegistrar, so adding a command touches no shared file.
//
//   static CommandRegistrar kMsm("msm", [](CLI::App& app) {
//     auto* cmd = app.add_subcommand("msm", "...");
//     ... cmd->callback([=] { ... }); });
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace cuzk::bench {

using CommandSetup = std::function<void(CLI::App&)>;

inline std::vector<std::pair<std::string, CommandSetup>>& CommandList() {
  static std::vector<std::pair<std::string, CommandSetup>> list;
  return list;
}

struct CommandRegistrar {
  CommandRegistrar(std::string name, CommandSetup setup) { CommandList().emplace_back(std::move(name), std::move(setup)); }
};

// Exit code a command's callback asks main to return (0 unless set).
inline int& CommandExitCode() {
  static int code = 0;
  return code;
}

}  // namespace cuzk::bench
