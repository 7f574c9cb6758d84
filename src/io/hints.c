/* The hints a file acts on (MPI-3.1 §13.2.8, ROMIO's names): read from the info the user gave
 * (MPI_File_open, set_info, set_view; merged into what was set before, as ROMIO does), agreed
 * on by taking rank 0's values (they shape collective calls, which need the same plan
 * everywhere), and written back with the values in use, so MPI_File_get_info reports them.
 * A value that is not understood keeps the previous one (hints never fail a call). */
#include "io/file.h"

#include "core/icoll.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ROMIO's defaults */
#define CB_BUFFER_DEFAULT (16ll << 20)
#define IND_RD_BUFFER_DEFAULT (4ll << 20)

void io_hints_default(io_hints_t *h)
{
    h->cb_buffer_size = CB_BUFFER_DEFAULT;
    h->cb_nodes = 0;
    h->cb_read = IO_HINT_AUTO;
    h->cb_write = IO_HINT_AUTO;
    h->ind_rd_buffer_size = IND_RD_BUFFER_DEFAULT;
    h->ds_read = IO_HINT_AUTO;
}

static void read_size(const info_t *i, const char *key, long long min, long long *v)
{
    const char *s = info_get(i, key);
    if (!s)
        return;
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno == 0 && end != s && *end == '\0' && x >= min)
        *v = x;
}

static void read_switch(const info_t *i, const char *key, int *v)
{
    const char *s = info_get(i, key);
    if (!s)
        return;
    if (strcmp(s, "enable") == 0)
        *v = IO_HINT_ENABLE;
    else if (strcmp(s, "disable") == 0)
        *v = IO_HINT_DISABLE;
    else if (strcmp(s, "automatic") == 0)
        *v = IO_HINT_AUTO;
}

static const char *switch_name(int v)
{
    return v == IO_HINT_ENABLE ? "enable" : v == IO_HINT_DISABLE ? "disable" : "automatic";
}

/* The values in use, into the info get_info returns. */
static int write_back(io_file_t *f)
{
    char v[32];
    const io_hints_t *h = &f->hints;
    int bad = 0;
    snprintf(v, sizeof v, "%lld", h->cb_buffer_size);
    bad |= info_set(f->info, "cb_buffer_size", v);
    snprintf(v, sizeof v, "%d", f->naggr);
    bad |= info_set(f->info, "cb_nodes", v);
    bad |= info_set(f->info, "romio_cb_read", switch_name(h->cb_read));
    bad |= info_set(f->info, "romio_cb_write", switch_name(h->cb_write));
    snprintf(v, sizeof v, "%lld", h->ind_rd_buffer_size);
    bad |= info_set(f->info, "ind_rd_buffer_size", v);
    bad |= info_set(f->info, "romio_ds_read", switch_name(h->ds_read));
    /* data sieving of writes (read-modify-write under a lock) is not done */
    bad |= info_set(f->info, "romio_ds_write", "disable");
    static const char *const sites[] = { "shared", "root", "each" };
    bad |= info_set(f->info, "metampi_file_sites", sites[f->sites]);
    return bad ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

int io_hints_set(io_file_t *f, const info_t *given)
{
    int rc = MPI_SUCCESS;
    if (!f->info && !(f->info = info_copy(NULL)))
        rc = MPI_ERR_NO_MEM;
    for (int k = 0; rc == MPI_SUCCESS && given && k < info_nkeys(given); k++) {
        const char *key = info_nthkey(given, k);
        if (info_set(f->info, key, info_get(given, key)) != 0)
            rc = MPI_ERR_NO_MEM;
    }
    io_hints_t h = f->hints;
    if (rc == MPI_SUCCESS && given) {
        read_size(given, "cb_buffer_size", 1, &h.cb_buffer_size);
        long long nodes = h.cb_nodes;
        read_size(given, "cb_nodes", 1, &nodes);
        h.cb_nodes = nodes > f->comm->size ? f->comm->size : (int)nodes;
        read_switch(given, "romio_cb_read", &h.cb_read);
        read_switch(given, "romio_cb_write", &h.cb_write);
        read_size(given, "ind_rd_buffer_size", 1, &h.ind_rd_buffer_size);
        read_switch(given, "romio_ds_read", &h.ds_read);
    }
    /* rank 0's values everywhere (a member without memory still takes part) */
    int64_t v[6] = { h.cb_buffer_size, h.cb_nodes, h.cb_read, h.cb_write,
                     h.ind_rd_buffer_size, h.ds_read };
    int all = icoll_bcast_i64(f->comm, v, 6, 0);
    if (all != MPI_SUCCESS)
        return all;
    f->hints = (io_hints_t){ .cb_buffer_size = v[0], .cb_nodes = (int)v[1], .cb_read = (int)v[2],
                             .cb_write = (int)v[3], .ind_rd_buffer_size = v[4],
                             .ds_read = (int)v[5] };
    if ((all = io_aggregators_agree(f)) != MPI_SUCCESS)
        return all;
    return rc == MPI_SUCCESS ? write_back(f) : rc;
}
