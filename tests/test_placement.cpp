// Ranks are placed by host and physical GPU, never by device index (harness/placement.hpp): the rule that
// decides "oversubscribed" and refuses NCCL on a shared GPU must hold across nodes and under per-rank binding.
#include <gtest/gtest.h>

#include <omp.h>

#include <memory>

#include "comm.hpp"
#include "placement.hpp"

namespace nsb {
namespace {

TEST(Placement, TwoNodesWithTheSameDeviceIndexShareNoGpu) {
  // rank 0 and the first rank of the second node are both device 0
  const std::vector<RankPlacement> p = {{"a", 0, "a/0000:19:00.0"}, {"a", 1, "a/0000:3b:00.0"},
                                        {"b", 0, "b/0000:19:00.0"}, {"b", 1, "b/0000:3b:00.0"}};
  EXPECT_EQ(ranks_sharing_a_gpu(p), std::make_pair(-1, -1));
  EXPECT_EQ(host_count(p), 2);
}

TEST(Placement, PerRankBindingMakesEveryRankDeviceZeroOnDistinctGpus) {
  // srun --gpus-per-task=1 or a CUDA_VISIBLE_DEVICES per rank: each process sees its own GPU as device 0
  const std::vector<RankPlacement> p = {{"a", 0, "a/0000:19:00.0"}, {"a", 0, "a/0000:3b:00.0"}};
  EXPECT_EQ(ranks_sharing_a_gpu(p), std::make_pair(-1, -1));
}

TEST(Placement, TwoRanksOnOnePhysicalGpuAreNamed) {
  const std::vector<RankPlacement> p = {{"a", 0, "a/0000:19:00.0"}, {"a", 1, "a/0000:3b:00.0"},
                                        {"a", 0, "a/0000:19:00.0"}};
  EXPECT_EQ(ranks_sharing_a_gpu(p), std::make_pair(0, 2));
}

TEST(Placement, HostRanksShareNoGpu) {
  const std::vector<RankPlacement> p = {{"a", -1, ""}, {"a", -1, ""}};
  EXPECT_EQ(ranks_sharing_a_gpu(p), std::make_pair(-1, -1));
  EXPECT_EQ(host_count(p), 1);
}

TEST(Placement, ThreadRanksGatherEveryRanksHost) {
  constexpr int ranks = 3;
  auto group = std::make_shared<ThreadGroup>(ranks);
  std::vector<std::vector<RankPlacement>> seen(ranks);
#pragma omp parallel num_threads(ranks)
  {
    const int r = omp_get_thread_num();
    ThreadComm comm(group, r);
    seen[std::size_t(r)] = gather_placements(comm, -1);
  }
  for (const auto& all : seen) {
    ASSERT_EQ(all.size(), std::size_t(ranks));
    for (const RankPlacement& p : all) {
      EXPECT_EQ(p.host, kernel_hostname());
      EXPECT_EQ(p.device, -1);
      EXPECT_EQ(p.gpu, "");
    }
  }
}

}  // namespace
}  // namespace nsb
