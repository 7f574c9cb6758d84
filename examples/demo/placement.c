#include "placement.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef METAMPI_COMM_TYPE_SITE
/* The ranks of d->cart at this rank's site: a mark per cart rank. */
static int site_members(const decomp_t *d, int *member, int *site_size)
{
    MPI_Comm site;
    if (MPI_Comm_split_type(d->cart, METAMPI_COMM_TYPE_SITE, d->rank, MPI_INFO_NULL, &site) !=
        MPI_SUCCESS)
        return -1;
    MPI_Group sg, cg;
    MPI_Comm_group(site, &sg);
    MPI_Comm_group(d->cart, &cg);
    MPI_Comm_size(site, site_size);
    int *in_site = malloc((size_t)*site_size * sizeof(int));
    int *in_cart = malloc((size_t)*site_size * sizeof(int));
    if (!in_site || !in_cart) {
        free(in_site);
        free(in_cart);
        return -1;
    }
    for (int r = 0; r < *site_size; r++)
        in_site[r] = r;
    MPI_Group_translate_ranks(sg, *site_size, in_site, cg, in_cart);
    memset(member, 0, (size_t)d->size * sizeof(int));
    for (int r = 0; r < *site_size; r++)
        member[in_cart[r]] = 1;
    free(in_site);
    free(in_cart);
    MPI_Group_free(&sg);
    MPI_Group_free(&cg);
    MPI_Comm_free(&site);
    return 0;
}
#endif

int placement_find(const decomp_t *d, placement_t *pl, char *err, size_t errlen)
{
    *pl = (placement_t){ .site = 0, .nsites = 1, .site_size = d->size };
    int *member = malloc((size_t)d->size * sizeof(int));
    int *sites = malloc((size_t)d->size * sizeof(int));
    if (!member || !sites) {
        free(member);
        free(sites);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (int r = 0; r < d->size; r++)
        member[r] = 1;
#ifdef METAMPI_COMM_TYPE_SITE
    int *site_attr, flag;
    MPI_Comm_get_attr(d->cart, METAMPI_SITE, &site_attr, &flag);
    if (!flag || site_members(d, member, &pl->site_size) != 0) {
        free(member);
        free(sites);
        snprintf(err, errlen, "this metampi does not answer METAMPI_SITE / "
                              "METAMPI_COMM_TYPE_SITE");
        return -1;
    }
    pl->site = *site_attr;
    pl->sites_known = 1;
#endif
    /* the number of distinct sites */
    MPI_Allgather(&pl->site, 1, MPI_INT, sites, 1, MPI_INT, d->cart);
    pl->nsites = 0;
    for (int r = 0; r < d->size; r++) {
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen = sites[q] == sites[r];
        pl->nsites += !seen;
    }
    for (int e = 0; e < 3; e++)
        for (int s = 0; s < 2; s++) {
            int nb = d->nbr[e][s];
            pl->remote[e][s] = nb != MPI_PROC_NULL && !member[nb];
            pl->remote_faces += pl->remote[e][s];
        }
    free(member);
    free(sites);
    return 0;
}

/* Faces sent per step by all ranks: both ways across every cut between two layers of ranks. */
static int count_faces(const decomp_t *d)
{
    int faces = 0;
    for (int e = 0; e < 3; e++)
        faces += 2 * (d->dims[e] - 1) * (d->size / d->dims[e]);
    return faces;
}

/* Appends the ranks r (ascending) with pick(r) true as ranges: "0-3,6". */
static void print_ranks(int n, const int *pick)
{
    const char *sep = "";
    for (int r = 0; r < n; r++) {
        if (!pick[r])
            continue;
        int last = r;
        while (last + 1 < n && pick[last + 1])
            last++;
        if (last == r)
            printf("%s%d", sep, r);
        else
            printf("%s%d-%d", sep, r, last);
        sep = ",";
        r = last;
    }
}

/* Rank 0: one line per site, its hosts in order of their first rank with their ranks. */
static void print_sites(int n, const char *names, const int *site_of, int *pick)
{
    for (int r = 0; r < n; r++) {
        int new_site = 1;
        for (int q = 0; q < r && new_site; q++)
            new_site = site_of[q] != site_of[r];
        if (!new_site)
            continue;
        printf("  site %d:", site_of[r]);
        const char *sep = " ";
        for (int h = r; h < n; h++) {
            const char *host = names + (size_t)h * MPI_MAX_PROCESSOR_NAME;
            int new_host = site_of[h] == site_of[r];
            for (int q = r; q < h && new_host; q++)
                new_host = !(site_of[q] == site_of[r] &&
                             !strcmp(names + (size_t)q * MPI_MAX_PROCESSOR_NAME, host));
            if (!new_host)
                continue;
            for (int q = 0; q < n; q++)
                pick[q] = site_of[q] == site_of[r] &&
                          !strcmp(names + (size_t)q * MPI_MAX_PROCESSOR_NAME, host);
            printf("%s%s ranks ", sep, host);
            print_ranks(n, pick);
            sep = "; ";
        }
        putchar('\n');
    }
}

void placement_print(const decomp_t *d, const placement_t *pl)
{
    char name[MPI_MAX_PROCESSOR_NAME] = { 0 };
    int len, mine[2] = { pl->site, pl->remote_faces };
    MPI_Get_processor_name(name, &len);
    char *names = NULL;
    int *info = NULL, *site_of = NULL, *pick = NULL;
    if (d->rank == 0) {
        names = calloc((size_t)d->size, MPI_MAX_PROCESSOR_NAME);
        info = malloc((size_t)d->size * 2 * sizeof(int));
        site_of = malloc((size_t)d->size * sizeof(int));
        pick = malloc((size_t)d->size * sizeof(int));
        if (!names || !info || !site_of || !pick) {
            fprintf(stderr, "metampi-demo: out of memory\n");
            MPI_Abort(d->cart, 1);
        }
    }
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
               0, d->cart);
    MPI_Gather(mine, 2, MPI_INT, info, 2, MPI_INT, 0, d->cart);
    if (d->rank == 0) {
        int wan_faces = 0;
        for (int r = 0; r < d->size; r++) {
            site_of[r] = info[2 * r];
            wan_faces += info[2 * r + 1];
        }
        printf("%d rank%s on %d site%s%s; grid %dx%dx%d split %dx%dx%d\n", d->size,
               d->size == 1 ? "" : "s", pl->nsites, pl->nsites == 1 ? "" : "s",
               pl->sites_known ? "" : " (this MPI library does not tell sites apart)",
               d->grid[0], d->grid[1], d->grid[2], d->dims[0], d->dims[1], d->dims[2]);
        print_sites(d->size, names, site_of, pick);
        printf("faces sent per step: %d, of which %d cross the WAN\n", count_faces(d), wan_faces);
    }
    free(names);
    free(info);
    free(site_of);
    free(pick);
}
