/* The NCCL baseline of the halo refresh: one kernel packs the boxes of every direction, a
 * group of ncclSend/ncclRecv moves them (in direction order, so the pairs match even when one
 * PE is the neighbour in several directions), one kernel unpacks them into the halos. */
#include "heat3d.h"

#define DIRS 27

/* One direction's box: where it starts in the sending field, where the received one goes,
 * its extents, and its place in the pack buffers (in floats). */
typedef struct {
    size_t src, dst, offset;
    int ex, ey, ez;
} box_t;

struct heat_nccl {
    ncclComm_t comm;
    int n_boxes, peer[DIRS], from[DIRS]; /* PEs we send each box to and receive it from */
    box_t box[DIRS];                     /* host copy */
    box_t *boxes;                        /* device copy */
    float *send, *recv;
    size_t total;
};

static void box_of(int n, int dir, box_t *b) {
    int d[3] = {dir % 3 - 1, dir / 3 % 3 - 1, dir / 9 - 1}, src[3], dst[3], ext[3];
    for (int i = 0; i < 3; i++) {
        src[i] = d[i] == 1 ? n : 1; /* our last or first interior layer, or all */
        dst[i] = d[i] == -1 ? n + 1 : d[i] == 1 ? 0 : 1; /* the receiver's halo */
        ext[i] = d[i] ? 1 : n;
    }
    size_t row = (size_t)n + 2, plane = row * row;
    b->src = src[0] + src[1] * row + src[2] * plane;
    b->dst = dst[0] + dst[1] * row + dst[2] * plane;
    b->ex = ext[0], b->ey = ext[1], b->ez = ext[2];
}

/* blockIdx.y: the box; pack = 1 copies field -> buffer, else buffer -> field. */
static __global__ void copy_boxes(const box_t *boxes, float *field, float *buffer, int n,
                                  int pack) {
    box_t b = boxes[blockIdx.y];
    size_t cells = (size_t)b.ex * b.ey * b.ez, row = (size_t)n + 2;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < cells;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t x = i % b.ex, y = i / b.ex % b.ey, z = i / ((size_t)b.ex * b.ey);
        size_t cell = x + y * row + z * row * row;
        if (pack)
            buffer[b.offset + i] = field[b.src + cell];
        else
            field[b.dst + cell] = buffer[b.offset + i];
    }
}

heat_nccl_t *heat_nccl_create(const heat_t *h) {
    heat_nccl_t *x = (heat_nccl_t *)calloc(1, sizeof *x);
    x->comm = example_nccl_comm(h->stream);
    for (int dir = 0; dir < DIRS; dir++) {
        int d[3] = {dir % 3 - 1, dir / 3 % 3 - 1, dir / 9 - 1}, c[3];
        int moved = (d[0] != 0) + (d[1] != 0) + (d[2] != 0);
        if (moved == 0 || (moved > 1 && !h->corners))
            continue;
        for (int i = 0; i < 3; i++)
            c[i] = (h->coords[i] + d[i] + h->grid[i]) % h->grid[i];
        box_t *b = &x->box[x->n_boxes];
        box_of(h->n, dir, b);
        b->offset = x->total;
        x->total += (size_t)b->ex * b->ey * b->ez;
        x->peer[x->n_boxes] = c[0] + h->grid[0] * (c[1] + h->grid[1] * c[2]);
        /* the box arriving for this direction comes from the neighbour on the other side */
        for (int i = 0; i < 3; i++)
            c[i] = (h->coords[i] - d[i] + h->grid[i]) % h->grid[i];
        x->from[x->n_boxes++] = c[0] + h->grid[0] * (c[1] + h->grid[1] * c[2]);
    }
    CHECK_CUDA(cudaMalloc(&x->boxes, sizeof x->box));
    CHECK_CUDA(cudaMemcpy(x->boxes, x->box, sizeof x->box, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMalloc(&x->send, x->total * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&x->recv, x->total * sizeof(float)));
    return x;
}

void heat_nccl_exchange(heat_nccl_t *x, const heat_t *h, float *field) {
    dim3 grid((unsigned)((size_t)h->n * h->n / 256 < 64 ? (size_t)h->n * h->n / 256 + 1 : 64),
              (unsigned)x->n_boxes);
    copy_boxes<<<grid, 256, 0, h->stream>>>(x->boxes, field, x->send, h->n, 1);
    CHECK_CUDA(cudaGetLastError());
    CHECK_NCCL(ncclGroupStart());
    for (int i = 0; i < x->n_boxes; i++) {
        size_t count = (size_t)x->box[i].ex * x->box[i].ey * x->box[i].ez;
        CHECK_NCCL(
            ncclSend(x->send + x->box[i].offset, count, ncclFloat, x->peer[i], x->comm, h->stream));
        CHECK_NCCL(
            ncclRecv(x->recv + x->box[i].offset, count, ncclFloat, x->from[i], x->comm, h->stream));
    }
    CHECK_NCCL(ncclGroupEnd());
    copy_boxes<<<grid, 256, 0, h->stream>>>(x->boxes, field, x->recv, h->n, 0);
    CHECK_CUDA(cudaGetLastError());
}

void heat_nccl_destroy(heat_nccl_t *x) {
    CHECK_NCCL(ncclCommDestroy(x->comm));
    CHECK_CUDA(cudaFree(x->boxes));
    CHECK_CUDA(cudaFree(x->send));
    CHECK_CUDA(cudaFree(x->recv));
    free(x);
}
