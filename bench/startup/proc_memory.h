/* What a process's memory costs the machine, read from /proc (Linux; no MPI here), for
 * bench/startup/scale_memory.c.
 *
 * Pss divides every resident page among the processes that map it, so the Pss of all the
 * processes of a job sums to what the job holds in their page tables. It misses one thing:
 * pages of shared-memory files (tmpfs, memfd, SysV, hugetlbfs) that are allocated but mapped
 * by no process (e.g. a segment made with posix_fallocate whose pages nobody has touched).
 * So the job's total here is
 *     sum over processes of (Pss - Pss_Shmem)  +  sum over distinct shared-memory files of
 *                                                   their allocated bytes (st_blocks * 512)
 * where a file is known by (st_dev, st_ino) through /proc/PID/map_files (root only; without
 * it the files are counted as unknown and the total falls back to Pss). */
#ifndef BENCH_PROC_MEMORY_H
#define BENCH_PROC_MEMORY_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#define PM_TMPFS_MAGIC 0x01021994L
#define PM_HUGETLBFS_MAGIC 0x958458f6L

/* Sums from smaps_rollup, in kB. */
typedef struct {
    long long rss, pss, pss_anon, pss_file, pss_shmem;
} pm_rollup_t;

/* A shared-memory file a process maps: identity and allocated bytes. */
typedef struct {
    unsigned long long dev, ino, bytes;
} pm_file_t;

/* 0, or -1 when PID's smaps_rollup cannot be read. */
static int pm_read_rollup(const char *pid, pm_rollup_t *r)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/smaps_rollup", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    memset(r, 0, sizeof *r);
    char line[256];
    while (fgets(line, sizeof line, f)) {
        long long kb;
        char key[64];
        if (sscanf(line, "%63[^:]: %lld kB", key, &kb) != 2)
            continue;
        if (!strcmp(key, "Rss"))
            r->rss = kb;
        else if (!strcmp(key, "Pss"))
            r->pss = kb;
        else if (!strcmp(key, "Pss_Anon"))
            r->pss_anon = kb;
        else if (!strcmp(key, "Pss_File"))
            r->pss_file = kb;
        else if (!strcmp(key, "Pss_Shmem"))
            r->pss_shmem = kb;
    }
    fclose(f);
    return 0;
}

/* One process's Pss by kind of mapping (kB): private (heap, stack, anonymous, written pages of
 * private file mappings are in file), file (program and libraries), shared (every MAP_SHARED
 * mapping: shared-memory segments and files); and the shared mappings' count and size. */
typedef struct {
    long long private_pss, file_pss, shared_pss, shared_maps, shared_size;
} pm_kinds_t;

/* 0, or -1 when PID's smaps cannot be read. */
static int pm_read_kinds(const char *pid, pm_kinds_t *k)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/smaps", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    memset(k, 0, sizeof *k);
    char line[1024];
    long long *into = NULL;
    while (fgets(line, sizeof line, f)) {
        char range[64], perms[8], name[512] = "";
        unsigned long long ino;
        long long kb;
        if (sscanf(line, "%63s %7s %*s %*s %llu %511s", range, perms, &ino, name) >= 3 &&
            strchr(range, '-')) {
            int shared = perms[3] == 's', anon = ino == 0 || name[0] == '\0' || name[0] == '[';
            into = shared ? &k->shared_pss : anon ? &k->private_pss : &k->file_pss;
            k->shared_maps += shared;
        } else if (into && sscanf(line, "Pss: %lld kB", &kb) == 1) {
            *into += kb;
        } else if (into == &k->shared_pss && sscanf(line, "Size: %lld kB", &kb) == 1) {
            k->shared_size += kb;
        }
    }
    fclose(f);
    return 0;
}

static int pm_file_cmp(const void *a, const void *b)
{
    const pm_file_t *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* Sorts files and removes repeated (dev, ino); returns how many are left. */
static size_t pm_unique(pm_file_t *files, size_t n)
{
    if (n == 0)
        return 0;
    qsort(files, n, sizeof *files, pm_file_cmp);
    size_t k = 1;
    for (size_t i = 1; i < n; i++)
        if (pm_file_cmp(&files[i], &files[k - 1]))
            files[k++] = files[i];
    return k;
}

/* Appends the shared-memory files PID maps (shared mappings only, each file once) to
 * *files (grown with realloc; *n and *cap updated); *unknown counts shared mappings whose
 * file could not be examined. Returns -1 when PID's maps cannot be read or memory runs out. */
static int pm_shm_files(const char *pid, pm_file_t **files, size_t *n, size_t *cap,
                        int *unknown)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%s/maps", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t first = *n;
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char range[64], perms[8];
        unsigned long long ino;
        if (sscanf(line, "%63s %7s %*s %*s %llu", range, perms, &ino) != 3)
            continue;
        if (perms[3] != 's' || ino == 0)
            continue;
        snprintf(path, sizeof path, "/proc/%s/map_files/%s", pid, range);
        struct stat st;
        struct statfs fs;
        if (stat(path, &st) < 0 || statfs(path, &fs) < 0) {
            (*unknown)++;
            continue;
        }
        if ((long)fs.f_type != PM_TMPFS_MAGIC && (long)fs.f_type != PM_HUGETLBFS_MAGIC)
            continue;
        if (*n == *cap) {
            size_t want = *cap ? 2 * *cap : 64;
            pm_file_t *p = realloc(*files, want * sizeof *p);
            if (!p) {
                fclose(f);
                return -1;
            }
            *files = p;
            *cap = want;
        }
        (*files)[(*n)++] = (pm_file_t){(unsigned long long)st.st_dev,
                                       (unsigned long long)st.st_ino,
                                       (unsigned long long)st.st_blocks * 512ull};
    }
    fclose(f);
    *n = first + pm_unique(*files + first, *n - first);
    return 0;
}

/* Field 4 (the parent) of /proc/PID/stat, or -1. */
static long pm_parent_of(long pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char buf[1024];
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    char *close_paren = strrchr(buf, ')'); /* the command may hold spaces and parentheses */
    long ppid;
    if (!close_paren || sscanf(close_paren + 1, " %*c %ld", &ppid) != 1)
        return -1;
    return ppid;
}

/* 1 if an argument of PID's command line ends in "/NAME" or is NAME. */
static int pm_cmdline_mentions(long pid, const char *name)
{
    char path[64], buf[8192];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t got = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[got] = '\0';
    size_t len = strlen(name);
    for (size_t at = 0; at < got; at += strlen(buf + at) + 1) {
        size_t n = strlen(buf + at);
        if (n >= len && !strcmp(buf + at + n - len, name) &&
            (n == len || buf[at + n - len - 1] == '/'))
            return 1;
    }
    return 0;
}

#endif
