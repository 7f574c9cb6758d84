/*
 * PMI-1 wire protocol, shared by the library's client (runtime/pmi_client.c) and the
 * launcher's server (tools/mpirun).
 *
 * One command per line: "cmd=NAME key=value key=value\n". Keys and values are separated by
 * single spaces; a value never contains a space or a newline (the first '=' of a token ends
 * the key). A token without '=' continues the previous value (some clients send free text,
 * e.g. "cmd=abort exitcode=1 error_msg=some words"). Lines are at most PMI_WIRE_MAXLINE
 * bytes including the newline.
 */
#ifndef METAMPI_PMI_WIRE_H
#define METAMPI_PMI_WIRE_H

#include <stddef.h>

#define PMI_WIRE_MAXLINE  4096
#define PMI_WIRE_MAXPAIRS 32

/* Limits this implementation announces in cmd=maxes and honours. */
#define PMI_WIRE_KVSNAME_MAX 256
#define PMI_WIRE_KEYLEN_MAX  256
#define PMI_WIRE_VALLEN_MAX  1024

typedef struct pmi_msg {
    int npairs;
    const char *key[PMI_WIRE_MAXPAIRS];
    const char *val[PMI_WIRE_MAXPAIRS];
    char buf[PMI_WIRE_MAXLINE + 1];
} pmi_msg_t;

/* Parses one line (with or without its trailing newline). Returns 0, or -1 when the line is
 * too long, has no "cmd=" first, has an empty key, or has too many pairs. */
int pmi_wire_parse(const char *line, size_t len, pmi_msg_t *msg);

/* The value of key, or NULL when absent. */
const char *pmi_msg_get(const pmi_msg_t *msg, const char *key);

/* The command name (value of the leading "cmd" key). */
const char *pmi_msg_cmd(const pmi_msg_t *msg);

/* Nonzero when s can travel as a key or value: non-empty, printable, no space, no '='
 * (keys only) and within max bytes. */
int pmi_wire_valid_key(const char *s);
int pmi_wire_valid_value(const char *s);

#endif
