// The drain gate; see drain_gate.h.
#include "server/drain_gate.h"

#include <optional>

#include "server/overload/queued_call.h"
#include "server/status_mapping.h"

namespace sator::server {

DrainGate::Pass& DrainGate::Pass::operator=(Pass&& other) noexcept {
  if (this != &other) {
    Release();
    gate_ = other.gate_;
    limited_ = other.limited_;
    bytes_ = other.bytes_;
    overloaded_ = other.overloaded_;
    reason_ = other.reason_;
    pushback_ = other.pushback_;
    limiter_ = other.limiter_;
    other.gate_ = nullptr;
    other.limited_ = false;
    other.bytes_ = 0;
  }
  return *this;
}

absl::Status DrainGate::Pass::refusal() const {
  if (admitted()) return absl::OkStatus();
  if (overloaded_ && limiter_ != nullptr) {
    return limiter_->RefusalStatus(reason_, pushback_);
  }
  return DrainingStatus();
}

void DrainGate::Pass::Release() {
  if (gate_ != nullptr) {
    gate_->Leave(limited_, bytes_);
    gate_ = nullptr;
    limited_ = false;
    bytes_ = 0;
  }
}

void DrainGate::Pass::LeaveLimiter() {
  if (gate_ != nullptr && limited_) {
    gate_->limiter_->Leave();
    limited_ = false;
  }
}

DrainGate::Pass DrainGate::Enter() { return Admit(limiter_ != nullptr); }

DrainGate::Pass DrainGate::Enter(const grpc::CallbackServerContext& context,
                                 const google::protobuf::Message& request) {
  if (limiter_ == nullptr) return Admit(false);
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) return Pass();
  }
  // The request and the response share the call's arena
  // (arena_message_allocator.h); what the arena holds is the call's memory.
  // Off an arena, the request's wire size stands for it.
  const google::protobuf::Arena* arena = request.GetArena();
  const std::int64_t bytes =
      arena != nullptr ? static_cast<std::int64_t>(arena->SpaceAllocated())
                       : static_cast<std::int64_t>(request.ByteSizeLong());
  if (std::optional<ShedReason> refused =
          limiter_->TryEnter(QueueWait(context), bytes);
      refused.has_value()) {
    Pass pass;
    pass.overloaded_ = true;
    pass.reason_ = *refused;
    pass.pushback_ = limiter_->Pushback();
    pass.limiter_ = limiter_;
    return pass;
  }
  Pass pass = Counted(Pass(this, true));
  if (pass.admitted()) {
    pass.bytes_ = bytes;
  } else {
    limiter_->ReleaseBytes(bytes);
  }
  return pass;
}

DrainGate::Pass DrainGate::Counted(Pass pass) {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) {
    limiter_->Leave();
    pass.gate_ = nullptr;
    pass.limited_ = false;
    return Pass();
  }
  ++in_flight_;
  return pass;
}

DrainGate::Pass DrainGate::EnterStream() { return Admit(false); }

DrainGate::Pass DrainGate::Admit(bool limited) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (closed_) return Pass();
    if (!limited) {
      ++in_flight_;
      return Pass(this, false);
    }
  }
  // The limiter is lock-free; taking its slot outside the gate's mutex keeps
  // the refusal path cheap. A drain that begins meanwhile still waits for
  // this call, which is counted below before it does any work.
  if (!limiter_->TryEnter()) {
    Pass refused;
    refused.overloaded_ = true;
    refused.pushback_ = limiter_->Pushback();
    refused.limiter_ = limiter_;
    return refused;
  }
  const std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) {
    limiter_->Leave();
    return Pass();
  }
  ++in_flight_;
  return Pass(this, true);
}

absl::Status DrainGate::DrainingStatus() {
  return absl::UnavailableError("satord is shutting down; retry elsewhere");
}

void DrainGate::Close() {
  std::vector<std::function<void()>> listeners;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    listeners.swap(close_listeners_);
  }
  for (const std::function<void()>& listener : listeners) listener();
}

void DrainGate::OnClose(std::function<void()> listener) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (!closed_) {
      close_listeners_.push_back(std::move(listener));
      return;
    }
  }
  listener();
}

bool DrainGate::closed() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return closed_;
}

bool DrainGate::WaitUntilEmpty(absl::Time deadline) {
  std::unique_lock<std::mutex> lock(mutex_);
  return emptied_.wait_until(lock, absl::ToChronoTime(deadline),
                             [this] { return in_flight_ == 0; });
}

std::int64_t DrainGate::in_flight() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return in_flight_;
}

void DrainGate::Leave(bool limited, std::int64_t bytes) {
  if (limited) limiter_->Leave();
  if (bytes != 0) limiter_->ReleaseBytes(bytes);
  const std::lock_guard<std::mutex> lock(mutex_);
  if (--in_flight_ == 0) emptied_.notify_all();
}

grpc::ServerUnaryReactor* FinishGated(grpc::CallbackServerContext* context,
                                      DrainGate::Pass pass,
                                      const absl::Status& status) {
  if (status.code() == absl::StatusCode::kResourceExhausted) {
    AddNoRetryPushback(*context);
  }
  pass.LeaveLimiter();
  auto* reactor = new GatedUnaryReactor(std::move(pass));
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

grpc::ServerUnaryReactor* FinishRefused(grpc::CallbackServerContext* context,
                                        const DrainGate::Pass& pass) {
  if (pass.overloaded()) AddRetryAfter(*context, pass.retry_after());
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(pass.refusal()));
  return reactor;
}

}  // namespace sator::server
