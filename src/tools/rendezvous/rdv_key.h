/*
 * The job key of a federated job: shared by the rendezvous server and every part (and from
 * there by every rank and gateway of the job), so it is made once and copied to each site.
 * It never appears on a command line: it comes from a key file (--key-file FILE) or from the
 * environment (METAMPI_JOB_KEY).
 *
 * A key file holds the key as 64 hex digits (a trailing newline is allowed, nothing else).
 * It must be a regular file (not a symbolic link; a FIFO or a device is refused without
 * waiting on it), owned by the user reading it (or root), that only its owner may read or
 * write (mode 0600 or 0400, as ssh demands of private keys); rdv_key_create makes one with a
 * fresh random key. From the environment, the key is taken out of it once read.
 *
 * The job key is what the parts and the server share; the rendezvous proves a key derived
 * from it (net/auth.h: AUTH_RENDEZVOUS).
 */
#ifndef RDV_KEY_H
#define RDV_KEY_H

#include "net/auth.h"

#include <stddef.h>

#define RDV_KEY_ENV "METAMPI_JOB_KEY"

/* The key from path, or from $METAMPI_JOB_KEY when path is NULL. 0, or -1 with a message in
 * err naming the file or variable and what is wrong. */
int rdv_key_load(const char *path, auth_key_t *k, char *err, size_t errlen);

/* Creates path (which must not exist) with mode 0600 holding a fresh random key. 0, or -1
 * with a message. */
int rdv_key_create(const char *path, char *err, size_t errlen);

#endif
