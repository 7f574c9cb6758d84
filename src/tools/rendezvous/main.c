/*
 * metampi-rendezvous: the startup server of a federated job (PACX-MPI's startup server, seed
 * digest §1). One fixed address that the mpirun of every site (each started by its own batch
 * system) can reach; it waits until every site of the description has joined, hands each the
 * world layout and exits. The protocol is rdv_wire.h, the policy rdv_server.h, the user's
 * view docs/metacomputer.md ("Federated start").
 */
#include "metacomputer.h"
#include "rdv_client.h"
#include "rdv_key.h"
#include "rdv_server.h"
#include "rdv_wire.h"

#include "net/addr.h"
#include "net/secure.h"
#include "net/sock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef METAMPI_VERSION_STRING
#define METAMPI_VERSION_STRING "unknown"
#endif

#define TIMEOUT_DEFAULT_S 600
#define TIMEOUT_MAX_S (7 * 24 * 3600)

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: metampi-rendezvous --listen ADDR:PORT --metacomputer FILE --job ID\n"
            "                          [--timeout SECONDS] [--key-file FILE]\n"
            "       metampi-rendezvous --make-key FILE\n"
            "The startup server of a federated job: the mpirun of every site of FILE joins it\n"
            "(mpirun --rendezvous HOST:PORT --site NAME --job ID ...); once every site has\n"
            "joined, each gets the world layout and the server exits (status 0). A site that\n"
            "has not joined SECONDS after the first one calls the job off (status 1).\n"
            "\n"
            "Options:\n"
            "  --listen ADDR:PORT   where to listen: an address or host name of this machine\n"
            "                       (0.0.0.0: all IPv4 addresses); PORT 0 picks a free port\n"
            "  --metacomputer FILE  the description every part uses (its [site NAME]s)\n"
            "  --job ID             the job's name (1-64 letters, digits, '.', '-', '_'); the\n"
            "                       parts give the same --job\n"
            "  --timeout SECONDS    how long to wait for the other sites after the first one\n"
            "                       joined (default %d)\n"
            "  --key-file FILE      the job key (default: $METAMPI_JOB_KEY); every part needs\n"
            "                       the same key\n"
            "  --make-key FILE      write a new random job key to FILE (mode 0600; FILE must\n"
            "                       not exist) and exit; copy it to every site\n"
            "  --version            print the version and exit\n"
            "  -h, --help           print this help and exit\n"
            "\n"
            "With cert, key and ca in a [rendezvous] section of FILE (and at its sites), the\n"
            "server shows that certificate and takes only parts whose certificate chains to\n"
            "that ca (and passes its crl) and names the site they join.\n"
            "Log lines (who joined, who was refused and why) go to stderr; the first one says\n"
            "where the server listens.\n",
            TIMEOUT_DEFAULT_S);
}

static void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void msg(const char *fmt, ...)
{
    char text[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(text, sizeof text - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (n > (int)sizeof text - 2)
        n = (int)sizeof text - 2;
    text[n++] = '\n';
    /* one write, so lines from a shared stderr never interleave */
    char line[4200];
    int l = snprintf(line, sizeof line, "metampi-rendezvous: %.*s", n, text);
    if (write(STDERR_FILENO, line, (size_t)(l < (int)sizeof line ? l : (int)sizeof line - 1)) <
        0)
        return;
}

static void log_line(void *ctx, const char *text)
{
    (void)ctx;
    msg("%s", text);
}

/* "--name VALUE" or "--name=VALUE" (one or two dashes); NULL if argv[*i] is not it. */
static const char *opt(int argc, char **argv, int *i, const char *name, int *missing)
{
    const char *a = argv[*i];
    if (a[0] != '-')
        return NULL;
    a += a[1] == '-' ? 2 : 1;
    size_t l = strlen(name);
    if (strncmp(a, name, l) != 0)
        return NULL;
    if (a[l] == '=')
        return a + l + 1;
    if (a[l] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return "";
    }
    return argv[++*i];
}

/* A listening socket on ADDR:PORT (a name, an IPv4 or [IPv6] address; [::] listens on both
 * families); the address actually bound in `shown`. -1 after a message. */
static int listen_on(const char *spec, char *shown, size_t cap)
{
    net_addr_t a;
    char why[160];
    const char *bad = net_addr_parse(spec, NET_ADDR_PORT_ZERO, 0, &a, why, sizeof why);
    if (bad) {
        msg("invalid --listen '%s': %s%s%s (expected ADDR:PORT, [IPv6]:PORT, PORT 0-65535)",
            spec, bad, *why ? ": " : "", why);
        return -1;
    }
    int fd = net_listen(&a, 128, 1);
    if (fd < 0) {
        msg("cannot listen on %s: %s", spec, strerror(errno));
        return -1;
    }
    net_addr_format(&a, shown, cap);
    return fd;
}

int main(int argc, char **argv)
{
    const char *listen_spec = NULL, *mc_path = NULL, *job = NULL, *key_file = NULL,
               *make_key = NULL, *timeout_s = NULL, *v;
    for (int i = 1; i < argc; i++) {
        int missing = 0;
        const char **slot = NULL;
        const char *name = NULL;
        if ((v = opt(argc, argv, &i, "listen", &missing)))
            slot = &listen_spec, name = "listen";
        else if ((v = opt(argc, argv, &i, "metacomputer", &missing)))
            slot = &mc_path, name = "metacomputer";
        else if ((v = opt(argc, argv, &i, "job", &missing)))
            slot = &job, name = "job";
        else if ((v = opt(argc, argv, &i, "key-file", &missing)))
            slot = &key_file, name = "key-file";
        else if ((v = opt(argc, argv, &i, "make-key", &missing)))
            slot = &make_key, name = "make-key";
        else if ((v = opt(argc, argv, &i, "timeout", &missing)))
            slot = &timeout_s, name = "timeout";
        if (slot) {
            if (missing || !*v) {
                msg("option --%s requires a value (see --help)", name);
                return 2;
            }
            if (*slot) {
                msg("--%s given twice ('%s' and '%s')", name, *slot, v);
                return 2;
            }
            *slot = v;
            continue;
        }
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0 || strcmp(a, "-help") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--version") == 0 || strcmp(a, "-version") == 0) {
            printf("metampi-rendezvous (metampi) %s\n", METAMPI_VERSION_STRING);
            return 0;
        }
        msg("unknown argument '%s' (see metampi-rendezvous --help)", a);
        return 2;
    }
    char err[2048];
    if (make_key) {
        if (listen_spec || mc_path || job || key_file || timeout_s) {
            msg("--make-key FILE makes a key and exits: give it alone");
            return 2;
        }
        if (rdv_key_create(make_key, err, sizeof err) != 0) {
            msg("%s", err);
            return 1;
        }
        msg("wrote a new job key to %s (mode 0600); copy it to every site", make_key);
        return 0;
    }
    if (!listen_spec || !mc_path || !job) {
        msg("missing %s (usage: metampi-rendezvous --listen ADDR:PORT --metacomputer FILE "
            "--job ID)", !listen_spec ? "--listen ADDR:PORT" : !mc_path ? "--metacomputer FILE"
                                                                         : "--job ID");
        return 2;
    }
    if (!rdv_valid_name(job)) {
        msg("invalid --job '%s' (expected 1 to %d letters, digits, '.', '-' or '_')", job,
            RDV_NAME_MAX);
        return 2;
    }
    char lhost[256], lport[8];
    if (rdv_split_hostport(listen_spec, lhost, sizeof lhost, lport, sizeof lport, 0) != 0) {
        msg("invalid --listen '%s' (expected ADDR:PORT, PORT 0-65535)", listen_spec);
        return 2;
    }
    long timeout = TIMEOUT_DEFAULT_S;
    if (timeout_s) {
        char *end;
        errno = 0;
        timeout = strtol(timeout_s, &end, 10);
        if (errno || end == timeout_s || *end || timeout < 1 || timeout > TIMEOUT_MAX_S) {
            msg("invalid --timeout '%s' (expected whole seconds from 1 to %d)", timeout_s,
                TIMEOUT_MAX_S);
            return 2;
        }
    }
    rdv_server_config_t cfg = { .job = job, .timeout_ms = timeout * 1000LL, .log = log_line };
    auth_key_t job_key;
    if (rdv_key_load(key_file, &job_key, err, sizeof err) != 0) {
        msg("%s", err);
        return 2;
    }
    if (auth_derive(&job_key, AUTH_RENDEZVOUS, &cfg.key) != 0) {
        msg("cannot derive the rendezvous key from the job key (libcrypto)");
        return 2;
    }
    metacomputer_t mc;
    if (mc_read_file(mc_path, &mc, err, sizeof err) != 0) {
        msg("%s", err);
        return 2;
    }
    const char **sites = malloc((size_t)mc.nsites * sizeof *sites);
    if (!sites)
        return 1;
    size_t len = 0;
    char names[1024] = "";
    for (int s = 0; s < mc.nsites; s++) {
        sites[s] = mc.site[s].name;
        if (len + strlen(sites[s]) + 8 < sizeof names)
            len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", s ? ", " : "",
                                    sites[s]);
    }
    cfg.sites = sites;
    cfg.nsites = mc.nsites;
    char wan[RDV_WAN_MAX + 1];
    rdv_wan_text(mc.streams, mc_compression_name(mc.compression), mc.congestion, !mc.plaintext,
                 mc_outage(&mc), wan, sizeof wan);
    cfg.wan = wan;
    if (mc.rdv_x509[MC_CERT]) {
        /* [rendezvous]: this server's certificate; the parts show their sites' */
        if (net_secure_x509_load(mc.rdv_x509[MC_CERT], mc.rdv_x509[MC_KEY], mc.rdv_x509[MC_CA],
                                 mc.rdv_x509[MC_CRL], err, sizeof err) != 0) {
            msg("X.509 ([rendezvous] cert, key, ca%s): %s", mc.rdv_x509[MC_CRL] ? ", crl" : "",
                err);
            free(sites);
            mc_free(&mc);
            return 2;
        }
        cfg.x509 = 1;
    }

    signal(SIGPIPE, SIG_IGN);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
    cfg.signal_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
    if (cfg.signal_fd < 0) {
        msg("cannot set up signal handling: %s", strerror(errno));
        return 1;
    }
    char shown[128];
    cfg.listen_fd = listen_on(listen_spec, shown, sizeof shown);
    if (cfg.listen_fd < 0)
        return 1;
    msg("listening on %s for job %s: %d site%s (%s), %ld s for the others after the first "
        "joins%s", shown, job, mc.nsites, mc.nsites == 1 ? "" : "s", names, timeout,
        cfg.x509 ? "; parts authenticated by X.509 ([rendezvous] ca)" : "");
    int status = rdv_server_run(&cfg);
    close(cfg.listen_fd);
    close(cfg.signal_fd);
    free(sites);
    mc_free(&mc);
    return status;
}
