// When gRPC handed a unary call to satord, for --max_queue_wait.
//
// gRPC's callback API creates a call's ServerContext through the server's
// ContextAllocator once the call's request has fully arrived, then queues
// the call for one of its few callback threads, which parses the request and
// runs the handler. QueuedCallAllocator stamps each context at creation, so
// that the handler can tell how long the call waited in that queue
// (QueueWait) and refuse it when that was too long: by then its client has
// waited as long, and serving it would make the calls behind it wait longer.
#ifndef SATOR_SERVER_OVERLOAD_QUEUED_CALL_H_
#define SATOR_SERVER_OVERLOAD_QUEUED_CALL_H_

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/server_context.h"

namespace sator::server {

class StampedServerContext final : public grpc::CallbackServerContext {
 public:
  StampedServerContext() : created_(absl::Now()) {}
  absl::Time created() const { return created_; }

 private:
  const absl::Time created_;
};

// Set on the ServerBuilder (SetContextAllocator, which takes ownership); gRPC
// keeps it for the server's lifetime. Generic calls keep gRPC's own contexts
// (an unknown method, such as a reflection v1 probe, is one: gRPC serves it
// through its own generic service). gRPC 1.51 hands those back through
// Release(CallbackServerContext*) too, as their base class, although they live
// inside gRPC's request object: only the contexts made here are deleted.
class QueuedCallAllocator final : public grpc::ContextAllocator {
 public:
  grpc::CallbackServerContext* NewCallbackServerContext() override {
    return new StampedServerContext();
  }
  void Release(grpc::CallbackServerContext* context) override {
    delete dynamic_cast<StampedServerContext*>(context);
  }
};

// How long the call has waited since gRPC created its context; zero for a
// context that QueuedCallAllocator did not make.
inline absl::Duration QueueWait(const grpc::CallbackServerContext& context) {
  const auto* stamped = dynamic_cast<const StampedServerContext*>(&context);
  return stamped == nullptr ? absl::ZeroDuration()
                            : absl::Now() - stamped->created();
}

}  // namespace sator::server

#endif  // SATOR_SERVER_OVERLOAD_QUEUED_CALL_H_
