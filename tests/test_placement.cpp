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

TEST(Placement, LabelsNameThePhysicalGpuOnlyWhereIndicesWouldMislead) {
  // one host, one GPU each by index: "gpu0 gpu1"; two hosts: the host in front
  EXPECT_EQ(gpu_labels({{"a", 0, "a/0000:19:00.0"}, {"a", 1, "a/0000:3b:00.0"}}),
            (std::vector<std::string>{"gpu0", "gpu1"}));
  EXPECT_EQ(gpu_labels({{"a", 0, "a/0000:19:00.0"}, {"b", 0, "b/0000:19:00.0"}}),
            (std::vector<std::string>{"a/gpu0", "b/gpu0"}));
  // per-rank binding: both are device 0 on different GPUs, so "gpu0 gpu0" would read as a shared GPU
  EXPECT_EQ(gpu_labels({{"a", 0, "a/0000:06.0"}, {"a", 0, "a/0000:07.0"}}),
            (std::vector<std::string>{"a/0000:06.0", "a/0000:07.0"}));
  // two ranks on one GPU keep their equal labels, and host ranks have none
  EXPECT_EQ(gpu_labels({{"a", 0, "a/0000:06.0"}, {"a", 0, "a/0000:06.0"}, {"a", -1, ""}}),
            (std::vector<std::string>{"gpu0", "gpu0", ""}));
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
