#pragma once
// Each subcommand of a cuzk tool (cuzk-bench, cuzk-cli) lives in its own file and registers itself here
// with a static CommandRegistrar, so adding a command touches no shared file. Each executable has its own list.
//
//   static CommandRegistrar kMsm("msm", [](CLI::App& app) {
//     auto* cmd = app.add_subcommand("msm", "...");
//     ... cmd->callback([=] { ... }); });
#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace cuzk::tools {

using CommandSetup = std::function<void(CLI::App&)>;

inline std::vector<std::pair<std::string, CommandSetup>>& CommandList() {
  static std::vector<std::pair<std::string, CommandSetup>> list;
  return list;
}

struct CommandRegistrar {
  CommandRegistrar(std::string name, CommandSetup setup) {
    CommandList().emplace_back(std::move(name), std::move(setup));
  }
};

// The group `name` of subcommands ("snap", "groth16"): created, with its description, by the first
// file that asks for it, so that several files can add commands to one group.
inline CLI::App* CommandGroup(CLI::App& app, const std::string& name, const std::string& description) {
  try {
    return app.get_subcommand(name);
  } catch (const CLI::OptionNotFound&) {
    auto* group = app.add_subcommand(name, description);
    group->require_subcommand(1);
    return group;
  }
}

// Exit code a command's callback asks main to return (0 unless set).
inline int& CommandExitCode() {
  static int code = 0;
  return code;
}

}  // namespace cuzk::tools
