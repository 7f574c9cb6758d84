#include "runtime/hosts.h"

#include "runtime/job.h"
#include "runtime/peer_arch.h"
#include "runtime/pmi_wire.h"
#include "runtime/tunables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hosts_parse_mapping(const char *value, int *host_of, int size)
{
    const char *p = value;
    if (strncmp(p, "(vector", 7) != 0)
        return -1;
    p += 7;
    int rank = 0;
    while (*p == ',') {
        int first, count, per, used;
        if (sscanf(p, ",(%d,%d,%d)%n", &first, &count, &per, &used) != 3 || first < 0 ||
            count < 1 || per < 1)
            return -1;
        p += used;
        for (int n = 0; n < count && rank < size; n++)
            for (int i = 0; i < per && rank < size; i++)
                host_of[rank++] = first + n;
    }
    return *p == ')' && rank == size ? 0 : -1;
}

static int exchange_hostnames(int *host_of, int size, char *err, int errlen)
{
    char key[64], (*names)[JOB_HOSTNAME_MAX] = calloc((size_t)size, sizeof *names);
    if (!names) {
        snprintf(err, (size_t)errlen, "out of memory for %d host names", size);
        return -1;
    }
    int rc = -1;
    snprintf(key, sizeof key, "metampi.host.%d", job.rank);
    if (job_put(key, job.hostname, err, errlen) != 0 || job_barrier(err, errlen) != 0)
        goto out;
    for (int r = 0; r < size; r++) {
        snprintf(key, sizeof key, "metampi.host.%d", r);
        int g = job_get(key, names[r], JOB_HOSTNAME_MAX, err, errlen);
        if (g != 0) {
            if (g > 0)
                snprintf(err, (size_t)errlen, "rank %d did not publish its host name", r);
            goto out;
        }
        host_of[r] = r;
        for (int q = 0; q < r; q++)
            if (strcmp(names[q], names[r]) == 0) {
                host_of[r] = host_of[q];
                break;
            }
    }
    rc = 0;
out:
    free(names);
    return rc;
}

int hosts_map(int *host_of, int size, char *err, int errlen)
{
    long virt = tun_int(TUN_VIRTUAL_HOSTS);
    if (virt > 0) { /* testing: k hosts of consecutive ranks on one machine (TCP between) */
        for (int r = 0; r < size; r++)
            host_of[r] = (int)((long)r * (virt < size ? virt : size) / size);
        return 0;
    }
    if (size == 1) {
        host_of[0] = 0;
        return 0;
    }
    char value[1024];
    int g = job_get("PMI_process_mapping", value, sizeof value, err, errlen);
    if (g < 0)
        return -1;
    if (g == 0 && hosts_parse_mapping(value, host_of, size) == 0)
        return 0;
    return exchange_hostnames(host_of, size, err, errlen);
}

/* The kernel's boot id: one per running kernel, the same in every namespace. */
static void boot_id(char *id, size_t len)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f || !fgets(id, (int)len, f))
        snprintf(id, len, "unknown");
    if (f)
        fclose(f);
    id[strcspn(id, "\n")] = '\0';
}

int hosts_publish_machine(char *err, int errlen)
{
    char key[64], id[64], value[64 + PEER_ARCH_HEX + 2];
    boot_id(id, sizeof id);
    id[strcspn(id, " /=")] = '\0';
    char arch[PEER_ARCH_HEX + 1];
    peer_arch_local_hex(arch);
    snprintf(value, sizeof value, "%s/%s", id, arch);
    snprintf(key, sizeof key, "metampi.machine.%d", job.rank);
    return job_put(key, value, err, errlen);
}

/* The summary of every rank's architecture that our launcher's PMI server adds
 * (tools/launch/arch_summary.h): 1 when it was there and is recorded, 0 when absent (another
 * process manager, a federated part, a job too varied for one value), -1 on error. */
static int read_arch_summary(int size, char *err, int errlen)
{
    char all[PMI_WIRE_VALLEN_MAX + 1];
    int g = job_get("metampi.archs", all, sizeof all, err, errlen);
    if (g != 0)
        return g < 0 ? -1 : 0;
    return peer_arch_record_summary(all, size, err, (size_t)errlen) == 0 ? 1 : -1;
}

int hosts_read_machines(const int *host_of, int size, int spans, char *err, int errlen)
{
    char key[64], mine[64], theirs[64 + PEER_ARCH_HEX + 2];
    int summary = read_arch_summary(size, err, errlen);
    if (summary < 0)
        return -1;
    int n = 0;
    if (summary && !spans) { /* one host: nothing else to learn from the per-rank keys */
        for (int r = 0; r < size; r++)
            n += host_of[r] == host_of[job.rank];
        return n;
    }
    boot_id(mine, sizeof mine);
    mine[strcspn(mine, " /=")] = '\0';
    for (int r = 0; r < size; r++) {
        if (host_of[r] == host_of[job.rank]) {
            n++;
            if (summary || r == job.rank)
                continue;
        }
        snprintf(key, sizeof key, "metampi.machine.%d", r);
        int g = job_get(key, theirs, sizeof theirs, err, errlen);
        if (g < 0)
            return -1;
        if (g > 0) /* another part of a federated job: its keys are in its own space */
            continue;
        char *arch = strrchr(theirs, '/');
        if (!arch) {
            snprintf(err, (size_t)errlen, "rank %d published no architecture (a rank of another "
                     "metampi version?)", r);
            return -1;
        }
        *arch++ = '\0';
        if (!summary && peer_arch_record(r, arch, err, (size_t)errlen) != 0)
            return -1;
        n += host_of[r] != host_of[job.rank] && strcmp(theirs, mine) == 0 &&
             strcmp(mine, "unknown") != 0;
    }
    return n;
}
