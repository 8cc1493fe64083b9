// The runtime state as symcoll_init leaves it for PE 0 of 2, faked on the CPU: a heap of host
// memory with the real allocator and two live allocations, WORLD as a team, a team this PE
// is not a member of, and a bootstrap whose exchanges see every PE agree with this
// one. Argument checks run against it without a GPU. PE 1's heap lies one stride above (part
// of the same host buffer), so even a wrong address computed from it stays in memory we own.
// Teams have no P2P path (topo class NO_P2P) and no PE is load/store reachable, so a call that
// passes every check stops with UNSUPPORTED before it launches anything.
#ifndef SYMCOLL_FAKE_RUNTIME_H
#define SYMCOLL_FAKE_RUNTIME_H

#include <cstring>
#include <vector>
#include "heap.h"
#include "internal.h"

namespace fake_runtime {

constexpr size_t kHeapBytes = 1 << 20, kAllocBytes = 4096;
constexpr symcoll_team_t kOtherTeam = 5; // a team of PE 1 alone

class Runtime {
  public:
    std::vector<char> memory = std::vector<char>(2 * kHeapBytes);
    symcoll_heap_t heap{};
    symcoll_bootstrap_t boot{};
    symcoll_timeout_record_t records[SYMCOLL_MAX_TEAMS]{};
    char *a = nullptr, *b = nullptr; // two live allocations of kAllocBytes
    char outside[512]{};             // memory of this PE outside the heap

    Runtime() {
        saved_ = symcoll_g;
        heap.base = memory.data();
        heap.size = kHeapBytes;
        heap.stride = kHeapBytes;
        symcoll_allocator_init(&heap.allocator, kHeapBytes, 256);
        size_t off_a = 0, off_b = 0;
        symcoll_allocator_alloc(&heap.allocator, kAllocBytes, &off_a);
        symcoll_allocator_alloc(&heap.allocator, kAllocBytes, &off_b);
        a = memory.data() + off_a;
        b = memory.data() + off_b;
        boot.name = "fake";
        boot.rank = 0;
        boot.size = 2;
        boot.allgather = allgather;
        boot.barrier = barrier;
        std::memset(&symcoll_g, 0, sizeof symcoll_g);
        symcoll_g.initialized = true;
        symcoll_g.my_pe = 0;
        symcoll_g.n_pes = 2;
        symcoll_g.local_rank = 0;
        symcoll_g.local_size = 2;
        symcoll_g.heap = &heap;
        symcoll_g.heap_base = heap.base;
        symcoll_g.heap_size = heap.size;
        symcoll_g.heap_stride = heap.stride;
        symcoll_g.boot = &boot;
        add_team(SYMCOLL_TEAM_WORLD, 0, 2, 0);
        add_team(kOtherTeam, 1, 1, -1);
    }
    ~Runtime() {
        symcoll_allocator_destroy(&heap.allocator);
        symcoll_g = saved_;
    }
    Runtime(const Runtime &) = delete;
    Runtime &operator=(const Runtime &) = delete;

    void add_team(symcoll_team_t handle, int start, int size, int my_pe) {
        symcoll_team_state_t &t = symcoll_g.teams[handle];
        t = symcoll_team_state_t{};
        t.in_use = true;
        t.handle = handle;
        t.start = start;
        t.stride = 1;
        t.size = size;
        t.my_pe = my_pe;
        t.sync = a; // any address: only copied into device handles
        t.record = t.record_device = &records[handle];
        t.topo_class = TOPO_NO_P2P;
    }

  private:
    symcoll_state_t saved_;

    static symcoll_status_t allgather(symcoll_bootstrap_t *b, const void *mine, void *all,
                                      size_t bytes) {
        for (int pe = 0; pe < b->size; pe++)
            std::memcpy(static_cast<char *>(all) + pe * bytes, mine, bytes);
        return SYMCOLL_SUCCESS;
    }
    static symcoll_status_t barrier(symcoll_bootstrap_t *) {
        return SYMCOLL_SUCCESS;
    }
};

} // namespace fake_runtime

#endif
