// cuzk-bench: benchmarks and (later) the client of the daemon. Subcommands are
// registered by the files beside this one (see command_registry.hpp).
#include <algorithm>
#include <exception>
#include <iostream>

#include "tools/cuzk-bench/command_registry.hpp"

int main(int argc, char** argv) {
  CLI::App app{"cuzk-bench: cuzk benchmarks and client"};
  app.require_subcommand(1);
  auto& commands = cuzk::bench::CommandList();
  std::sort(commands.begin(), commands.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (auto& [name, setup] : commands) setup(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::cerr << "cuzk-bench: " << e.what() << "\n";
    return 2;
  }
  return cuzk::bench::CommandExitCode();
}
