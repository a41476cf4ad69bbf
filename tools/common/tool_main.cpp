#include "tools/common/tool_main.hpp"

#include <algorithm>
#include <exception>
#include <iostream>

namespace cuzk::tools {

int RunTool(const char* description, int argc, char** argv) {
  CLI::App app{description};
  app.require_subcommand(1);
  auto& commands = CommandList();
  std::sort(commands.begin(), commands.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (auto& [name, setup] : commands) setup(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << app.get_name() << ": " << e.what() << "\n";
    return 2;
  }
  return CommandExitCode();
}

}  // namespace cuzk::tools
