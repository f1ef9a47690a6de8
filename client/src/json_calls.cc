// Client::CallJson: any unary sator.v1 RPC, JSON in and out, through the
// descriptors of the generated code and a generic stub.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/synchronization/notification.h"
#include "client_impl.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/util/json_util.h"
#include "grpcpp/generic/generic_stub.h"
#include "sator/v1/body_service.pb.h"
#include "sator/v1/query_service.pb.h"
#include "sator/v1/scene_service.pb.h"
#include "status_conversion.h"

namespace sator {
namespace {

using google::protobuf::Message;
using google::protobuf::MethodDescriptor;

// Referencing one message of each service file links its descriptors in, so
// the generated pool can find every method by name.
void LinkServiceDescriptors() {
  static const bool linked = [] {
    (void)sator::v1::PingRequest::descriptor();
    (void)sator::v1::CreateSceneRequest::descriptor();
    (void)sator::v1::UpsertBodiesRequest::descriptor();
    return true;
  }();
  (void)linked;
}

absl::Status FromProtobufStatus(const google::protobuf::util::Status& status,
                                absl::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": ", std::string(status.message())));
}

}  // namespace

absl::StatusOr<std::string> Client::CallJson(absl::string_view method,
                                             absl::string_view request_json,
                                             const CallOptions& call_options) {
  LinkServiceDescriptors();
  // "pkg.Service/Method" and "pkg.Service.Method" name the same method.
  const std::string dotted = absl::StrReplaceAll(method, {{"/", "."}});
  const MethodDescriptor* descriptor =
      google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(
          dotted);
  if (descriptor == nullptr) {
    return absl::NotFoundError(absl::StrCat("no RPC named '", method, "'"));
  }
  if (descriptor->client_streaming() || descriptor->server_streaming()) {
    return absl::UnimplementedError(absl::StrCat(
        method, " is a streaming RPC; CallJson makes unary calls"));
  }
  google::protobuf::MessageFactory* factory =
      google::protobuf::MessageFactory::generated_factory();
  std::unique_ptr<Message> request(
      factory->GetPrototype(descriptor->input_type())->New());
  std::unique_ptr<Message> response(
      factory->GetPrototype(descriptor->output_type())->New());
  if (const auto parsed = google::protobuf::util::JsonStringToMessage(
          std::string(request_json), request.get());
      !parsed.ok()) {
    return FromProtobufStatus(
        parsed, absl::StrCat("request is not a valid ",
                             descriptor->input_type()->full_name()));
  }

  grpc::ClientContext context;
  impl_->PrepareContext(context, call_options);
  grpc::TemplatedGenericStub<Message, Message> stub(impl_->channel());
  absl::Notification done;
  grpc::Status status;
  stub.UnaryCall(&context,
                 absl::StrCat("/", descriptor->service()->full_name(), "/",
                              descriptor->name()),
                 grpc::StubOptions(), request.get(), response.get(),
                 [&](grpc::Status call_status) {
                   status = std::move(call_status);
                   done.Notify();
                 });
  done.WaitForNotification();
  if (!status.ok()) return client_internal::FromGrpcStatus(status);

  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  if (const auto printed = google::protobuf::util::MessageToJsonString(
          *response, &json, options);
      !printed.ok()) {
    return absl::InternalError(std::string(printed.message()));
  }
  return json;
}

}  // namespace sator
