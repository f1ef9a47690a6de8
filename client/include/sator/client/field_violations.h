// The fields satord names as invalid. An INVALID_ARGUMENT from satord (a
// call's status, a batch entry's, a Session reply's) carries a
// google.rpc.BadRequest whose field violation gives the field's path in the
// request, the same path that starts the message:
//
//   absl::StatusOr<sator::QueryResult> result = client.Raycast(scene, ray);
//   for (const sator::FieldViolation& v : FieldViolations(result.status())) {
//     std::cerr << v.field << " is wrong: " << v.description << "\n";
//   }
//
// The client keeps every error detail of a status as an absl::Status payload
// keyed by its type URL (`type.googleapis.com/google.rpc.BadRequest`, holding
// the serialized message), so other tooling that reads such payloads works too.
#ifndef SATOR_CLIENT_FIELD_VIOLATIONS_H_
#define SATOR_CLIENT_FIELD_VIOLATIONS_H_

#include <vector>

#include "absl/status/status.h"
#include "sator/core/field_status.h"

namespace sator {

// The field violations of `status`'s BadRequest; empty when it has none (an
// OK status, another code, or an error not about a field). The client's own
// refusals, made before anything is sent, name their field the same way.
std::vector<FieldViolation> FieldViolations(const absl::Status& status);

}  // namespace sator

#endif  // SATOR_CLIENT_FIELD_VIOLATIONS_H_
