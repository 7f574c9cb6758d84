/*
 * Fuzz target: the launcher's control channel (tools/launch/ctl.c) — every frame mpirun
 * reads from a per-host helper and the helper from mpirun. Parses frames back to back as a
 * reader of the stream would, including the string lists it walks.
 */
#include "ctl.h"

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t off = 0;
    while (off < size) {
        ctl_frame_t f;
        size_t used = 0;
        char err[256];
        int rc = ctl_parse(data + off, size - off, &f, &used, err, sizeof err);
        if (rc != CTL_OK)
            break;
        if (used == 0 || used > size - off)
            abort(); /* must consume a whole frame inside the input */
        off += used;
    }
    return 0;
}

void fuzz_make_seeds(void (*add)(const void *data, size_t size))
{
    ctl_buf_t b = { 0 };
    ctl_begin(&b, CTL_HELLO);
    ctl_put_u32(&b, 1);
    ctl_put_u32(&b, 1);
    ctl_put_u32(&b, 42);
    ctl_end(&b);
    ctl_begin(&b, CTL_OUTPUT);
    ctl_put_u8(&b, 1);
    ctl_put_u8(&b, 0);
    ctl_put_u32(&b, 3);
    ctl_put_data(&b, "hello\n", 6);
    ctl_end(&b);
    static const char *const kv[] = { "tcp.0", "h1|10.0.0.1:4000", "PMI_process_mapping",
                                      "(vector,(0,2,2))" };
    ctl_begin(&b, CTL_KVS);
    ctl_put_strs(&b, kv, 4);
    ctl_end(&b);
    ctl_begin(&b, CTL_ABORTED);
    ctl_put_u32(&b, 1);
    ctl_put_u32(&b, 99);
    ctl_put_u32(&b, 3);
    ctl_put_u8(&b, 1);
    ctl_put_str(&b, "MPI_Abort");
    ctl_end(&b);
    ctl_begin(&b, CTL_BARRIER_IN);
    ctl_end(&b);
    ctl_begin(&b, CTL_BEAT);
    ctl_end(&b);
    static const char *const put[] = { "metampi.ready", "1" };
    ctl_begin(&b, CTL_PARTS);
    ctl_put_u8(&b, CTL_PARTS_PUT);
    ctl_put_u32(&b, 1);
    ctl_put_u32(&b, 0);
    ctl_put_strs(&b, put, 2);
    ctl_end(&b);
    add(b.p, b.len);
    /* mpirun -> helper: the job description, with the site layout's key-value pairs */
    ctl_buf_t j = { 0 };
    static const char *const argv[] = { "prog", "x" }, *const env[] = { "A=1" },
                             *const hosts[] = { "s1h1", "s2h1" },
                             *const sites[] = { "metampi.sites", "2,1,1", "metampi.site_names",
                                                "a,b", "metampi.rank_sites", "0*2,1*2" };
    ctl_begin(&j, CTL_JOB);
    ctl_put_str(&j, "/tmp");
    ctl_put_str(&j, "prog");
    ctl_put_strs(&j, argv, 2);
    ctl_put_strs(&j, env, 1);
    ctl_put_u32(&j, 4);
    ctl_put_u32(&j, 1);
    ctl_put_strs(&j, hosts, 2);
    ctl_put_u32(&j, 2);
    ctl_put_u32(&j, 2);
    ctl_put_u32(&j, 3);
    ctl_put_str(&j, "kvs_1_2");
    ctl_put_str(&j, "(vector,(0,2,2))");
    ctl_put_strs(&j, sites, 6);
    ctl_put_strs(&j, argv, 2); /* gateway arguments */
    ctl_put_u8(&j, 0);
    ctl_put_u8(&j, 0);
    ctl_put_u8(&j, 0);
    ctl_put_u32(&j, 60); /* peer timeout */
    ctl_put_u32(&j, 60); /* silence */
    ctl_end(&j);
    add(j.p, j.len);
    ctl_buf_free(&j);
    /* a helper started for spawned ranks only: a JOB naming no ranks, and a spawned rank's
     * exit with a job-wide number past CTL_MAX_RANKS */
    static const char *const spawn_kv[] = { "metampi.spawn", "1" };
    ctl_begin(&j, CTL_JOB);
    ctl_put_str(&j, "/tmp");
    ctl_put_str(&j, "prog");
    ctl_put_strs(&j, argv, 2);
    ctl_put_strs(&j, env, 1);
    ctl_put_u32(&j, 2);
    ctl_put_u32(&j, 1);
    ctl_put_strs(&j, hosts, 2);
    ctl_put_u32(&j, 0);
    ctl_put_str(&j, "kvs_1_2");
    ctl_put_str(&j, "(vector,(0,1,2))");
    ctl_put_strs(&j, spawn_kv, 2);
    ctl_put_strs(&j, NULL, 0);
    ctl_put_u8(&j, 0);
    ctl_put_u8(&j, 0);
    ctl_put_u8(&j, 0);
    ctl_put_u32(&j, 60);
    ctl_put_u32(&j, 0);
    ctl_end(&j);
    ctl_begin(&j, CTL_EXITED);
    ctl_put_u32(&j, 5000);
    ctl_put_u32(&j, 77);
    ctl_put_u32(&j, 0);
    ctl_put_u8(&j, 1);
    ctl_put_u8(&j, 1);
    ctl_end(&j);
    add(j.p, j.len);
    ctl_buf_free(&j);
    ctl_buf_free(&b);
}
