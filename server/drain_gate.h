// Counts the calls in progress so that shutdown can wait for exactly those.
//
// gRPC's Server::Shutdown(deadline) also waits for idle client connections
// to close, which clients holding a channel open never do, so a drain with
// nothing in flight would still take the whole deadline. Instead satord
// closes this gate (new calls get UNAVAILABLE, which clients retry
// elsewhere), waits until the calls already admitted finish, and only then
// shuts gRPC down with an immediate deadline.
#ifndef SATOR_SERVER_DRAIN_GATE_H_
#define SATOR_SERVER_DRAIN_GATE_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "grpcpp/support/server_callback.h"

namespace sator::server {

class DrainGate {
 public:
  // Admits one call; the returned Pass releases it when destroyed (or on
  // Release). A pass that is not `admitted()` carries an UNAVAILABLE status
  // to return to the caller.
  class Pass {
   public:
    Pass() = default;
    ~Pass() { Release(); }
    Pass(Pass&& other) noexcept : gate_(other.gate_) { other.gate_ = nullptr; }
    Pass& operator=(Pass&& other) noexcept;
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;

    bool admitted() const { return gate_ != nullptr; }
    void Release();

   private:
    friend class DrainGate;
    explicit Pass(DrainGate* gate) : gate_(gate) {}
    DrainGate* gate_ = nullptr;
  };

  Pass Enter();
  static absl::Status DrainingStatus();

  // Closes the gate: every later Enter is refused. Then runs the close
  // listeners, on this thread, with no lock held.
  void Close();
  // Runs `listener` when the gate closes (at once if it is already closed).
  // For calls that would otherwise wait for their client, such as open
  // Session streams, to end themselves promptly during a drain.
  void OnClose(std::function<void()> listener);
  bool closed() const;
  // Waits until every admitted call has left, or `deadline`. Returns whether
  // the gate emptied in time.
  bool WaitUntilEmpty(absl::Time deadline);

  std::int64_t in_flight() const;

 private:
  void Leave();

  // std::mutex rather than absl::Mutex: Debian's Abseil is a shared library
  // built without ThreadSanitizer, which then cannot see its locking.
  mutable std::mutex mutex_;
  std::condition_variable emptied_;
  bool closed_ = false;                                 // Guarded by mutex_.
  std::vector<std::function<void()>> close_listeners_;  // Guarded by mutex_.
  std::int64_t in_flight_ = 0;                          // Guarded by mutex_.
};

// A unary reactor that holds the call's pass until gRPC is done with the call
// (the response sent, or the call cancelled), so a drain waits for the
// response to leave and not only for the handler to return.
class GatedUnaryReactor final : public grpc::ServerUnaryReactor {
 public:
  explicit GatedUnaryReactor(DrainGate::Pass pass) : pass_(std::move(pass)) {}
  void OnDone() override { delete this; }

 private:
  DrainGate::Pass pass_;
};

// Finishes a unary call with `status` through a GatedUnaryReactor that keeps
// `pass` until the call is done.
grpc::ServerUnaryReactor* FinishGated(DrainGate::Pass pass,
                                      const grpc::Status& status);

}  // namespace sator::server

#endif  // SATOR_SERVER_DRAIN_GATE_H_
