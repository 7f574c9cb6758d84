/* The PMI-2 client (runtime/pmi2_client.c): its parser, and the client against a fake
 * process manager in a child process speaking Slurm's side of the protocol (lengths padded on
 * the right, no ';' escapes), including a server that answers garbage or goes away. */
#include "runtime/pmi2_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "expect.h"

static int parse(const char *s, pmi2_msg_t *m)
{
    return pmi2_parse(s, strlen(s), m);
}

static void test_parse(void)
{
    pmi2_msg_t m;
    EXPECT(parse("cmd=kvs-get-response;rc=0;found=TRUE;value=a=b;", &m) == 0);
    EXPECT(m.npairs == 4 && strcmp(m.val[0], "kvs-get-response") == 0);
    EXPECT(strcmp(pmi2_get(&m, "value"), "a=b") == 0);  /* the first '=' ends the key */
    EXPECT(pmi2_get(&m, "missing") == NULL);
    EXPECT(parse("cmd=x;v=semi;;colon;", &m) == 0);      /* ";;" is a ';' (MPICH) */
    EXPECT(strcmp(pmi2_get(&m, "v"), "semi;colon") == 0);
    EXPECT(parse("cmd=x;empty=;", &m) == 0 && strcmp(pmi2_get(&m, "empty"), "") == 0);
    EXPECT(parse("cmd=x;k=v", &m) != 0);                 /* no closing ';' */
    EXPECT(parse("cmd=x;novalue;", &m) != 0);
    EXPECT(parse("cmd=x;=v;", &m) != 0);                 /* empty key */
    EXPECT(parse("key=v;", &m) != 0);                    /* cmd first */
    EXPECT(parse("cmd=;", &m) != 0);
    char many[2048] = "cmd=x;";
    for (int i = 0; i < PMI_WIRE_MAXPAIRS; i++)
        strcat(many, "k=v;");
    EXPECT(parse(many, &m) != 0);
}

/* ---- a fake Slurm: answers in the child until the client finalizes ---- */

static int send_frame(int fd, const char *body)
{
    char f[4096];
    int n = snprintf(f, sizeof f, "%-6zu%s", strlen(body), body);
    return write(fd, f, (size_t)n) == n ? 0 : -1;
}

static int read_frame(int fd, char *body, size_t cap)
{
    char head[7] = { 0 };
    if (read(fd, head, 6) != 6)
        return -1;
    size_t len = (size_t)atoi(head), got = 0;
    if (len >= cap)
        return -1;
    while (got < len) {
        ssize_t r = read(fd, body + got, len - got);
        if (r <= 0)
            return -1;
        got += (size_t)r;
    }
    body[len] = '\0';
    return 0;
}

/* mode: "ok", "refuse" (version 1 only), "garbage" (a bad length), "close" (after init) */
static void fake_server(int fd, const char *mode)
{
    char line[256], body[4096], keys[8][64], vals[8][256];
    int nkv = 0;
    ssize_t n = read(fd, line, sizeof line - 1);
    if (n <= 0)
        _exit(1);
    line[n] = '\0';
    if (strcmp(line, "cmd=init pmi_version=2 pmi_subversion=0\n") != 0)
        _exit(2);
    if (strcmp(mode, "refuse") == 0) {
        const char r[] = "cmd=response_to_init rc=1 pmi_version=1 pmi_subversion=1\n";
        (void)!write(fd, r, sizeof r - 1);
        _exit(0);
    }
    const char r[] = "cmd=response_to_init rc=0 pmi_version=2 pmi_subversion=0\n";
    (void)!write(fd, r, sizeof r - 1);
    if (strcmp(mode, "close") == 0)
        _exit(0);
    while (read_frame(fd, body, sizeof body) == 0) {
        pmi2_msg_t m;
        if (pmi2_parse(body, strlen(body), &m) != 0)
            _exit(3);
        const char *cmd = m.val[0], *key = pmi2_get(&m, "key");
        if (strcmp(mode, "garbage") == 0) {
            (void)!write(fd, "12x456cmd=", 10);
            _exit(0);
        }
        if (strcmp(cmd, "fullinit") == 0) {
            if (strcmp(pmi2_get(&m, "pmijobid"), "7.0") != 0 ||
                strcmp(pmi2_get(&m, "pmirank"), "1") != 0)
                _exit(4);
            send_frame(fd, "cmd=fullinit-response;rc=0;pmi-version=2;pmi-subversion=0;rank=1;"
                           "size=3;appnum=-1;debugged=FALSE;pmiverbose=FALSE;");
        } else if (strcmp(cmd, "info-getjobattr") == 0) {
            if (strcmp(key, "universeSize") == 0)
                send_frame(fd, "cmd=info-getjobattr-response;rc=0;found=TRUE;value=5;");
            else if (strcmp(key, "PMI_process_mapping") == 0)
                send_frame(fd, "cmd=info-getjobattr-response;rc=0;found=TRUE;"
                               "value=(vector,(0,3,1));");
            else
                send_frame(fd, "cmd=info-getjobattr-response;rc=0;found=FALSE;");
        } else if (strcmp(cmd, "job-getid") == 0) {
            send_frame(fd, "cmd=job-getid-response;rc=0;jobid=7.0;");
        } else if (strcmp(cmd, "kvs-put") == 0 && nkv < 8) {
            snprintf(keys[nkv], sizeof keys[nkv], "%s", key);
            snprintf(vals[nkv++], sizeof vals[0], "%s", pmi2_get(&m, "value"));
            send_frame(fd, "cmd=kvs-put-response;rc=0;");
        } else if (strcmp(cmd, "kvs-fence") == 0) {
            send_frame(fd, "cmd=kvs-fence-response;rc=0;");
        } else if (strcmp(cmd, "kvs-get") == 0) {
            char reply[4096] = "cmd=kvs-get-response;rc=0;found=FALSE;";
            for (int i = 0; i < nkv; i++)
                if (strcmp(keys[i], key) == 0)
                    snprintf(reply, sizeof reply, "cmd=kvs-get-response;rc=0;found=TRUE;"
                             "value=%s;", vals[i]);
            send_frame(fd, reply);
        } else if (strcmp(cmd, "finalize") == 0) {
            send_frame(fd, "cmd=finalize-response;rc=0;");
            _exit(0);
        } else {
            _exit(5);
        }
    }
    _exit(6);
}

static pid_t start(pmi_client_t *c, const char *mode)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        fake_server(sv[1], mode);
    }
    close(sv[1]);
    memset(c, 0, sizeof *c);
    c->proto = PMI_PROTO_2;
    c->fd = sv[0];
    c->rank = 1;
    c->size = 3;
    return pid;
}

static int server_status(pid_t pid)
{
    int st;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

static void test_client(void)
{
    pmi_client_t c;
    char err[256], v[256];
    setenv("PMI_JOBID", "7.0", 1);
    pid_t pid = start(&c, "ok");
    EXPECT(pmi2_client_init(&c, err, sizeof err) == 0);
    EXPECT(c.appnum == 0 && c.universe_size == 5);  /* Slurm's appnum -1: one application */
    EXPECT(strcmp(c.kvsname, "pmi2-7.0") == 0);
    EXPECT(pmi2_client_put(&c, "tcp.1", "10.0.0.1:4000", err, sizeof err) == 0);
    EXPECT(pmi2_client_put(&c, "bad", "a;b", err, sizeof err) == -1);  /* Slurm: no ';' */
    EXPECT(strstr(err, "'bad'") != NULL);
    EXPECT(pmi2_client_barrier(&c, err, sizeof err) == 0);
    EXPECT(pmi2_client_get(&c, "tcp.1", v, sizeof v, err, sizeof err) == 0);
    EXPECT(strcmp(v, "10.0.0.1:4000") == 0);
    EXPECT(pmi2_client_get(&c, "tcp.9", v, sizeof v, err, sizeof err) == 1);  /* absent */
    EXPECT(pmi2_client_get(&c, "tcp.1", v, 5, err, sizeof err) == -1);        /* too long */
    EXPECT(pmi2_client_get(&c, "PMI_process_mapping", v, sizeof v, err, sizeof err) == 0);
    EXPECT(strcmp(v, "(vector,(0,3,1))") == 0);
    EXPECT(pmi2_client_finalize(&c) == 0 && c.fd == -1);
    EXPECT(server_status(pid) == 0);

    pid = start(&c, "refuse");
    EXPECT(pmi2_client_init(&c, err, sizeof err) == -1);
    EXPECT(strstr(err, "refused PMI version 2.0") && strstr(err, "METAMPI_PMI=1"));
    close(c.fd);
    EXPECT(server_status(pid) == 0);

    pid = start(&c, "garbage");
    EXPECT(pmi2_client_init(&c, err, sizeof err) == -1);
    EXPECT(strstr(err, "malformed PMI-2 length") != NULL);
    close(c.fd);
    EXPECT(server_status(pid) == 0);

    pid = start(&c, "close");
    EXPECT(pmi2_client_init(&c, err, sizeof err) == -1);
    /* gone before or while the client writes its fullinit */
    EXPECT(strstr(err, "lost the connection") || strstr(err, "cannot write to the process"));
    close(c.fd);
    EXPECT(server_status(pid) == 0);
}

int main(void)
{
    test_parse();
    test_client();
    return expect_done("pmi2");
}
