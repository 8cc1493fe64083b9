/* symcoll halo exchange: the neighbour exchange of a Cartesian decomposition, one fused kernel
 * per call (host API, C11; included by symcoll.h).
 *
 * A plan describes how a team is laid out as a 1-3 dimensional grid of PEs and how each PE's
 * field is laid out: its interior cells, a halo of width[d] cells on both sides of every
 * dimension d, and the pitches. An exchange (one kernel, no host work) moves each PE's
 * boundary cells into its neighbours' halo cells over NVLink. A face of up to
 * SYMCOLL_HALO_LL_BYTES (4 KiB by default) per neighbour (all fields of one call together,
 * both ways), or of up to 4 MiB made of narrow rows (64 bytes or fewer, such as the columns
 * of a field split along x), travels as flagged 16-byte lines (8 bytes of cells each) into a
 * slot of the plan on the neighbour, which copies them into its own halo in the same
 * exchange: one one-way trip, no credit, no fence, no scattered remote stores. A larger face
 * is stored straight into the neighbour's halo cells once the neighbour has entered the
 * exchange (the credit), then one flag per neighbour is set and the neighbours' flags are
 * awaited. A plan holds four times the slot size (SYMCOLL_HALO_LL_BYTES, or the largest
 * narrow face) of symmetric memory per direction it uses (2 to 26).
 *
 * x (dimension 0) varies fastest, in memory and in the numbering of the PEs: team PE r sits
 * at coordinates (r % g0, r / g0 % g1, r / (g0*g1)).
 *
 * Field layout: cell (x, y, z), with 0 <= x < interior[0] + 2 * width[0] etc. and the interior
 * starting at (width[0], width[1], width[2]), is element x + y * pitch[0] + z * pitch[1] of the
 * field. The field is symmetric (symcoll_malloc); the allocation must be the same size on every
 * PE, even where the interiors differ.
 */
#ifndef SYMCOLL_HALO_H
#define SYMCOLL_HALO_H

#include "symcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SYMCOLL_HALO_DESC_VERSION 1
/* Most fields that one exchange_many call moves together. */
#define SYMCOLL_HALO_MAX_FIELDS 8

typedef struct {
    uint32_t version;        /* SYMCOLL_HALO_DESC_VERSION */
    int ndims;               /* 1, 2 or 3; x is the fastest-varying dimension */
    int pe_grid[3];          /* PEs along each dimension, product = team size; 0 = choose */
    int periodic[3];         /* 1: wrap around along a dimension (onto itself with one PE) */
    size_t interior[3];      /* this PE's interior cells along each dimension */
    int width[3];            /* halo cells on each side along each dimension (0: none) */
    size_t pitch[2];         /* elements between rows / planes incl. halos; 0 = dense */
    symcoll_datatype_t type; /* any datatype: elements of 1 to 8 bytes are moved as bytes */
    int corners;             /* 0: faces (5/7-point); 1: faces, edges, corners (9/27-point) */
} symcoll_halo_desc_t;

/* Dimensions from ndims on are ignored (one PE, interior 1, width 0). pe_grid entries that are
 * 0 are chosen as MPI_Dims_create does (as balanced as possible, non-increasing); the others
 * are kept. */

typedef struct symcoll_halo_plan *symcoll_halo_t;

/* Fills *d with defaults: version set, 1 dimension, everything else 0 (float32, no halo). */
SYMCOLL_API void symcoll_halo_desc_default(symcoll_halo_desc_t *d);

/* Creates a plan for team. Collective over WORLD (like symcoll_team_split_strided): every PE
 * calls it; PEs outside the team get a plan on which only symcoll_halo_grid (the team's grid,
 * coordinates -1) and symcoll_halo_destroy are valid. The members must pass the same team.
 * The team's PEs must agree on everything but interior and pitch; neighbouring faces must
 * have the same shape. Errors, on every PE: INVALID_ARGUMENT (names the field, or for a face
 * mismatch the dimension and the two PEs, or for different teams the two PEs and their teams),
 * UNSUPPORTED (a neighbour is neither load/store reachable nor on another node that the proxy
 * reaches), OUT_OF_MEMORY, NOT_INITIALIZED, CUDA. A neighbour on another node gets its faces
 * packed and sent through the proxy, one field after another, around the kernel. */
SYMCOLL_API symcoll_status_t symcoll_halo_create(symcoll_team_t team, const symcoll_halo_desc_t *d,
                                                 symcoll_halo_t *h);

/* One fused kernel: this PE's boundary cells of field go into the neighbours' halo cells, and
 * the call completes (in stream order) once this PE's own halo cells hold the neighbours'
 * boundary cells. Correct for any sequence of fields: a neighbour's halo is written only after
 * that neighbour has reached the same exchange, so it has finished with the previous one (by
 * the neighbour itself, in that exchange, for faces that travel as lines).
 * Graph-capturable; a captured graph replays correctly any number of times. Every team PE
 * makes the same sequence of exchange calls on a plan. Errors: INVALID_ARGUMENT (field not
 * symmetric or too small for the layout, this PE outside the team), NOT_INITIALIZED, TIMEOUT
 * (the team is broken), CUDA. */
SYMCOLL_API symcoll_status_t symcoll_halo_exchange_on_stream(symcoll_halo_t h, void *field,
                                                             cudaStream_t stream);
/* The same for n fields (1 <= n <= SYMCOLL_HALO_MAX_FIELDS) in one kernel: one exchange. The
 * fields must not overlap (INVALID_ARGUMENT): each spans the layout of the team's largest PE. */
SYMCOLL_API symcoll_status_t symcoll_halo_exchange_many_on_stream(symcoll_halo_t h,
                                                                  void *const *fields, int n,
                                                                  cudaStream_t stream);

/* The team PE next to this one along dim (0..2) in direction dir (-1 or +1): itself for a
 * periodic dimension with one PE, -1 at a non-periodic edge or on a bad argument. */
SYMCOLL_API int symcoll_halo_neighbor(symcoll_halo_t h, int dim, int dir);

/* The PE grid the plan uses and this PE's coordinates in it (-1 outside the team). */
SYMCOLL_API symcoll_status_t symcoll_halo_grid(symcoll_halo_t h, int pe_grid[3], int coords[3]);

/* Collective over WORLD: waits for this PE's GPU and releases the plan. NULL is a no-op. */
SYMCOLL_API symcoll_status_t symcoll_halo_destroy(symcoll_halo_t h);

/* ---- device handle (by value to user kernels; see symcoll_halo_device.cuh) ---- */

/* Accesses each thread of a sending block loads before it stores them (all in flight). */
#define SYMCOLL_HALO_DEPTH 4

/* Directions: index (dx + 1) + 3 * (dy + 1) + 9 * (dz + 1) for d in {-1, 0, 1}^3; 13 (no
 * move) is never used. */
#define SYMCOLL_HALO_DIRS 27

/* What this PE sends toward one direction: a box of cells of its interior, stored into the
 * neighbour's halo. Offsets and pitches in bytes; pe -1: nothing to send. */
typedef struct {
    int64_t src_offset, dst_offset; /* first cell here / on the neighbour, from the field base */
    int64_t src_pitch[2];           /* between rows / planes here */
    int64_t dst_pitch[2];           /* on the neighbour */
    uint32_t row_bytes;             /* box extent along x, in bytes */
    uint32_t rows, planes;          /* box extents along y and z */
    int32_t pe;                     /* WORLD PE of the neighbour, -1: none */
    int32_t unit;                   /* widest access (1..16 bytes) offsets and pitches allow */
    int32_t self;                   /* 1: the neighbour is this PE (periodic with one PE) */
} symcoll_halo_msg_t;

/* The layout of symcoll_halo_device_t: a new field or a changed one comes with a new version.
 * A kernel compiled against one version works with a library that fills that version. */
#define SYMCOLL_HALO_DEVICE_HANDLE_VERSION 1

typedef struct {
    uint32_t version;              /* SYMCOLL_HALO_DEVICE_HANDLE_VERSION it was filled for */
    uint32_t size;                 /* sizeof(symcoll_halo_device_t) of that version */
    symcoll_device_t team;         /* the plan's team */
    const symcoll_halo_msg_t *msg; /* SYMCOLL_HALO_DIRS entries (device memory) */
    uint64_t *arrive;              /* symmetric [dir]: the neighbour at dir entered exchange k */
    uint64_t *data;                /* symmetric [dir]: its cells of exchange k are in our halo */
    uint64_t *send_epoch;          /* this PE's [dir]: exchanges sent toward dir */
    uint64_t *recv_epoch;          /* this PE's [dir]: exchanges received from dir */
    uint64_t *sent_blocks;         /* this PE's [dir]: blocks done with the current send */
    uint64_t *sum_epoch;           /* this PE's count of team sums */
    char *sum_slots;               /* symmetric: [team member][2] slots of the team sum */
    uint32_t dirs;                 /* bit d: a message goes toward direction d */
} symcoll_halo_device_t;

/* Fills *out with the handle of plan h for user kernels. version and size are those of the
 * caller's header (SYMCOLL_HALO_DEVICE_HANDLE_VERSION, sizeof(symcoll_halo_device_t)); use
 * symcoll_halo_device_handle below, which passes them. Errors: INVALID_ARGUMENT (out or h
 * NULL, this PE outside the plan's team), UNSUPPORTED (a version or size this library does
 * not fill: rebuild the kernels against the installed headers; a plan with neighbours on
 * other nodes, whose exchanges cannot run inside a kernel). On error *out is zeroed
 * (dirs 0, team.team_size 0). */
SYMCOLL_API symcoll_status_t symcoll_halo_device_handle_get(symcoll_halo_t h, uint32_t version,
                                                            size_t size,
                                                            symcoll_halo_device_t *out);

/* Handle of plan h for user kernels (by value), checked against this header's version. On
 * error the handle has dirs 0 and team.team_size 0, and symcoll_last_error() says why. */
static inline symcoll_halo_device_t symcoll_halo_device_handle(symcoll_halo_t h) {
    symcoll_halo_device_t handle;
    symcoll_halo_device_handle_get(h, SYMCOLL_HALO_DEVICE_HANDLE_VERSION, sizeof handle, &handle);
    return handle;
}

#ifdef __cplusplus
}
#endif
#endif
