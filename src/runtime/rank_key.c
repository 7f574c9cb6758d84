#include "runtime/rank_key.h"

#include <openssl/crypto.h>
#include <stdio.h>

static struct {
    int taken, have;
    auth_key_t key;
} rk;

int rank_key_take(char *err, int errlen)
{
    if (rk.taken)
        return 0;
    rk.taken = 1;
    int rc = auth_key_take_env(RANK_KEY_ENV, &rk.key);
    rk.have = rc == 1;
    if (rc < 0) {
        snprintf(err, (size_t)errlen, "%s is not a key (%d hex digits), as our mpirun sets it",
                 RANK_KEY_ENV, AUTH_KEY_HEX);
        return -1;
    }
    return 0;
}

int rank_key_get(auth_key_t *k)
{
    if (rk.have)
        *k = rk.key;
    return rk.have;
}

void rank_key_forget(void)
{
    OPENSSL_cleanse(&rk.key, sizeof rk.key);
    rk.have = 0;
}
