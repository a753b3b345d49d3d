// The Poisson family: how a solver's pressure (or stream-function) equation is solved, shared by the
// solvers. A method is stateful (its workspaces and plans live as long as the solver: CG's residual
// and search vectors, multigrid's coarse grids, FFT plans) and is built once per solver from the
// family's registry; every step the solver asks it to solve its system.
//
// A method sees the solver's equation two ways, through the PoissonSystem the solver implements:
//  - the solver's own sweep stage (a Jacobi sweep with its ghost exchange, the residual and the ghost
//    rule): Jacobi works through it, on one rank or many;
//  - the equation itself (PoissonEquation: grid, faces, solution and right-hand side arrays, where
//    they live): methods with kernels of their own (red-black SOR, CG, multigrid, FFT) work on it.
//
// The discrete equation, on the cell-centred unknowns of a Grid (one ghost layer, grid.hpp):
//   (p[i-1] - 2 p[i] + p[i+1]) / dx^2 + (same in y) / dy^2 + (same in z) / dz^2 = rhs_scale * rhs[i]
// with homogeneous conditions written into the ghost layer, face by face:
//   neumann    ghost = the interior neighbour        (dp/dn = 0 at the face)
//   dirichlet  ghost = - the interior neighbour      (p = 0 at the face, between the two)
//   periodic   ghost = the interior value on the opposite side
// Where no face is dirichlet the solution is defined up to a constant (PoissonFaces::singular): every
// method with kernels of its own then removes the right-hand side's interior mean before solving and
// sets the solution's interior mean to zero on return (the family's null-space rule, tested per
// method); Jacobi sweeps through the solver's own stage, whose ghost rule leaves the level free.
//
// Methods: jacobi (Thibault 2009: a fixed count of sweeps, or sweeps until the residual falls below a
// tolerance), rbsor (red-black SOR), cg and pcg (conjugate gradients, plain or with the Jacobi
// preconditioner; iterative.hpp, stage_call.hpp), mg / mg_f / mg_wj / mg_f_wj (geometric multigrid,
// multigrid.hpp), fft and fft2_tridiag (direct solves with cuFFT, fft_solve.hpp).
#pragma once

#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "grid.hpp"
#include "option_choices.hpp"
#include "stage.hpp"
#include "timer.hpp"

namespace nsb {

enum class PoissonFace : int { neumann = 0, dirichlet = 1, periodic = 2 };
const char* poisson_face_name(PoissonFace f);

struct PoissonFaces {
  PoissonFace face[3][2] = {{PoissonFace::neumann, PoissonFace::neumann},
                            {PoissonFace::neumann, PoissonFace::neumann},
                            {PoissonFace::neumann, PoissonFace::neumann}};  // [axis x,y,z][low, high]
  // True when no face fixes the level: the solution is defined up to a constant and the right-hand
  // side must sum to zero.
  bool singular() const {
    for (const auto& axis : face)
      for (PoissonFace f : axis)
        if (f == PoissonFace::dirichlet) return false;
    return true;
  }
};

// Sections a caller times inside a solve (fracstep: the paper's FFT and TDMA-C components, notes Sec.
// 6.3): the transforms (with the pack, unpack and ghost passes) and the tridiagonal y solve (fft: the
// division). No timer: untimed.
struct SolvePhases {
  SectionTimer* timer = nullptr;
  int transforms = -1, tridiagonal = -1;
  // fft2_tridiag with its y lines split over virtual ranks: >= 0 runs the split rank by rank, phase by
  // phase (tridiag/split_phases.hpp), rank r's phase q timed as section rank_phases + r * 5 + q; -1:
  // every line split in one pass (split_line_solve), untimed inside.
  int rank_phases = -1;
  void begin(int section) const {
    if (timer) timer->begin(section);
  }
  void end(int section) const {
    if (timer) timer->end(section);
  }
};

class Communicator;
template <class T>
struct SplitMessages;
class SplitOverlap;

// fft2_tridiag on a real y-slab rank (fracstep V2 on --ranks P, host arrays): the rank holds rows
// [first_row, first_row + grid.ny) of a y axis of `rows` cells, cut as the split y solves cut it
// (pdd_block_start); its x and z transforms are its own, its y lines' blocks are solved with the other
// ranks' (split_solve_rank, the messages through comm) and the null-space line's mean and level are
// taken over the whole line (its rows gathered). comm null: not a real rank.
struct PoissonYSlab {
  Communicator* comm = nullptr;
  int rank = 0;
  int first_row = 0;
  int rows = 0;   // the whole y's cells
  double h = 0;   // the whole y's uniform step (ly / rows), where y_faces is null
  // A GPU rank's messages of its split y solves where the caller provides them (fracstep: its ADI-Y's,
  // peer copies or NCCL), in the solve's precision; null: the GPU variant makes peer copies of its own.
  SplitMessages<float>* messages_float = nullptr;
  SplitMessages<double>* messages_double = nullptr;
  // V2-async (fracstep): the y lines by split_solve_rank_pipelined in `batches` batches, the messages above
  // on the message stream that `overlap` orders against the solve's stream; null: split_solve_rank.
  SplitOverlap* overlap = nullptr;
  int batches = 1;
};
// fft2_tridiag on a real z-slab rank (fracstep V1, "V1 on real ranks (host)" and "(GPU)"): the equation's grid
// is the rank's planes [first_plane, first_plane + its nz) of `planes` (z periodic, a ghost layer); the
// solve transforms x on the z-slab, moves the spectral field to the rank's x-slab (V1's all-to-all P1: host
// arrays through comm, transpose/transpose_ranks_host.hpp; GPU arrays by peer copies between the threads
// driver's GPUs, variants/poisson/fft/spectral_z_slab.cuh), transforms z, solves the y lines and transforms z
// back there, and returns it (P4) for the inverse x transform. dz: the whole z's step (the rank's grid's lz / nz may differ
// from it in the last bit).
struct PoissonZSlab {
  Communicator* comm = nullptr;
  int rank = 0;
  int planes = 0;
  int first_plane = 0;
  double dz = 0;
  int all_to_all = -1;  // the section of phases.timer its two transposes are timed in (-1: untimed)
};

template <class T>
void set_y_messages(PoissonYSlab& s, SplitMessages<T>* m) {
  if constexpr (sizeof(T) == sizeof(float)) s.messages_float = m;
  else s.messages_double = m;
}
template <class T>
SplitMessages<T>* y_messages(const PoissonYSlab& s) {
  if constexpr (sizeof(T) == sizeof(float)) return s.messages_float;
  else return s.messages_double;
}

// What a method that solves on a rank's slab of a z-slab decomposition (cg, pcg) asks of the solver that
// owns the ranks: sums over every rank (the dot products) and the exchange of a vector's cut ghost planes.
// A cut z face is handed to the method as periodic (its ghosts read as interior neighbours: the
// operator's and the diagonal's interior rows; ghost writes there are then overwritten by exchange()).
template <class T>
class PoissonRanks {
 public:
  virtual ~PoissonRanks() = default;
  // The arrays exchange() will be given, the same on every rank (called once, by every rank).
  virtual void attach(const std::vector<T*>& vectors) = 0;
  virtual void exchange(T* vector) = 0;   // its cut ghost planes from the neighbours' edge planes
  virtual double sum(double x) = 0;       // over the ranks, in rank order
  // The sums over the ranks of slots[0..n) (GPU memory, written by work queued on the equation's stream),
  // in place, on the GPU and ordered on that stream, with no host wait, added as sum() adds; false where
  // this solver's ranks cannot (a CPU run, the MPI driver, no peer access, or the host path forced): the
  // method then reads the slots back and calls sum().
  virtual bool sum_on_device(double* slots, int n) {
    (void)slots, (void)n;
    return false;
  }
  virtual double global_points() const = 0;  // interior cells of the whole grid
};

// The equation a solver hands a method (pointers into the solver's own fields, on its backend).
template <class T>
struct PoissonEquation {
  Grid grid;                // the unknowns: grid's interior cells
  PoissonFaces faces;       // homogeneous conditions on the six faces
  T* p = nullptr;           // initial guess in, solution out, its ghost layer set by the faces on return
  const T* rhs = nullptr;   // right-hand side, padded layout, interior read
  T rhs_scale = 1;          // the equation's right-hand side is rhs_scale * rhs
  Exec exec;                // backend, threads, stream, reduction scratch
  bool decomposed = false;  // a rank's slab of a larger grid: a method without rank support refuses it
  PoissonRanks<T>* ranks = nullptr;  // with decomposed: the other ranks, for the methods that support them
  // A stretched y: the ny + 1 face positions (host memory, the solver's). Only fft2_tridiag reads them
  // (fft refuses them); the solvers that set them (fracstep) allow no other method.
  const double* y_faces = nullptr;
  // fft2_tridiag only: its y lines split over virtual y-ranks, the interfaces by PPT (exact) or PDD
  // (fracstep V2, emulated on one device), and the sections it times inside (transforms, y solve).
  int y_ranks = 1;
  bool y_exact = true;
  // ... split, rank by rank: each line's v, w, c' computed once and kept (its matrix is constant: fracstep's
  // split_factors=shared), the local phase then a sweep of x alone; false: every solve's every line (the paper's).
  bool y_factors_shared = false;
  SolvePhases phases;
  PoissonYSlab y_slab;  // fft2_tridiag on a real y-slab rank (y_ranks of them)
  PoissonZSlab z_slab;  // fft2_tridiag on a real z-slab rank, host or GPU (fracstep V1)
};

// The iterative methods' default check interval (jacobi, rbsor, cg, pcg): a check reads a residual back,
// which costs about a sweep and a host synchronisation. Multigrid checks every cycle (multigrid.hpp).
inline constexpr int kIterativeCheckEvery = 10;

struct PoissonSettings {
  int iterations = 20;     // sweeps (iterations, cycles) per solve, or the cap with a tolerance
  double tolerance = 0;    // > 0: iterate until RMS residual <= tolerance * RMS(right-hand side)
  int check_every = 0;     // iterations between residual checks in tolerance mode; 0: the method's default
  int check_interval(int method_default) const { return check_every > 0 ? check_every : method_default; }
  // Kernel choices of the family's own stages, "poisson/<stage>" -> "variant[:tuning]" (from a recipe
  // or --stage); a stage left out takes its kind's default for the backend.
  std::map<std::string, std::string> kernels;
  // Record (iteration, seconds since the solve began, relative residual) at every check: the residual
  // against wall time. Each point is taken after the check's read-back, so the clock includes the
  // checks' synchronisation (rbsor, cg, pcg record it).
  bool record_history = false;
  // The method's own options: what follows ':' in its name (--poisson mg_graph:pre2_post1_w115). A method
  // that declares none (PoissonMethodInfo::options) is refused any.
  std::string options;
};

struct PoissonHistoryPoint {
  int iteration = 0;
  double seconds = 0;
  double relative_residual = 0;
};

struct PoissonReport {
  int iterations = 0;
  double absolute_residual = 0;  // RMS of the last residual checked (0 without a tolerance)
  double relative_residual = 0;  // ... over RMS(right-hand side)
  std::vector<PoissonHistoryPoint> history;     // with PoissonSettings::record_history
  std::map<std::string, std::string> kernels;   // the family's stages the method ran: id -> variant:tuning
};

// What a method may ask of the solver that owns the equation.
template <class T>
class PoissonSystem {
 public:
  virtual ~PoissonSystem() = default;
  // One Jacobi sweep p -> p_new of the solver's sweep stage, ghost planes exchanged between ranks.
  virtual void sweep() = 0;
  // RMS over the whole grid of the residual of the last sweep's input, read from p_new - p
  // (synchronises: a reduction read back to the host).
  virtual double sweep_residual_rms() = 0;
  // RMS over the whole grid of the right-hand side (synchronises).
  virtual double rhs_rms() = 0;
  // p <- p_new, and the ghost rule of p.
  virtual void accept_sweep() = 0;
  // The equation itself, for methods with kernels of their own.
  virtual PoissonEquation<T> equation() = 0;
};

// A solver's pressure equation with no sweep stage of its own, for the methods that work on the equation alone
// (FFT, CG, multigrid): a method that sweeps through the solver's stage (jacobi, rbsor) is refused with `why`.
template <class T>
class EquationOnlySystem final : public PoissonSystem<T> {
 public:
  EquationOnlySystem(PoissonEquation<T> e, const char* why) : eq_(e), why_(why) {}
  void sweep() override { refuse(); }
  double sweep_residual_rms() override { return refuse(); }
  double rhs_rms() override { return refuse(); }
  void accept_sweep() override { refuse(); }
  PoissonEquation<T> equation() override { return eq_; }

 private:
  double refuse() const { throw std::runtime_error(why_); }
  PoissonEquation<T> eq_;
  const char* why_;
};

template <class T>
class PoissonMethod {
 public:
  virtual ~PoissonMethod() = default;
  virtual PoissonReport solve(PoissonSystem<T>& system) = 0;
};

template <class T>
using PoissonMethodFactory = std::unique_ptr<PoissonMethod<T>> (*)(const PoissonSettings&);

struct PoissonMethodInfo {
  PoissonMethodInfo(std::string n, std::string d, PoissonMethodFactory<float> f, PoissonMethodFactory<double> dd,
                    double arrays = 0, std::string opts = {})
      : name(std::move(n)), description(std::move(d)), make_float(f), make_double(dd), work_arrays(arrays),
        options(std::move(opts)) {}
  std::string name;
  std::string description;
  PoissonMethodFactory<float> make_float;
  PoissonMethodFactory<double> make_double;
  // The method's device workspace, in arrays of the equation's padded size (an upper estimate: the run
  // checks the free memory against it before anything is allocated, so a grid too large fails at once).
  double work_arrays = 0;
  // The options the method takes after ':' in its name, for help texts; empty: none.
  std::string options;
};

// The family's methods, by name ("name" or "name:options"). A method registers itself from its own source file.
std::vector<PoissonMethodInfo>& poisson_methods();
struct PoissonMethodRegistrar {
  explicit PoissonMethodRegistrar(PoissonMethodInfo m) {
    option_choices("poisson").push_back(m.name);  // --poisson's help and `nsbench list --json` read them there
    poisson_methods().push_back(std::move(m));
  }
};
// The registered methods' names, space-separated (for help texts and messages).
std::string poisson_method_names();
// A method's PoissonMethodInfo::work_arrays (0 for an unknown name: the solve refuses it by name).
double poisson_method_work_arrays(const std::string& name);
// Device memory a kernel of the family's stages allocates and keeps itself (a library's copy of the
// operator, compact vectors), in bytes per interior point of its call's grid, {float, double}; registered
// from the variant's own file, so that the memory check of a run that chooses it counts it. Kernels that
// share one allocation name the same pool: a run choosing several of them counts the pool once (its
// largest declaration).
struct PoissonKernelWorkspace {
  std::string stage;    // "poisson/apply_dot"
  std::string variant;  // "csr_cusparse"
  double per_point[2] = {0, 0};
  std::string pool;     // "" (its own memory) or the shared allocation's name ("cublas_dots")
};
std::vector<PoissonKernelWorkspace>& poisson_kernel_workspaces();
struct PoissonKernelWorkspaceRegistrar {
  explicit PoissonKernelWorkspaceRegistrar(PoissonKernelWorkspace w) { poisson_kernel_workspaces().push_back(std::move(w)); }
};
// What the chosen kernels ("poisson/<stage>" -> "variant[:tuning]", PoissonSettings::kernels) keep on grid
// g in a precision of value_bytes.
double poisson_kernels_workspace_bytes(const std::map<std::string, std::string>& kernels, const Grid& g, int value_bytes);
// Throws std::runtime_error naming the known methods for an unknown name, and for options given to a
// method that takes none.
template <class T>
std::unique_ptr<PoissonMethod<T>> make_poisson_method(const std::string& name, const PoissonSettings& s);

}  // namespace nsb
