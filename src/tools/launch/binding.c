#include "binding.h"

#include "util.h"

#include <errno.h>
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct binding {
    hwloc_topology_t topo;
    mpirun_bind_t policy;
    int nranks;
    hwloc_obj_t *obj;        /* per rank: the core, hardware thread or package it is bound to */
    cpu_set_t **mask;        /* per rank: obj's CPUs */
    size_t mask_size;
};

/* A growing string; util_x* allocation never fails. */
typedef struct strbuf {
    char *s;
    size_t len, cap;
} strbuf_t;

static void sb_add(strbuf_t *sb, const char *s)
{
    size_t l = strlen(s);
    if (sb->len + l + 1 > sb->cap) {
        sb->cap = (sb->len + l + 1) * 2;
        sb->s = util_xrealloc(sb->s, sb->cap);
    }
    memcpy(sb->s + sb->len, s, l + 1);
    sb->len += l;
}

const char *binding_policy_name(mpirun_bind_t policy)
{
    switch (policy) {
    case MPIRUN_BIND_HWTHREAD: return "hwthread";
    case MPIRUN_BIND_CORE: return "core";
    case MPIRUN_BIND_PACKAGE: return "package";
    default: return "none";
    }
}

/* hwloc loads its plugins at the first hwloc_topology_init; none is of use to binding (I/O
 * devices, libxml2 for XML) and loading them (GL pulls in X11) would double mpirun's
 * start-up time. A user's own HWLOC_PLUGINS_BLACKLIST wins. mpirun's environment is restored afterwards
 * because the ranks inherit it. */
static int topology_init(hwloc_topology_t *topo)
{
    static const char var[] = "HWLOC_PLUGINS_BLACKLIST";
    int set_here = !getenv(var) &&
                   setenv(var, "hwloc_pci,hwloc_opencl,hwloc_gl,hwloc_cuda,hwloc_nvml,"
                               "hwloc_rsmi,hwloc_levelzero,hwloc_xml_libxml", 0) == 0;
    int rc = hwloc_topology_init(topo);
    int e = errno;
    if (set_here)
        unsetenv(var);
    errno = e;
    return rc;
}

binding_t *binding_open(int *err)
{
    hwloc_topology_t topo;
    if (topology_init(&topo) != 0) {
        *err = errno;
        return NULL;
    }
    /* Only cores, hardware threads and packages matter; DONT_CHANGE_BINDING keeps hwloc
     * from moving mpirun onto other CPUs while it probes them. */
    if (hwloc_topology_set_flags(topo, HWLOC_TOPOLOGY_FLAG_IS_THISSYSTEM |
                                           HWLOC_TOPOLOGY_FLAG_RESTRICT_TO_CPUBINDING |
                                           HWLOC_TOPOLOGY_FLAG_DONT_CHANGE_BINDING) != 0 ||
        hwloc_topology_set_cache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_set_icache_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_NONE) != 0 ||
        hwloc_topology_load(topo) != 0) {
        *err = errno ? errno : EINVAL;
        hwloc_topology_destroy(topo);
        return NULL;
    }
    binding_t *b = util_xmalloc(sizeof *b);
    memset(b, 0, sizeof *b);
    b->topo = topo;
    /* The kernel reads masks sized for the highest CPU number the machine has. */
    int last = hwloc_bitmap_last(hwloc_topology_get_complete_cpuset(topo));
    b->mask_size = CPU_ALLOC_SIZE(last < 0 ? 1 : last + 1);
    return b;
}

static void free_placement(binding_t *b)
{
    for (int r = 0; r < b->nranks; r++)
        CPU_FREE(b->mask[r]);
    free(b->mask);
    free(b->obj);
    b->mask = NULL;
    b->obj = NULL;
    b->nranks = 0;
}

void binding_close(binding_t *b)
{
    if (!b)
        return;
    free_placement(b);
    hwloc_topology_destroy(b->topo);
    free(b);
}

/* Cores, or hardware threads when asked for or when the OS reports no cores. */
static hwloc_obj_type_t slot_type(const binding_t *b, mpirun_bind_t policy)
{
    if (policy == MPIRUN_BIND_HWTHREAD || hwloc_get_nbobjs_by_type(b->topo, HWLOC_OBJ_CORE) <= 0)
        return HWLOC_OBJ_PU;
    return HWLOC_OBJ_CORE;
}

int binding_slots(const binding_t *b, mpirun_bind_t policy)
{
    int n = hwloc_get_nbobjs_by_type(b->topo, slot_type(b, policy));
    return n > 0 ? n : 1;
}

void binding_place(binding_t *b, mpirun_bind_t policy, int nranks)
{
    free_placement(b);
    b->policy = policy;
    b->nranks = nranks;
    b->obj = util_xmalloc((size_t)nranks * sizeof *b->obj);
    b->mask = util_xmalloc((size_t)nranks * sizeof *b->mask);
    hwloc_obj_type_t type = slot_type(b, policy);
    int nslots = binding_slots(b, policy);
    for (int r = 0; r < nranks; r++) {
        hwloc_obj_t o = hwloc_get_obj_by_type(b->topo, type, (unsigned)(r % nslots));
        if (!o)
            o = hwloc_get_root_obj(b->topo);
        if (policy == MPIRUN_BIND_PACKAGE) {
            hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(b->topo, HWLOC_OBJ_PACKAGE, o);
            o = pkg ? pkg : hwloc_get_root_obj(b->topo);
        }
        b->obj[r] = o;
        b->mask[r] = CPU_ALLOC(b->mask_size * 8);
        if (!b->mask[r]) {
            util_msg("out of memory");
            _exit(1);
        }
        hwloc_cpuset_to_glibc_sched_affinity(b->topo, o->cpuset, b->mask[r], b->mask_size);
    }
}

cpu_set_t *const *binding_masks(const binding_t *b)
{
    return b->mask;
}

size_t binding_mask_size(const binding_t *b)
{
    return b->mask_size;
}

/* Appends the hardware threads of the cores inside group (a package or the machine). */
static void describe_group(const binding_t *b, hwloc_obj_t group, hwloc_const_cpuset_t set,
                           strbuf_t *sb)
{
    hwloc_obj_type_t type = slot_type(b, MPIRUN_BIND_CORE);
    hwloc_obj_t core = NULL;
    int first = 1;
    sb_add(sb, "[");
    while ((core = hwloc_get_next_obj_inside_cpuset_by_type(b->topo, group->cpuset, type,
                                                            core)) != NULL) {
        if (!first)
            sb_add(sb, "/");
        first = 0;
        hwloc_obj_t pu = NULL;
        while ((pu = hwloc_get_next_obj_inside_cpuset_by_type(b->topo, core->cpuset,
                                                              HWLOC_OBJ_PU, pu)) != NULL)
            sb_add(sb, hwloc_bitmap_isset(set, pu->os_index) ? "B" : ".");
    }
    sb_add(sb, "]");
}

char *binding_describe(const binding_t *b, int rank, int with_map)
{
    hwloc_obj_t o = b->obj[rank];
    const char *what = o->type == HWLOC_OBJ_PU        ? "hwthread"
                       : o->type == HWLOC_OBJ_CORE    ? "core"
                       : o->type == HWLOC_OBJ_PACKAGE ? "package"
                                                      : "machine";
    /* a machine without reported cores binds "cores" to its hardware threads */
    if (b->policy == MPIRUN_BIND_CORE && o->type == HWLOC_OBJ_PU)
        what = "core";
    char *cpus = NULL;
    if (hwloc_bitmap_list_asprintf(&cpus, o->cpuset) < 0 || !cpus) {
        util_msg("out of memory");
        _exit(1);
    }
    char head[128];
    snprintf(head, sizeof head, "%s %u (cpus ", what, o->logical_index);
    strbuf_t sb = { 0 };
    sb_add(&sb, head);
    sb_add(&sb, cpus);
    sb_add(&sb, ")");
    free(cpus);
    if (!with_map)
        return sb.s;
    sb_add(&sb, ": ");
    int npkg = hwloc_get_nbobjs_by_type(b->topo, HWLOC_OBJ_PACKAGE);
    if (npkg <= 0)
        describe_group(b, hwloc_get_root_obj(b->topo), o->cpuset, &sb);
    for (int p = 0; p < npkg; p++)
        describe_group(b, hwloc_get_obj_by_type(b->topo, HWLOC_OBJ_PACKAGE, (unsigned)p),
                       o->cpuset, &sb);
    return sb.s;
}

int binding_release(const binding_t *b, pid_t pid)
{
    return hwloc_set_proc_cpubind(b->topo, pid, hwloc_topology_get_topology_cpuset(b->topo),
                                  HWLOC_CPUBIND_PROCESS);
}
