/* The host-emulation launcher (see cuda_emu.h) and the kernel registry.
 *
 * Built by src/cuda/emu/build.py together with the kernel sources into one
 * shared library with a C entry point:
 *
 *   int emu_launch(const char *name, const unsigned grid[3], const unsigned block[3],
 *                  void **args)
 *
 * args[i] points at the i-th kernel argument (CUDA's kernelParams
 * convention), so Python passes the same arguments as to a real launch.
 * Returns 0, or -1 for an unknown kernel name. Launches are serialised. */
#include <barrier>
#include <cstring>
#include <mutex>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "../cuda_prelude.cuh"
#include "../crlibm.cu"
#include "../reproblas.cu"

thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;

namespace {

std::barrier<> *block_barrier; /* the running block's; one launch at a time */
std::mutex launch_lock, atomic_lock;

/* Calls kernel(*(A0 *)args[0], *(A1 *)args[1], ...). */
template <class... A, std::size_t... I>
void invoke(void (*kernel)(A...), void **args, std::index_sequence<I...>) {
  kernel(*static_cast<A *>(args[I])...);
}

struct Entry {
  const char *name;
  void (*run)(void *kernel, void **args);
  void *kernel;
};

template <class... A>
Entry entry(const char *name, void (*kernel)(A...)) {
  auto run = [](void *k, void **args) {
    invoke(reinterpret_cast<void (*)(A...)>(k), args, std::index_sequence_for<A...>{});
  };
  return Entry{name, run, reinterpret_cast<void *>(kernel)};
}

#define EMU_ENTRY(name, ...) entry(#name, name),
const std::vector<Entry> registry = {
#define CR_FUNCTION(fn, ...) entry("cr_" #fn "_f32", cr_##fn##_f32),
#include "crlibm/functions.def"
#undef CR_FUNCTION
    RB_KERNEL_LIST(EMU_ENTRY)};

}  // namespace

void __syncthreads(void) { block_barrier->arrive_and_wait(); }

unsigned long long atomicMin(unsigned long long *p, unsigned long long v) {
  std::lock_guard<std::mutex> g(atomic_lock);
  unsigned long long old = *p;
  if (v < old) *p = v;
  return old;
}

int atomicOr(int *p, int v) {
  std::lock_guard<std::mutex> g(atomic_lock);
  int old = *p;
  *p = old | v;
  return old;
}

extern "C" int emu_launch(const char *name, const unsigned grid[3], const unsigned block[3],
                          void **args) {
  const Entry *e = nullptr;
  for (const Entry &r : registry)
    if (std::strcmp(r.name, name) == 0) e = &r;
  if (!e) return -1;
  std::lock_guard<std::mutex> g(launch_lock);
  const dim3 gd{grid[0], grid[1], grid[2]}, bd{block[0], block[1], block[2]};
  const unsigned nthreads = bd.x * bd.y * bd.z;
  std::barrier<> barrier(nthreads);
  block_barrier = &barrier;
  /* Thread t plays threadIdx t in every block, blocks in order; the barrier
   * at the end of a block keeps blocks (and their __shared__ data) apart. */
  auto worker = [&](unsigned t) {
    blockDim = bd;
    gridDim = gd;
    threadIdx = dim3{t % bd.x, t / bd.x % bd.y, t / (bd.x * bd.y)};
    for (unsigned z = 0; z < gd.z; ++z)
      for (unsigned y = 0; y < gd.y; ++y)
        for (unsigned x = 0; x < gd.x; ++x) {
          blockIdx = dim3{x, y, z};
          e->run(e->kernel, args);
          barrier.arrive_and_wait();
        }
  };
  std::vector<std::thread> threads;
  threads.reserve(nthreads);
  for (unsigned t = 0; t < nthreads; ++t) threads.emplace_back(worker, t);
  for (std::thread &th : threads) th.join();
  return 0;
}
