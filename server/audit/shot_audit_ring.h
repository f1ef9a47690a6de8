// One scene's audit trail of shot verdicts: a SequencedRing of records.
#ifndef SATOR_SERVER_AUDIT_SHOT_AUDIT_RING_H_
#define SATOR_SERVER_AUDIT_SHOT_AUDIT_RING_H_

#include "sator/v1/shot_audit.pb.h"
#include "server/streams/sequenced_ring.h"

namespace sator::server {

using ShotAuditRing = SequencedRing<sator::v1::ShotVerdictRecord>;
using ShotAuditSubscriber = RingSubscriber;

}  // namespace sator::server

#endif  // SATOR_SERVER_AUDIT_SHOT_AUDIT_RING_H_
