// The client's verdict names against the wire's enumerations: each name is
// the sator.v1 value's name without its prefix, in lower case.
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "sator/client/types.h"
#include "sator/v1/shot.pb.h"

namespace sator {
namespace {

std::string WireName(const google::protobuf::EnumDescriptor& descriptor,
                     int value, absl::string_view prefix) {
  const google::protobuf::EnumValueDescriptor* found =
      descriptor.FindValueByNumber(value);
  if (found == nullptr) return "";
  return absl::AsciiStrToLower(absl::StripPrefix(found->name(), prefix));
}

TEST(ShotNames, EveryReasonIsNamedAsTheWireNamesIt) {
  const google::protobuf::EnumDescriptor& reasons =
      *sator::v1::ShotReason_descriptor();
  ASSERT_EQ(reasons.value_count(), 14);
  for (int value = 0; value < reasons.value_count(); ++value) {
    EXPECT_EQ(ShotReasonName(static_cast<ShotReason>(value)),
              WireName(reasons, value, "SHOT_REASON_"))
        << value;
  }
  EXPECT_EQ(ShotReasonName(static_cast<ShotReason>(14)), "unspecified");
}

TEST(ShotNames, EveryOutcomeIsNamedAsTheWireNamesIt) {
  const google::protobuf::EnumDescriptor& outcomes =
      *sator::v1::ShotOutcome_descriptor();
  ASSERT_EQ(outcomes.value_count(), 4);
  for (int value = 0; value < outcomes.value_count(); ++value) {
    EXPECT_EQ(ShotOutcomeName(static_cast<ShotOutcome>(value)),
              WireName(outcomes, value, "SHOT_OUTCOME_"))
        << value;
  }
  EXPECT_EQ(ShotOutcomeName(static_cast<ShotOutcome>(4)), "unspecified");
}

}  // namespace
}  // namespace sator
