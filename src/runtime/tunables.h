/*
 * The registry of environment variables (docs/tunables.md): every METAMPI_* variable that the
 * library or a tool reads is an entry of tunables.def, with its type, bounds, default, unit,
 * kind, readers and a one-line description; this module is the only reader of their values.
 *
 * Invariants:
 *  - A variable's text is parsed once, at its first use (or by tunables_check), and cached
 *    for the life of the process: later changes to the environment are not seen, so every
 *    reader of a process sees the same value, and reading one on a hot path costs an array
 *    lookup. tunables_reset() forgets the cache (tests). The cache has no lock: the library
 *    serves at most MPI_THREAD_SERIALIZED, and the tools are single-threaded.
 *  - An unset or empty variable takes its default. A set one is either valid or an error
 *    whose one line names the variable, its value and what is accepted:
 *    "METAMPI_<NAME>=<value> is not <what is accepted>". Accessors hand such an error to the error
 *    handler (tunables_on_error), which does not return; tunables_check returns it instead,
 *    so that a program can end at its start with its own prefix (MPI_Init, mpirun, ...).
 *  - Secrets (type TUN_SECRET: job and rank keys) are never cached here: their owners take
 *    them out of the environment (runtime/auth.h, auth_key_take_env).
 */
#ifndef METAMPI_TUNABLES_H
#define METAMPI_TUNABLES_H

#include <stddef.h>

typedef enum tun_type {
    TUN_BOOL,   /* 0/1, no/yes, off/on, false/true */
    TUN_INT,    /* a whole number in [min, max] */
    TUN_SIZE,   /* bytes in [min, max]; k, m, g: times 2^10, 2^20, 2^30 */
    TUN_POW2,   /* a power of two in [min, max], suffixes as TUN_SIZE */
    TUN_TIME,   /* a whole number of .unit (seconds, milliseconds, microseconds) in
                 * [min, max]; us, ms, s suffixes convert when the result is whole */
    TUN_ENUM,   /* one of .choices (comma-separated); the value is its index */
    TUN_STRING, /* any text */
    TUN_SECRET, /* a key: read and erased by its owner, never by this module */
} tun_type_t;

/* Who is meant to set a variable. */
typedef enum tun_kind {
    TUN_SETTING,    /* users: tuning and configuration */
    TUN_DIAGNOSTIC, /* users: reports */
    TUN_TESTING,    /* the test suite: fault injection, emulated layouts */
    TUN_INTERNAL,   /* mpirun and its helpers, for the ranks and the gateways */
} tun_kind_t;

/* Which layers and programs read a variable (a set of these bits). */
enum tun_reader {
    TUN_R_RUNTIME = 1 << 0,
    TUN_R_TRANSPORT = 1 << 1,
    TUN_R_PROTO = 1 << 2,
    TUN_R_CORE = 1 << 3,
    TUN_R_COLL = 1 << 4,
    TUN_R_MPIRUN = 1 << 5,
    TUN_R_GATEWAY = 1 << 6,
    TUN_R_RENDEZVOUS = 1 << 7,
    TUN_R_WRAPPERS = 1 << 8, /* mpicc, mpicxx, mpifort (shell scripts, not through this) */
    TUN_R_LIBRARY = TUN_R_RUNTIME | TUN_R_TRANSPORT | TUN_R_PROTO | TUN_R_CORE | TUN_R_COLL,
};

typedef struct tun_info {
    const char *name;           /* "METAMPI_..." */
    tun_type_t type;
    tun_kind_t kind;
    unsigned readers;           /* enum tun_reader bits */
    unsigned long long dflt;    /* numeric types: the value when unset (ENUM: an index) */
    unsigned long long min, max; /* numeric types; max 0: the type's largest (see tunables.c) */
    const char *choices;        /* TUN_ENUM: "auto,shm,dissemination" */
    const char *unit;           /* "bytes", "seconds", "ranks", ... (NULL: none) */
    const char *zero;           /* what 0 means, when it is special ("off") */
    const char *dflt_doc;       /* the default as documented, when the value alone does not
                                 * say it (it depends on the job, or means "never") */
    const char *doc;            /* one line */
} tun_info_t;

typedef enum tun_id {
#define TUN(id, ...) TUN_##id,
#include "runtime/tunables.def"
#undef TUN
    TUN_COUNT
} tun_id_t;

/* The entry of id; the entry named name (NULL, or -1 from tun_find, when there is none). */
const tun_info_t *tun_info(tun_id_t id);
int tun_find(const char *name);

/* Typed values (each aborts through the error handler on a bad value, and on a type that is
 * not the accessor's: a programming error). tun_is_set: the variable was given (non-empty). */
int tun_bool(tun_id_t id);
int tun_int(tun_id_t id);
size_t tun_size(tun_id_t id);        /* TUN_SIZE, TUN_POW2 */
unsigned long long tun_time(tun_id_t id); /* in the entry's unit */
int tun_enum(tun_id_t id);           /* the index in .choices */
const char *tun_string(tun_id_t id); /* any type but TUN_SECRET: the text as given, or NULL */
int tun_is_set(tun_id_t id);
/* Any numeric type, as unsigned long long (adapters that do not know the type). */
unsigned long long tun_number(tun_id_t id);

/* Parses text as the value of entry id, without the environment: 0 with *value, or -1 with
 * the one-line error in err. NULL or "" gives the default. */
int tun_parse(tun_id_t id, const char *text, unsigned long long *value, char *err,
              size_t errlen);
/* What id accepts, as the error message says it ("a number of seconds from 0 (off) to
 * 86400"). */
void tun_accepted(tun_id_t id, char *buf, size_t len);

/* Reads id now (if not yet): 0, or -1 with its error (then the accessors fail on it). */
int tun_check(tun_id_t id, char *err, size_t errlen);

/* Reads every variable with a reader in readers now: 0, or -1 with the first error. */
int tunables_check(unsigned readers, char *err, size_t errlen);

/* The handler of errors found by the accessors; it must not return. The default prints
 * "<program>: <message>" on stderr and exits with status 1. NULL restores it. */
typedef void (*tun_error_fn)(const char *message);
void tunables_on_error(tun_error_fn fn);

/* Forgets every cached value (tests). */
void tunables_reset(void);

#endif
