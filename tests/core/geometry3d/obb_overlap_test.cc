// OverlapObbObb (boxes with precomputed world axes) against analytic cases
// and against the pose form OverlapBoxBox and the MTV on many seeded random
// pairs.
#include <cmath>
#include <numbers>

#include "gtest/gtest.h"
#include "sator/core/geometry3d/contact3d.h"
#include "sator/core/geometry3d/overlap3d.h"
#include "test_shapes3d.h"

namespace sator {
namespace {

using testing::ShapeFactory;

// Two unit cubes (half extent 1) along x: they touch at a distance of 2 and
// are apart beyond it.
TEST(ObbOverlapTest, FaceToFace) {
  const Box3 cube{{1, 1, 1}};
  const Obb3 a = MakeObb(cube, {{0, 0, 0}, {}});
  EXPECT_TRUE(OverlapObbObb(a, MakeObb(cube, {{1.5f, 0, 0}, {}})));
  EXPECT_TRUE(OverlapObbObb(a, MakeObb(cube, {{2.0f, 0, 0}, {}})));
  EXPECT_FALSE(OverlapObbObb(a, MakeObb(cube, {{2.01f, 0, 0}, {}})));
}

// B is the unit cube turned 45 degrees about z: its corner points along x,
// at sqrt(2) from its centre, so the boxes touch at x = 1 + sqrt(2).
TEST(ObbOverlapTest, RotatedAlongFaceAxis) {
  const Box3 cube{{1, 1, 1}};
  const float s2 = std::numbers::sqrt2_v<float>;
  const Quat about_z = Quat::FromAxisAngle({0, 0, 1}, 0.25f * 3.14159265f);
  const Obb3 a = MakeObb(cube, {{0, 0, 0}, {}});
  EXPECT_TRUE(
      OverlapObbObb(a, MakeObb(cube, {{1.0f + s2 - 0.01f, 0, 0}, about_z})));
  EXPECT_FALSE(
      OverlapObbObb(a, MakeObb(cube, {{1.0f + s2 + 0.01f, 0, 0}, about_z})));
}

// Random pairs: the OBB form, the pose form and the MTV's sign (whose
// exactness the property tests check on their own) agree away from touching.
TEST(ObbOverlapTest, AgreesWithPoseFormAndMtvOnRandomPairs) {
  ShapeFactory f(9001u);
  int overlapping = 0;
  int disagreements = 0;
  for (int i = 0; i < 100000; ++i) {
    const Box3 a{{f.U(0.1f, 1.5f), f.U(0.1f, 1.5f), f.U(0.1f, 1.5f)}};
    const Box3 b{{f.U(0.1f, 1.5f), f.U(0.1f, 1.5f), f.U(0.1f, 1.5f)}};
    const Pose3 pa = f.RandomPose(1.5f);
    const Pose3 pb = f.RandomPose(1.5f);
    const bool obb = OverlapObbObb(MakeObb(a, pa), MakeObb(b, pb));
    const bool pose = OverlapBoxBox(a, b, MulT(pa, pb));
    const ContactResult<3> c = ContactBoxBox(a, b, MulT(pa, pb));
    overlapping += obb;
    // Away from touching (|depth| above round-off) all three agree.
    if (std::fabs(c.depth) > 1e-4f && (obb != pose || obb != c.overlapping)) {
      ++disagreements;
      if (disagreements <= 5) {
        ADD_FAILURE() << "case " << i << ": obb " << obb << " pose " << pose
                      << " depth " << c.depth;
      }
    }
  }
  EXPECT_EQ(disagreements, 0);
  // The generator gives both outcomes in bulk.
  EXPECT_GT(overlapping, 20000);
  EXPECT_LT(overlapping, 80000);
}

}  // namespace
}  // namespace sator
