/* Info key "file" of MPI_Comm_spawn (api/dynproc_info.h): a file of "key value" lines. Root
 * writes one naming host HOST (default: its own host) and wdir /tmp, with a comment and a
 * "key=value" line; the child must run on HOST in /tmp. Then info's own wdir (/) wins over
 * the file's. A file that does not exist, and one with an unknown key, fail the spawn with
 * MPI_ERR_SPAWN at every parent. Usage: spawn_file [HOST] | spawn_file why (a spawn with the
 * bad file under MPI_ERRORS_ARE_FATAL: the job ends with the reason) */
#include "../check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void expect_child(MPI_Comm comm, MPI_Info info, const char *self, const char *host,
                         const char *cwd)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    char *args[] = { "child", NULL };
    MPI_Comm inter;
    CHECK_RC(MPI_Comm_spawn(self, args, 1, info, 0, comm, &inter, MPI_ERRCODES_IGNORE),
             MPI_SUCCESS);
    if (rank == 0) {
        char where[MPI_MAX_PROCESSOR_NAME] = "", dir[4096] = "";
        MPI_Recv(where, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 9, inter, MPI_STATUS_IGNORE);
        MPI_Recv(dir, sizeof dir, MPI_CHAR, 0, 10, inter, MPI_STATUS_IGNORE);
        if (strcmp(where, host) != 0 || strcmp(dir, cwd) != 0)
            fprintf(stderr, "child on '%s' in '%s', expected '%s' in '%s'\n", where, dir, host,
                    cwd);
        CHECK(strcmp(where, host) == 0 && strcmp(dir, cwd) == 0);
    }
    CHECK_RC(MPI_Comm_disconnect(&inter), MPI_SUCCESS);
}

static void expect_refusal(MPI_Info info, const char *self)
{
    char *args[] = { "child", NULL };
    MPI_Comm inter;
    int code = -1, cls = -1, rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Error_class(MPI_Comm_spawn(self, args, 1, info, 0, MPI_COMM_WORLD, &inter, &code),
                    &cls);
    CHECK(cls == MPI_ERR_SPAWN && inter == MPI_COMM_NULL);
    CHECK(rank != 0 || code == MPI_ERR_SPAWN);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc >= 2 && strcmp(argv[1], "child") == 0) {
        MPI_Comm parent;
        char where[MPI_MAX_PROCESSOR_NAME], dir[4096] = "";
        int len;
        MPI_Comm_get_parent(&parent);
        MPI_Get_processor_name(where, &len);
        CHECK(getcwd(dir, sizeof dir) != NULL);
        MPI_Send(where, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, 9, parent);
        MPI_Send(dir, sizeof dir, MPI_CHAR, 0, 10, parent);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    int rank, len;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(host, &len);
    int why = argc >= 2 && strcmp(argv[1], "why") == 0;
    if (argc >= 2 && !why)
        snprintf(host, sizeof host, "%s", argv[1]);
    /* the file, on root's host, read by root only */
    char path[64], bad[64];
    int id = (int)getpid();
    MPI_Bcast(&id, 1, MPI_INT, 0, MPI_COMM_WORLD);
    snprintf(path, sizeof path, "/tmp/metampi-spawn-file-%d", id);
    snprintf(bad, sizeof bad, "/tmp/metampi-spawn-file-%d.bad", id);
    if (rank == 0) {
        FILE *f = fopen(path, "w");
        CHECK(f);
        fprintf(f, "# where the child runs\n\n  host %s\nwdir=/tmp\n", host);
        fclose(f);
        f = fopen(bad, "w");
        CHECK(f);
        fprintf(f, "host %s\nhots %s\n", host, host);
        fclose(f);
    }
    MPI_Info info;
    MPI_Info_create(&info);
    if (why) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0)
            unlink(path);
        MPI_Info_set(info, "file", bad);
        char *args[] = { "child", NULL };
        MPI_Comm inter;
        MPI_Comm_spawn(argv[0], args, 1, info, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    }
    MPI_Info_set(info, "file", path);
    expect_child(MPI_COMM_WORLD, info, argv[0], host, "/tmp");
    MPI_Info_set(info, "wdir", "/");   /* info's own key wins */
    expect_child(MPI_COMM_WORLD, info, argv[0], host, "/");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Info_set(info, "file", "/nonexistent/metampi-spawn-file");
    expect_refusal(info, argv[0]);
    MPI_Info_set(info, "file", bad);
    expect_refusal(info, argv[0]);
    MPI_Info_free(&info);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(path);
        unlink(bad);
        printf("parents: info key file read\n");
    }
    MPI_Finalize();
    return 0;
}
