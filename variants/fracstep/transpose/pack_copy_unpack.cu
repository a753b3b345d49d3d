// fracstep/transpose_zx/pack_copy_unpack and fracstep/transpose_xz/pack_copy_unpack: V1's global transpose
// on p virtual ranks of one GPU, as a rank of the paper's baseline does it (notes Sec. 6.3: pack, all-to-all,
// unpack), each phase a section of the call's timer:
//   z -> x  pack:       each z-slab s gathers its columns of every x-slab d into its send buffer, the blocks
//                       contiguous in destination order (transpose_blocks.cuh); its own block (s, s) straight
//                       into its place in x-slab s (a rank sends nothing to itself)
//           all_to_all: p (p - 1) device copies, block (s, d) from s's send buffer to its place in x-slab d
//                       (the x-slabs keep x fastest, so a received block is already in place: no unpack)
//   x -> z  all_to_all: block (s, r) leaves x-slab r from its place (contiguous there) for z-slab s's
//                       receive buffer; unpack: s scatters the blocks (its own from x-slab s) into its rows
// What is a rank's: the local pass of a rank's blocks (p launches, one a block). What is not: the copies
// stand for the messages between ranks; a study replaces them by the link model.
#include "transpose/transpose_blocks.cuh"

namespace nsb {
namespace {

template <class T>
void z_to_x(const TransposeCall<T>& c, cudaStream_t stream) {
  const TransposeShape& s = c.shape;
  const int threads = transpose_threads(c);
  {
    TransposeSection section(c.timer, kTransposePack);
    for (int src = 0; src < s.p; ++src)
      for (int d = 0; d < s.p; ++d)  // the own block straight into place
        transpose_block(true, s, src, d, compact_z_slab(s, const_cast<T*>(c.from) + s.zslab_offset(src)),
                        d == src ? c.to + s.xslab_offset(d) + s.xslab_block_offset(src, d)
                                 : c.buffer + s.zslab_offset(src) + s.send_offset(src, d),
                        threads, stream);
  }
  TransposeSection section(c.timer, kTransposeAllToAll);
  for (int src = 0; src < s.p; ++src)
    for (int d = 0; d < s.p; ++d)
      if (d != src) NSB_CUDA(cudaMemcpyAsync(c.to + s.xslab_offset(d) + s.xslab_block_offset(src, d),
                               c.buffer + s.zslab_offset(src) + s.send_offset(src, d), s.block_words(src, d) * sizeof(T),
                               cudaMemcpyDeviceToDevice, stream));
}

template <class T>
void x_to_z(const TransposeCall<T>& c, cudaStream_t stream) {
  const TransposeShape& s = c.shape;
  {
    TransposeSection section(c.timer, kTransposeAllToAll);
    for (int r = 0; r < s.p; ++r)  // x-slab r sends block (dst, r) to z-slab dst
      for (int dst = 0; dst < s.p; ++dst)
        if (dst != r) NSB_CUDA(cudaMemcpyAsync(c.buffer + s.zslab_offset(dst) + s.send_offset(dst, r),
                                 c.from + s.xslab_offset(r) + s.xslab_block_offset(dst, r),
                                 s.block_words(dst, r) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
  }
  TransposeSection section(c.timer, kTransposeUnpack);
  for (int dst = 0; dst < s.p; ++dst)
    for (int r = 0; r < s.p; ++r)  // the own block straight from its place
      transpose_block(false, s, dst, r, compact_z_slab(s, c.to + s.zslab_offset(dst)),
                      r == dst ? const_cast<T*>(c.from) + s.xslab_offset(r) + s.xslab_block_offset(dst, r)
                               : c.buffer + s.zslab_offset(dst) + s.send_offset(dst, r),
                      transpose_threads(c), stream);
}

template <class T>
void run(const TransposeCall<T>& c) {
  check_transpose_shape(c.shape);
  const auto stream = static_cast<cudaStream_t>(c.exec.stream);
  if (c.direction == TransposeDirection::z_to_x) z_to_x(c, stream);
  else x_to_z(c, stream);
}

Variant pack_copy_unpack(const char* stage) {
  Variant v;
  v.stage = stage;
  v.name = "pack_copy_unpack";
  v.backend = Backend::cuda;
  v.tags = {{"memory", "global"}, {"mapping", "virtual_ranks"}};
  v.tunings = {parse_tuning("b256"), parse_tuning("b128")};
  v.status = "V1's baseline on p virtual ranks of one GPU: a rank's local pass (pack or unpack) measured, the all-to-all "
             "as device copies (a study models the links)";
  v.run_float = &run<float>;
  v.run_double = &run<double>;
  v.kernels = transpose_kernels();
  return v;
}
const Registrar zx{pack_copy_unpack("fracstep/transpose_zx")};
const Registrar xz{pack_copy_unpack("fracstep/transpose_xz")};

}  // namespace
}  // namespace nsb
