/*
 * metampi-gateway: a site's communication daemon (gateway.h), started by the launcher on the
 * site's gateway host. The job key comes in METAMPI_JOB_KEY (never on the command line; taken
 * out of the environment at once), the rest of the configuration on the command line
 * (config.h). The keys it proves are derived from it (net/auth.h).
 */
#include "config.h"
#include "gateway.h"
#include "runtime/tunables.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    gw_config_t c;
    char err[512];
    if (gw_config_parse(argc, argv, &c, err, sizeof err) != 0) {
        fprintf(stderr, "metampi-gateway: %s\n"
                        "usage: metampi-gateway --site S --gateways IP:PORT,... --rank-sites "
                        "LIST [--names N,...] [--streams N] [--compression auto|on|off] "
                        "[--congestion auto|system|NAME] [--encrypt on|off] [--timeout MS] "
                        "[--report-fd FD] [--stats on|off] [--cert FILE --key FILE --ca FILE "
                        "[--crl FILE]]\n"
                        "The site gateway of a metampi job; mpirun starts it.\n", err);
        return 2;
    }
    /* its variables (runtime/tunables.def), before any is used deep inside the loop */
    if (tunables_check(TUN_R_GATEWAY, err, sizeof err) != 0) {
        fprintf(stderr, "metampi-gateway: %s\n", err);
        gw_config_free(&c);
        return 2;
    }
    auth_key_t key;
    if (auth_key_take_env("METAMPI_JOB_KEY", &key) != 1) {
        fprintf(stderr, "metampi-gateway: METAMPI_JOB_KEY must hold the job key (%d hex "
                        "digits)\n", AUTH_KEY_HEX);
        gw_config_free(&c);
        return 2;
    }
    int rc = gateway_run(&c, &key);
    gw_config_free(&c);
    return rc;
}
