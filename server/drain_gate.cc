// The drain gate; see drain_gate.h.
#include "server/drain_gate.h"

namespace sator::server {

DrainGate::Pass& DrainGate::Pass::operator=(Pass&& other) noexcept {
  if (this != &other) {
    Release();
    gate_ = other.gate_;
    other.gate_ = nullptr;
  }
  return *this;
}

void DrainGate::Pass::Release() {
  if (gate_ != nullptr) {
    gate_->Leave();
    gate_ = nullptr;
  }
}

DrainGate::Pass DrainGate::Enter() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (closed_) return Pass();
  ++in_flight_;
  return Pass(this);
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

void DrainGate::Leave() {
  const std::lock_guard<std::mutex> lock(mutex_);
  if (--in_flight_ == 0) emptied_.notify_all();
}

grpc::ServerUnaryReactor* FinishGated(DrainGate::Pass pass,
                                      const grpc::Status& status) {
  auto* reactor = new GatedUnaryReactor(std::move(pass));
  reactor->Finish(status);
  return reactor;
}

}  // namespace sator::server
