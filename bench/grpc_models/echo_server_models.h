// One start function per model (see echo_servers.h), and what they share.
#ifndef SATOR_BENCH_GRPC_MODELS_ECHO_SERVER_MODELS_H_
#define SATOR_BENCH_GRPC_MODELS_ECHO_SERVER_MODELS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "bench/grpc_models/echo_servers.h"
#include "grpcpp/impl/codegen/service_type.h"
#include "grpcpp/server.h"
#include "grpcpp/server_builder.h"
#include "sator/v1/query_service.pb.h"

namespace sator::bench::internal {

// The Ping answer: the payload echoed.
void AnswerPing(const sator::v1::PingRequest& request,
                sator::v1::PingResponse* response);
// The Session answer: the request's sequence echoed.
void AnswerSession(const sator::v1::SessionRequest& request,
                   sator::v1::SessionResponse* response);

// Listens on `address` (its port into `*port`) and builds; INTERNAL if the
// server cannot start.
absl::StatusOr<std::unique_ptr<grpc::Server>> BuildAndStart(
    grpc::ServerBuilder& builder, const std::string& address, int* port);

// Starts `service` (a sync or callback service) on `address`; the returned
// server owns it.
absl::StatusOr<std::unique_ptr<EchoServer>> StartServiceEchoServer(
    std::unique_ptr<grpc::Service> service, const std::string& address);

absl::StatusOr<std::unique_ptr<EchoServer>> StartSyncEchoServer(
    const std::string& address);
absl::StatusOr<std::unique_ptr<EchoServer>> StartCallbackEchoServer(
    const std::string& address);
absl::StatusOr<std::unique_ptr<EchoServer>> StartAsyncEchoServer(
    const std::string& address, int completion_queues);

}  // namespace sator::bench::internal

#endif  // SATOR_BENCH_GRPC_MODELS_ECHO_SERVER_MODELS_H_
