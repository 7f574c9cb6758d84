#include "runtime/job_spawn.h"

#include "runtime/job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int job_can_spawn(void)
{
    /* our mpirun says so in the space of every part it can spawn from (one host so far) */
    static int known, can;
    if (!known && job.pmi.proto == PMI_PROTO_1 && job.pmi.fd >= 0 &&
        job.launcher_reports_abort) {
        char v[8], err[128];
        can = job_get("metampi.spawn", v, sizeof v, err, sizeof err) == 0;
        known = 1;
    }
    return can;
}

int job_can_use_ports(void)
{
    /* wherever our mpirun spawns, it keeps the shared space too (in a federated job the
     * first site's mpirun, for every part: docs/dynproc.md, "Federated jobs") */
    return job_can_spawn();
}

const char *job_ports_refusal(void)
{
    return job_spawn_refusal();
}

const char *job_spawn_refusal(void)
{
    static int known, sites;
    if (!known && job.pmi.proto == PMI_PROTO_1 && job.pmi.fd >= 0 &&
        job.launcher_reports_abort) {
        char v[16], err[128];
        sites = job_get("metampi.nospawn", v, sizeof v, err, sizeof err) == 0 &&
                strcmp(v, "sites") == 0;
        known = 1;
    }
    return sites ? "metampi's mpirun cannot start ranks or keep ports in a federated job (one "
                   "mpirun per site, through metampi-rendezvous) yet: no mpirun holds every "
                   "part's keys (one mpirun --metacomputer can)"
                 : "the process manager cannot start ranks or keep ports (metampi's mpirun "
                   "can)";
}

int job_get_in(const char *kvsname, const char *key, char *value, int vallen, char *err,
               int errlen)
{
    return pmi_client_get_in(&job.pmi, kvsname, key, value, vallen, err, errlen);
}

static void hex(const char *s, char *out)
{
    static const char digits[] = "0123456789abcdef";
    if (!*s) {
        strcpy(out, "-");
        return;
    }
    for (; *s; s++) {
        *out++ = digits[(unsigned char)*s >> 4];
        *out++ = digits[(unsigned char)*s & 15];
    }
    *out = '\0';
}

/* The text of a hex-coded reason (msg may be NULL) into why: its length (0: none). */
static int unhex(const char *msg, char *why, int whylen)
{
    int len = 0;
    for (const char *p = msg; p && p[0] && p[1] && len < whylen - 1; p += 2) {
        unsigned v;
        if (sscanf(p, "%2x", &v) != 1 || v == 0)
            break;
        why[len++] = (char)v;
    }
    why[len] = '\0';
    return len;
}

/* One line of the request: 0, 1 (refused: a bound of the launcher), -1 (why). */
static int send_line(const char *line, char *why, int whylen)
{
    pmi_msg_t r;
    if (pmi_client_command(&job.pmi, line, "spawn_ack", &r, why, whylen) != 0)
        return -1;
    const char *rc = pmi_msg_get(&r, "rc");
    if (rc && strcmp(rc, "0") == 0)
        return 0;
    snprintf(why, (size_t)whylen, "the request is too large for the launcher");
    return 1;
}

/* Strings of a request line: each hex-coded value must fit a PMI value. */
#define HEX_MAX ((PMI_WIRE_VALLEN_MAX - 1) / 2)

static int fits(const char *s, const char *what, char *why, int whylen)
{
    if (strlen(s) <= HEX_MAX)
        return 1;
    snprintf(why, (size_t)whylen, "%s is longer than %d bytes", what, HEX_MAX);
    return 0;
}

int job_spawn(const job_spawn_app_t *apps, int napps, const char *const *preput, int npreput,
              char *kvsname, int cap, int *size, char *why, int whylen)
{
    if (!job_can_spawn()) {
        snprintf(why, (size_t)whylen, "the process manager cannot start ranks (only metampi's "
                 "mpirun can)");
        return 1;
    }
    char line[PMI_WIRE_MAXLINE], a[PMI_WIRE_VALLEN_MAX + 1], b[PMI_WIRE_VALLEN_MAX + 1];
    int rc = 0;
    for (int i = 0; rc == 0 && i < napps; i++) {
        const job_spawn_app_t *app = &apps[i];
        if (!fits(app->command, "a command", why, whylen))
            return 1;
        hex(app->command, a);
        snprintf(line, sizeof line, "cmd=spawn_app maxprocs=%d execname=%s\n", app->maxprocs,
                 a);
        rc = send_line(line, why, whylen);
        for (int k = 0; rc == 0 && app->argv && app->argv[k]; k++) {
            if (!fits(app->argv[k], "an argument", why, whylen))
                rc = 1;
            else {
                hex(app->argv[k], a);
                snprintf(line, sizeof line, "cmd=spawn_arg value=%s\n", a);
                rc = send_line(line, why, whylen);
            }
        }
        for (int k = 0; rc == 0 && k < app->ninfo; k++) {
            if (!fits(app->info[2 * k], "an info key", why, whylen) ||
                !fits(app->info[2 * k + 1], "an info value", why, whylen))
                rc = 1;
            else {
                hex(app->info[2 * k], a);
                hex(app->info[2 * k + 1], b);
                snprintf(line, sizeof line, "cmd=spawn_info key=%s value=%s\n", a, b);
                rc = send_line(line, why, whylen);
            }
        }
    }
    for (int k = 0; rc == 0 && k < npreput; k++) {
        snprintf(line, sizeof line, "cmd=spawn_preput key=%s value=%s\n", preput[2 * k],
                 preput[2 * k + 1]);
        rc = send_line(line, why, whylen);
    }
    /* the request ends with cmd=spawn even when refused, so the launcher drops it */
    char ignored[256];
    pmi_msg_t r;
    if (pmi_client_command(&job.pmi, "cmd=spawn\n", "spawn_result", &r,
                           rc ? ignored : why, rc ? (int)sizeof ignored : whylen) != 0)
        return -1;
    if (rc)
        return rc;
    const char *ok = pmi_msg_get(&r, "rc"), *k = pmi_msg_get(&r, "kvsname"),
               *n = pmi_msg_get(&r, "size"), *msg = pmi_msg_get(&r, "msg");
    if (!ok || strcmp(ok, "0") != 0) {
        if (!unhex(msg, why, whylen))
            snprintf(why, (size_t)whylen, "the launcher refused the request");
        return 1;
    }
    if (!k || !n || (int)strlen(k) >= cap || (*size = atoi(n)) <= 0) {
        snprintf(why, (size_t)whylen, "the launcher's answer to a spawn request is malformed");
        return -1;
    }
    strcpy(kvsname, k);
    return 0;
}

int job_shared(const char *name, const char *expect, const char *k1, const char *v1, int hex1,
               const char *k2, const char *v2, int hex2, pmi_msg_t *reply, char *err,
               int errlen)
{
    if (!job_can_spawn()) {
        snprintf(err, (size_t)errlen, "the process manager has no shared space (only "
                 "metampi's mpirun has)");
        return -1;
    }
    char line[PMI_WIRE_MAXLINE], a[PMI_WIRE_VALLEN_MAX + 1], b[PMI_WIRE_VALLEN_MAX + 1];
    const char *va = v1, *vb = v2;
    if (k1 && hex1) {
        if (!fits(v1, "a name", err, errlen))
            return -1;
        hex(v1, a);
        va = a;
    }
    if (k2 && hex2) {
        if (!fits(v2, "a name", err, errlen))
            return -1;
        hex(v2, b);
        vb = b;
    }
    snprintf(line, sizeof line, "cmd=%s%s%s%s%s%s%s%s%s\n", name, k1 ? " " : "", k1 ? k1 : "",
             k1 ? "=" : "", k1 ? va : "", k2 ? " " : "", k2 ? k2 : "", k2 ? "=" : "",
             k2 ? vb : "");
    if (pmi_client_command(&job.pmi, line, expect, reply, err, errlen) != 0)
        return -1;
    if (job_reply_rc(reply) == JOB_SHARED_UNREACHABLE) {
        /* a federated job's space is kept by another site's mpirun, which cannot be asked */
        char why[256];
        if (!unhex(pmi_msg_get(reply, "msg"), why, (int)sizeof why))
            snprintf(why, sizeof why, "no reason given");
        snprintf(err, (size_t)errlen, "the job's names and ports are kept by the mpirun of "
                 "the first site, which this site's mpirun cannot reach: %s", why);
        return -1;
    }
    return 0;
}

int job_reply_rc(const pmi_msg_t *reply)
{
    const char *rc = pmi_msg_get(reply, "rc");
    return rc ? atoi(rc) : -2;
}
