/* mpirun's view of a Slurm allocation (tools/mpirun/slurm_alloc.c): Slurm's count lists, and
 * the host list from SLURM_JOB_NODELIST through a stand-in scontrol put first in PATH. */
#include "slurm_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "expect.h"

static void test_counts(void)
{
    int c[8];
    EXPECT(slurm_parse_counts("2(x3),1", c, 8) == 4);
    EXPECT(c[0] == 2 && c[1] == 2 && c[2] == 2 && c[3] == 1);
    EXPECT(slurm_parse_counts("4", c, 8) == 1 && c[0] == 4);
    EXPECT(slurm_parse_counts("1,16(x2)", c, 8) == 3 && c[2] == 16);
    EXPECT(slurm_parse_counts("2(x9)", c, 8) == -1);  /* more hosts than room */
    EXPECT(slurm_parse_counts("", c, 8) == -1);
    EXPECT(slurm_parse_counts("0", c, 8) == -1);
    EXPECT(slurm_parse_counts("2(x3", c, 8) == -1);
    EXPECT(slurm_parse_counts("2,", c, 8) == -1);
    EXPECT(slurm_parse_counts("2;3", c, 8) == -1);
}

/* A stand-in scontrol printing text (exit status code) in dir, first in PATH. */
static void fake_scontrol(const char *dir, const char *text, int code)
{
    char path[512];
    snprintf(path, sizeof path, "%s/scontrol", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "#!/bin/sh\n[ \"$1 $2\" = \"show hostnames\" ] || exit 9\n"
               "printf -- '%s'\nexit %d\n", text, code);
    fclose(f);
    chmod(path, 0755);
}

static void test_hosts(void)
{
    char dir[] = "/tmp/metampi-unit-slurm.XXXXXX", err[512], path[4096];
    EXPECT(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s:%s", dir, getenv("PATH"));
    setenv("PATH", path, 1);
    setenv("SLURM_JOB_NODELIST", "n[1-3]", 1);
    setenv("SLURM_TASKS_PER_NODE", "2(x2),1", 1);
    EXPECT(slurm_alloc_present());

    hostlist_t l = { 0 };
    fake_scontrol(dir, "n1\\nn2\\nn3\\n", 0);
    EXPECT(slurm_alloc_hosts(&l, err, sizeof err) == 0);
    EXPECT(l.n == 3 && strcmp(l.h[2].name, "n3") == 0 && l.h[0].slots == 2 && l.h[2].slots == 1);
    hostlist_free(&l);

    fake_scontrol(dir, "n1\\nn2\\n", 0);  /* fewer names than counts */
    EXPECT(slurm_alloc_hosts(&l, err, sizeof err) == -1);
    EXPECT(strstr(err, "names 2 hosts") && strstr(err, "SLURM_TASKS_PER_NODE='2(x2),1'"));
    hostlist_free(&l);

    fake_scontrol(dir, "n1\\nn2\\nn3\\nn4\\n", 0);
    EXPECT(slurm_alloc_hosts(&l, err, sizeof err) == -1 && strstr(err, "more hosts"));
    hostlist_free(&l);

    fake_scontrol(dir, "-bad\\n", 0);
    setenv("SLURM_TASKS_PER_NODE", "1", 1);
    EXPECT(slurm_alloc_hosts(&l, err, sizeof err) == -1 && strstr(err, "'-bad'"));
    hostlist_free(&l);

    fake_scontrol(dir, "", 1);
    EXPECT(slurm_alloc_hosts(&l, err, sizeof err) == -1);
    EXPECT(strstr(err, "'scontrol show hostnames n[1-3]' failed (exit status 1)") != NULL);
    hostlist_free(&l);

    unsetenv("SLURM_TASKS_PER_NODE");
    setenv("SLURM_JOB_CPUS_PER_NODE", "x", 1);
    EXPECT(slurm_alloc_hosts(&l, err, sizeof err) == -1);
    EXPECT(strstr(err, "malformed SLURM_JOB_CPUS_PER_NODE='x'") != NULL);
    unsetenv("SLURM_JOB_CPUS_PER_NODE");
    EXPECT(slurm_alloc_hosts(&l, err, sizeof err) == -1 && strstr(err, "give the hosts"));

    snprintf(path, sizeof path, "%s/scontrol", dir);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    test_counts();
    test_hosts();
    return expect_done("slurm_alloc");
}
