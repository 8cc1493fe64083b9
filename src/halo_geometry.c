/* Halo plan geometry: validation, the PE grid, neighbours and the box each direction moves. */
#include "halo_geometry.h"
#include "internal.h"

static const char *const dim_name[3] = {"x", "y", "z"};

static int dir_component(int dir, int dim) {
    static const int scale[3] = {1, 3, 9};
    return dir / scale[dim] % 3 - 1;
}

int symcoll_halo_dims_create(int n, int ndims, int grid[3]) {
    int fixed = 1, free_dims = 0;
    for (int i = 0; i < ndims; i++) {
        if (grid[i] < 0)
            return 0;
        if (grid[i] == 0)
            free_dims++;
        else if (grid[i] > n / fixed) /* the product would pass n, and could wrap */
            return 0;
        else
            fixed *= grid[i];
    }
    if (n < 1 || n % fixed != 0 || (free_dims == 0 && fixed != n))
        return 0;
    int left = n / fixed, chosen[3] = {1, 1, 1}, count = 0;
    for (int i = 0; i < ndims; i++)
        if (grid[i] == 0)
            count++;
    /* Prime factors from the largest, each to the smallest entry so far. */
    int factors[32], nf = 0;
    for (int p = 2; left > 1 && p * p <= left; p++)
        while (left % p == 0) {
            factors[nf++] = p;
            left /= p;
        }
    if (left > 1)
        factors[nf++] = left;
    for (int f = nf - 1; f >= 0; f--) {
        int smallest = 0;
        for (int i = 1; i < count; i++)
            if (chosen[i] < chosen[smallest])
                smallest = i;
        chosen[smallest] *= factors[f];
    }
    for (int i = 0; i < count; i++) /* non-increasing */
        for (int j = i + 1; j < count; j++)
            if (chosen[j] > chosen[i]) {
                int tmp = chosen[i];
                chosen[i] = chosen[j];
                chosen[j] = tmp;
            }
    for (int i = 0, c = 0; i < ndims; i++)
        if (grid[i] == 0)
            grid[i] = chosen[c++];
    return 1;
}

/* a * b in *product; false when it wraps or passes INT64_MAX, as offsets and spans are int64_t. */
static int int64_product(size_t a, size_t b, size_t *product) {
    return !__builtin_mul_overflow(a, b, product) && *product <= INT64_MAX;
}

/* out->pitch from in->pitch or the rows and planes with their halos; INVALID_ARGUMENT when a
 * pitch is too small or the layout is more than INT64_MAX bytes. */
static symcoll_status_t resolve_pitches(const char *fn, const symcoll_halo_desc_t *in,
                                        symcoll_halo_desc_t *out) {
    size_t row = out->interior[0] + 2 * (size_t)out->width[0];
    size_t rows = out->interior[1] + 2 * (size_t)out->width[1];
    out->pitch[0] = in->ndims > 1 && in->pitch[0] ? in->pitch[0] : row;
    if (out->pitch[0] < row)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: d->pitch[0] %zu is less than a row with its halos (%zu)", fn,
                                 in->pitch[0], row);
    size_t plane, planes = out->interior[2] + 2 * (size_t)out->width[2], cells, bytes;
    if (!int64_product(out->pitch[0], rows, &plane))
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: d->pitch[0] %zu times %zu rows with their halos is more "
                                 "than INT64_MAX elements",
                                 fn, out->pitch[0], rows);
    out->pitch[1] = in->ndims > 2 && in->pitch[1] ? in->pitch[1] : plane;
    if (out->pitch[1] < plane)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: d->pitch[1] %zu is less than a plane with its halos (%zu)",
                                 fn, in->pitch[1], plane);
    if (!int64_product(out->pitch[1], planes, &cells) ||
        !int64_product(cells, symcoll_datatype_size(in->type), &bytes))
        return symcoll_set_error(
            SYMCOLL_ERROR_INVALID_ARGUMENT,
            "%s: d->pitch[1] %zu times %zu planes with their halos of %zu-byte "
            "elements is more than INT64_MAX bytes",
            fn, out->pitch[1], planes, symcoll_datatype_size(in->type));
    return SYMCOLL_SUCCESS;
}

symcoll_status_t symcoll_halo_normalize(const char *fn, int team_size,
                                        const symcoll_halo_desc_t *in, symcoll_halo_desc_t *out) {
    if (!in)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: d is NULL", fn);
    if (in->version != SYMCOLL_HALO_DESC_VERSION)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: d->version %u is not SYMCOLL_HALO_DESC_VERSION (%d); start "
                                 "from symcoll_halo_desc_default",
                                 fn, in->version, SYMCOLL_HALO_DESC_VERSION);
    if (in->ndims < 1 || in->ndims > 3)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: d->ndims %d is not 1, 2 or 3",
                                 fn, in->ndims);
    if (symcoll_datatype_size(in->type) == 0)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: d->type %d is not a symcoll_datatype_t", fn, (int)in->type);
    if (in->corners != 0 && in->corners != 1)
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT, "%s: d->corners %d is not 0 or 1",
                                 fn, in->corners);
    *out = *in;
    for (int i = 0; i < 3; i++) {
        if (i >= in->ndims) {
            out->pe_grid[i] = 1;
            out->periodic[i] = 0;
            out->interior[i] = 1;
            out->width[i] = 0;
            continue;
        }
        if (in->periodic[i] != 0 && in->periodic[i] != 1)
            return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                     "%s: d->periodic[%d] %d is not 0 or 1", fn, i,
                                     in->periodic[i]);
        if (in->width[i] < 0 || in->width[i] > 1 << 20)
            return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                     "%s: d->width[%d] %d is out of range", fn, i, in->width[i]);
        if (in->interior[i] < 1 || in->interior[i] > (size_t)1 << 31)
            return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                     "%s: d->interior[%d] %zu is out of range (1 .. 2^31)", fn, i,
                                     in->interior[i]);
        if (in->pe_grid[i] < 0)
            return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                     "%s: d->pe_grid[%d] %d is negative", fn, i, in->pe_grid[i]);
    }
    if (!symcoll_halo_dims_create(team_size, in->ndims, out->pe_grid))
        return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                                 "%s: d->pe_grid {%d, %d, %d} does not fit a team of %d PEs", fn,
                                 in->pe_grid[0], in->ndims > 1 ? in->pe_grid[1] : 1,
                                 in->ndims > 2 ? in->pe_grid[2] : 1, team_size);
    return resolve_pitches(fn, in, out);
}

void symcoll_halo_coords(const symcoll_halo_desc_t *d, int pe, int c[3]) {
    c[0] = pe % d->pe_grid[0];
    c[1] = pe / d->pe_grid[0] % d->pe_grid[1];
    c[2] = pe / (d->pe_grid[0] * d->pe_grid[1]);
}

int symcoll_halo_neighbor_of(const symcoll_halo_desc_t *d, int pe, int dir) {
    int c[3];
    symcoll_halo_coords(d, pe, c);
    for (int i = 0; i < 3; i++) {
        c[i] += dir_component(dir, i);
        if (c[i] < 0 || c[i] >= d->pe_grid[i]) {
            if (!d->periodic[i])
                return -1;
            c[i] = (c[i] + d->pe_grid[i]) % d->pe_grid[i];
        }
    }
    return c[0] + d->pe_grid[0] * (c[1] + d->pe_grid[1] * c[2]);
}

int symcoll_halo_dir_used(const symcoll_halo_desc_t *d, int dir) {
    int moved = 0;
    for (int i = 0; i < 3; i++) {
        int step = dir_component(dir, i);
        if (step == 0)
            continue;
        if (d->width[i] == 0)
            return 0;
        moved++;
    }
    return moved == 1 || (moved > 1 && d->corners);
}

/* Every field but interior and pitch, compared between team PE 0 and team PE pe. */
static symcoll_status_t check_agree(const char *fn, const symcoll_halo_desc_t *a,
                                    const symcoll_halo_desc_t *b, int pe) {
    const char *what = NULL;
    int va = 0, vb = 0;
    if (a->ndims != b->ndims)
        what = "ndims", va = a->ndims, vb = b->ndims;
    else if (a->type != b->type)
        what = "type", va = (int)a->type, vb = (int)b->type;
    else if (a->corners != b->corners)
        what = "corners", va = a->corners, vb = b->corners;
    for (int i = 0; i < 3 && !what; i++) {
        static const char *const grid[3] = {"pe_grid[0]", "pe_grid[1]", "pe_grid[2]"};
        static const char *const periodic[3] = {"periodic[0]", "periodic[1]", "periodic[2]"};
        static const char *const width[3] = {"width[0]", "width[1]", "width[2]"};
        if (a->pe_grid[i] != b->pe_grid[i])
            what = grid[i], va = a->pe_grid[i], vb = b->pe_grid[i];
        else if (a->periodic[i] != b->periodic[i])
            what = periodic[i], va = a->periodic[i], vb = b->periodic[i];
        else if (a->width[i] != b->width[i])
            what = width[i], va = a->width[i], vb = b->width[i];
    }
    if (!what)
        return SYMCOLL_SUCCESS;
    return symcoll_set_error(SYMCOLL_ERROR_INVALID_ARGUMENT,
                             "%s: team PEs disagree on d->%s: PE 0 has %d, PE %d has %d", fn, what,
                             va, pe, vb);
}

symcoll_status_t symcoll_halo_check_team(const char *fn, int team_size,
                                         const symcoll_halo_desc_t *all) {
    for (int pe = 1; pe < team_size; pe++) {
        symcoll_status_t st = check_agree(fn, &all[0], &all[pe], pe);
        if (st != SYMCOLL_SUCCESS)
            return st;
    }
    for (int pe = 0; pe < team_size; pe++) {
        const symcoll_halo_desc_t *d = &all[pe];
        for (int dir = 0; dir < SYMCOLL_HALO_DIRS; dir++) {
            int nb = symcoll_halo_neighbor_of(d, pe, dir);
            if (nb < 0 || !symcoll_halo_dir_used(d, dir))
                continue;
            for (int i = 0; i < 3; i++) {
                const symcoll_halo_desc_t *e = &all[nb];
                if (dir_component(dir, i) != 0 && (size_t)d->width[i] > d->interior[i])
                    return symcoll_set_error(
                        SYMCOLL_ERROR_INVALID_ARGUMENT,
                        "%s: width[%d] %d exceeds PE %d's interior of %zu cells along dimension "
                        "%d (%s), which its neighbour PE %d needs",
                        fn, i, d->width[i], pe, d->interior[i], i, dim_name[i], nb);
                if (dir_component(dir, i) == 0 && d->interior[i] != e->interior[i])
                    return symcoll_set_error(
                        SYMCOLL_ERROR_INVALID_ARGUMENT,
                        "%s: faces do not match along dimension %d (%s): PE %d has interior[%d] "
                        "= %zu, its neighbour PE %d (direction %d,%d,%d) has %zu",
                        fn, i, dim_name[i], pe, i, d->interior[i], nb, dir_component(dir, 0),
                        dir_component(dir, 1), dir_component(dir, 2), e->interior[i]);
            }
        }
    }
    return SYMCOLL_SUCCESS;
}

static int64_t cell_offset(const symcoll_halo_desc_t *d, const size_t at[3], size_t elem) {
    return (int64_t)((at[0] + at[1] * d->pitch[0] + at[2] * d->pitch[1]) * elem);
}

/* The widest power of two up to 16 that divides v. */
static int64_t alignment_of(int64_t v) {
    int64_t a = 16;
    while (v % a)
        a >>= 1;
    return a;
}

int symcoll_halo_message(const symcoll_halo_desc_t *me, const symcoll_halo_desc_t *nb, int dir,
                         symcoll_halo_msg_t *m) {
    size_t elem = symcoll_datatype_size(me->type);
    size_t src[3], dst[3], extent[3];
    for (int i = 0; i < 3; i++) {
        size_t w = (size_t)me->width[i], n = me->interior[i];
        switch (dir_component(dir, i)) {
        case -1: /* our first w interior cells become the neighbour's upper halo */
            src[i] = w, extent[i] = w, dst[i] = w + nb->interior[i];
            break;
        case 1: /* our last w interior cells become the neighbour's lower halo */
            src[i] = n, extent[i] = w, dst[i] = 0;
            break;
        default:
            src[i] = w, extent[i] = n, dst[i] = w;
        }
    }
    m->src_offset = cell_offset(me, src, elem);
    m->dst_offset = cell_offset(nb, dst, elem);
    for (int i = 0; i < 2; i++) {
        m->src_pitch[i] = (int64_t)(me->pitch[i] * elem);
        m->dst_pitch[i] = (int64_t)(nb->pitch[i] * elem);
    }
    /* Divided, not multiplied: the product of the extents can wrap. */
    size_t row_bytes = extent[0] * elem;
    if (row_bytes > UINT32_MAX || (row_bytes && extent[1] * extent[2] > UINT32_MAX / row_bytes))
        return 0;
    m->row_bytes = (uint32_t)row_bytes;
    m->rows = (uint32_t)extent[1];
    m->planes = (uint32_t)extent[2];
    int64_t unit = alignment_of(m->src_offset) < alignment_of(m->dst_offset)
                       ? alignment_of(m->src_offset)
                       : alignment_of(m->dst_offset);
    int64_t others[] = {m->row_bytes, m->rows > 1 ? m->src_pitch[0] : 16,
                        m->rows > 1 ? m->dst_pitch[0] : 16, m->planes > 1 ? m->src_pitch[1] : 16,
                        m->planes > 1 ? m->dst_pitch[1] : 16};
    for (int i = 0; i < 5; i++)
        if (alignment_of(others[i]) < unit)
            unit = alignment_of(others[i]);
    m->unit = (int32_t)unit;
    m->pe = -1;
    m->self = 0;
    return 1;
}

size_t symcoll_halo_span(const symcoll_halo_desc_t *d) {
    size_t last[3];
    for (int i = 0; i < 3; i++)
        last[i] = d->interior[i] + 2 * (size_t)d->width[i] - 1;
    return (size_t)cell_offset(d, last, symcoll_datatype_size(d->type)) +
           symcoll_datatype_size(d->type);
}
