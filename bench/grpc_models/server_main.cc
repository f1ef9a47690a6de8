// grpc_models_server: one echo server model (echo_servers.h) on 127.0.0.1,
// until SIGTERM or SIGINT. Writes its port to --port_file.
//
//   grpc_models_server --model=callback --port_file=/tmp/port
#include <signal.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "bench/grpc_models/echo_servers.h"

ABSL_FLAG(std::string, model, "callback", "sync, callback or async.");
ABSL_FLAG(std::string, address, "127.0.0.1:0", "Where to listen.");
ABSL_FLAG(int, completion_queues, 2,
          "async: completion queues, one polling thread each.");
ABSL_FLAG(std::string, port_file, "", "Write the port here once listening.");

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  // Block the stop signals before gRPC starts its threads, so that only
  // sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const absl::StatusOr<sator::bench::ServerModel> model =
      sator::bench::ParseServerModel(absl::GetFlag(FLAGS_model));
  if (!model.ok()) {
    std::fprintf(stderr, "%s\n", model.status().ToString().c_str());
    return 2;
  }
  absl::StatusOr<std::unique_ptr<sator::bench::EchoServer>> server =
      sator::bench::StartEchoServer(*model, absl::GetFlag(FLAGS_address),
                                    absl::GetFlag(FLAGS_completion_queues));
  if (!server.ok()) {
    std::fprintf(stderr, "%s\n", server.status().ToString().c_str());
    return 1;
  }
  if (const std::string path = absl::GetFlag(FLAGS_port_file); !path.empty()) {
    // Written whole to a temporary name, then renamed, so a reader never
    // sees half a port.
    const std::string partial = path + ".partial";
    std::ofstream(partial) << (*server)->port() << "\n";
    std::rename(partial.c_str(), path.c_str());
  }
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  (*server)->Shutdown();
  return 0;
}
