/*
 * metampi-gateway: a site's communication daemon (gateway.h), started by the launcher on the
 * site's gateway host. The job key comes in METAMPI_JOB_KEY (never on the command line), the
 * rest of the configuration on the command line (config.h).
 */
#include "config.h"
#include "gateway.h"

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
                        "[--congestion auto|system|NAME] [--timeout MS] [--report-fd FD]\n"
                        "The site gateway of a metampi job; mpirun starts it.\n", err);
        return 2;
    }
    auth_key_t key;
    const char *hex = getenv("METAMPI_JOB_KEY");
    if (!hex || auth_key_from_hex(hex, &key) != 0) {
        fprintf(stderr, "metampi-gateway: METAMPI_JOB_KEY must hold the job key (%d hex "
                        "digits)\n", AUTH_KEY_HEX);
        gw_config_free(&c);
        return 2;
    }
    unsetenv("METAMPI_JOB_KEY");
    int rc = gateway_run(&c, &key);
    gw_config_free(&c);
    return rc;
}
