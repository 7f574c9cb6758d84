/*
 * The control channel between mpirun and metampi-hostd: the launch agent's stdin
 * (mpirun -> hostd) and stdout (hostd -> mpirun), a byte stream of frames.
 *
 * Frame:   u32 length | u8 type | body          length = 1 + body bytes, 1..CTL_MAX_FRAME
 * Fields:  u8; u32 (little-endian); i32 (two's complement, as u32);
 *          str   = u32 n | n bytes: n >= 1, the last byte NUL and no other (a C string);
 *          strs  = u32 count | count str;
 *          u32s  = u32 count | count u32;
 *          data  = the rest of the body (last field only).
 * A body must be consumed exactly by its type's fields; every count is checked against the
 * bytes that remain before anything is read, and every field with a fixed set of values is
 * checked (ctl_parse). Semantic checks (is this rank on that host?) are the receiver's.
 *
 * Conversation (mpirun: M, hostd: H):
 *   H: HELLO (first bytes on its stdout, so garbage from a login script is recognised)
 *   M: KEY (the job key, 64 hex digits: only ever sent here, never on a command line), JOB
 *      (with the arguments of the site gateway this host runs, if any)
 *   H: REPORT / NOTE, then OUTPUT, EXITED, ABORTED, PMI_FAILED, FAIL, STDIN_ACK,
 *      STDIN_CLOSED as things happen; for each PMI barrier: KVS* BARRIER_IN
 *   M: STDIN (flow control: at most CTL_STDIN_WINDOW bytes not yet acknowledged by
 *      STDIN_ACK; empty data = EOF), KVS* BARRIER_OUT once every host is in the barrier
 *      (the union of all hosts' puts), KILL, END once every rank has exited (the helper
 *      ends its gateway, SIGTERM; the gateway's failure before that is a FAIL)
 *   H: STATS after END when the gateway ran with --stats on and ended normally
 *   H: DONE once all its ranks are reaped and their output sent (nothing follows); a
 *      helper whose JOB names no ranks waits for END (or KILL) too
 *   M: closes the channel when every host is DONE (or lost): the helper sweeps and exits.
 *   EOF on either side ends the conversation; a helper seeing EOF kills its ranks.
 *   Both: BEAT when nothing else went out for a period (JOB's peer timeout T / 8, from the
 *   helper's HELLO on for mpirun, from JOB on for the helper); a side that hears nothing for
 *   T / 2 takes the other for gone (net/liveness.h): mpirun reports the host lost, the
 *   helper kills its ranks as on EOF. T = 0: no heartbeat.
 */
#ifndef LAUNCH_CTL_H
#define LAUNCH_CTL_H

#include <stddef.h>
#include <stdint.h>

#define CTL_MAX_FRAME (4u << 20)
#define CTL_HELLO_MAGIC 0x3144484du   /* "MHD1" */
#define CTL_VERSION 9   /* 2: JOB carries the initial key-value pairs (kvs); 3: the site
                                 gateway (JOB gateway, END); 4: heartbeats (BEAT, JOB
                                 peer_timeout); 5: the gateway's counters (STATS);
                                 6: JOB silence; 7: PARTS (MPI_Comm_spawn); 8: a JOB
                                 may name no ranks (a helper for spawned ranks); 9: PARTS
                                 GW_RANKS, GW_READY (spawning across sites) */
#define CTL_KVS_CHUNK (256u << 10)    /* a KVS frame carries at most about this many bytes */
#define CTL_STDIN_WINDOW (64u << 10)  /* = IOFWD_STDIN_BUF, the helper's stdin buffer */
#define CTL_KEY_HEX 64

enum ctl_type {
    /* mpirun -> hostd */
    CTL_KEY = 1,          /* str key (64 hex digits) */
    CTL_JOB = 2,          /* see ctl_job_t */
    CTL_STDIN = 3,        /* data (empty: EOF) */
    CTL_KILL = 4,         /* u32 sig (1..64): start the teardown with sig (SIGKILL: at once) */
    CTL_BARRIER_OUT = 5,  /* (empty) */
    CTL_KVS = 6,          /* strs kv: key, value, ... (even count); both directions */
    CTL_END = 7,          /* (empty) every rank of the job has exited: end the gateway */
    CTL_BEAT = 8,         /* (empty) both directions: still here */
    CTL_PARTS = 9,        /* both directions: u8 op (ctl_parts_op), u32 node, u32 rank, strs
                             fields: the spawned parts' traffic (launch/parts_ctl.h) */
    /* hostd -> mpirun */
    CTL_HELLO = 16,       /* u32 magic, u32 version, u32 pid */
    CTL_OUTPUT = 17,      /* u8 stream (1 stdout, 2 stderr), u8 add_newline, u32 rank, data
                             (non-empty) */
    CTL_EXITED = 18,      /* u32 rank, u32 pid, i32 wait status, u8 inited, u8 finalized */
    CTL_ABORTED = 19,     /* u32 rank, u32 pid, i32 exitcode, u8 has_msg, str msg */
    CTL_PMI_FAILED = 20,  /* u32 rank, u32 pid, u8 kind (pmi_fail_kind), str detail */
    CTL_FAIL = 21,        /* u32 status (1..255), str text: this host cannot run its part */
    CTL_NOTE = 22,        /* str text: a warning */
    CTL_REPORT = 23,      /* str text: --report-bindings lines, written as they are */
    CTL_BARRIER_IN = 24,  /* (empty) */
    CTL_STDIN_ACK = 25,   /* u32 n (1..CTL_STDIN_WINDOW) bytes went to rank 0 */
    CTL_STDIN_CLOSED = 26,/* (empty) rank 0's stdin is closed */
    CTL_DONE = 27,        /* (empty) */
    CTL_STATS = 28,       /* str text: the site gateway's counters at its normal end, lines
                             "metampi-gateway-stats ..." (mpirun --report) */
};

/* A validated list of strings inside a frame; walk it with ctl_strs_next. */
typedef struct ctl_strs {
    const unsigned char *p;
    uint32_t n;
} ctl_strs_t;

/* A validated list of u32 inside a frame; read with ctl_u32s_at. */
typedef struct ctl_u32s {
    const unsigned char *p;
    uint32_t n;
} ctl_u32s_t;

typedef struct ctl_job {
    const char *cwd;        /* mpirun's working directory */
    const char *prog;       /* as given to mpirun (resolved on the host like execvp) */
    ctl_strs_t argv;        /* argv[0..], at least one */
    ctl_strs_t env;         /* -x settings resolved by mpirun: "NAME=value" */
    uint32_t size;          /* ranks in the job, 1..CTL_MAX_RANKS */
    uint32_t host;          /* this host's index in hosts */
    ctl_strs_t hosts;       /* host names as the user gave them (host index order) */
    ctl_u32s_t ranks;       /* this host's global ranks, ascending, each < size; none: a
                             * helper started for spawned ranks only (it says DONE only
                             * after END or KILL) */
    const char *kvsname;
    const char *mapping;    /* PMI_process_mapping ("" = none) */
    ctl_strs_t kvs;         /* key, value, ...: in the PMI space before any rank starts
                               (the site layout); even count, valid PMI keys and values */
    ctl_strs_t gateway;     /* the arguments of metampi-gateway (without the program name)
                               when this host runs its site's gateway; none: no gateway */
    uint8_t bind;           /* mpirun_bind_t */
    uint8_t oversubscribe;  /* 0/1 */
    uint8_t report_bindings;/* 0/1 */
    uint32_t peer_timeout;  /* seconds, 0..LIVENESS_MAX_S (0: no heartbeat) */
    uint32_t silence;       /* seconds mpirun may be silent at least (hb_allow_silence) */
} ctl_job_t;

#define CTL_MAX_RANKS 4096   /* the ranks a job starts with (= MPIRUN_MAX_RANKS) */
/* Job-wide rank numbers in frames (OUTPUT, EXITED, ABORTED, PMI_FAILED, PARTS) are below
 * this: spawned ranks are numbered after every rank placed before them and numbers are never
 * reused, so they pass CTL_MAX_RANKS in a long-running task farm. */
#define CTL_MAX_RANK_ID (1u << 30)

/* The operations of a PARTS frame (their fields: launch/parts_ctl.h). */
enum ctl_parts_op {
    /* hostd -> mpirun */
    CTL_PARTS_SPAWN = 1,      /* a rank's spawn request */
    CTL_PARTS_ASK = 2,        /* a PMI command for mpirun (a get of another part, a name) */
    CTL_PARTS_PUT = 3,        /* a put of a rank, at once */
    CTL_PARTS_BARRIER_IN = 4, /* a part's local ranks are in its barrier */
    CTL_PARTS_READY = 5,      /* the part's programs resolved here (or why not) */
    /* mpirun -> hostd */
    CTL_PARTS_PART = 6,       /* start a part's ranks of this host (after GO) */
    CTL_PARTS_GO = 7,         /* rank 1: start them; 0: drop the part */
    CTL_PARTS_ANSWER = 8,     /* the reply line to an ASK */
    CTL_PARTS_RESULT = 9,     /* the answer to a SPAWN */
    CTL_PARTS_BARRIER_OUT = 10, /* the part's barrier is complete: the other hosts' puts */
    CTL_PARTS_GW_RANKS = 11,  /* M->H: a part's numbers and sites, for the site gateway here */
    CTL_PARTS_GW_READY = 12,  /* H->M: the gateway knows them (or why not) */
    CTL_PARTS_OP_MAX = 12
};

typedef struct ctl_frame {
    uint8_t type;
    union {
        const char *key;                                          /* KEY */
        ctl_job_t job;                                            /* JOB */
        struct { const unsigned char *p; uint32_t len; } data;    /* STDIN */
        uint32_t sig;                                             /* KILL */
        ctl_strs_t kv;                                            /* KVS */
        struct { uint8_t op; uint32_t node, rank;
                 ctl_strs_t fields; } parts;                      /* PARTS */
        struct { uint32_t magic, version, pid; } hello;           /* HELLO */
        struct { uint8_t stream, add_newline; uint32_t rank;
                 const unsigned char *p; uint32_t len; } output;  /* OUTPUT */
        struct { uint32_t rank, pid; int32_t status;
                 uint8_t inited, finalized; } exited;             /* EXITED */
        struct { uint32_t rank, pid; int32_t exitcode;
                 uint8_t has_msg; const char *msg; } aborted;     /* ABORTED */
        struct { uint32_t rank, pid; uint8_t kind;
                 const char *detail; } pmi_failed;                /* PMI_FAILED */
        struct { uint32_t status; const char *text; } fail;       /* FAIL */
        const char *text;                                         /* NOTE, REPORT */
        uint32_t n;                                               /* STDIN_ACK */
    } u;
} ctl_frame_t;

enum { CTL_OK = 0, CTL_MORE = 1, CTL_BAD = -1 };

/* Parses the frame at the start of buf[0..len). CTL_OK: *f describes it (pointers into buf)
 * and *used is its size in bytes; CTL_MORE: the frame is not complete yet (nothing read
 * beyond len); CTL_BAD: malformed, err says why. Pure: no allocation, no global state. */
int ctl_parse(const void *buf, size_t len, ctl_frame_t *f, size_t *used, char *err,
              size_t errlen);

/* The next string of a validated list (call exactly n times). */
const char *ctl_strs_next(ctl_strs_t *s);
uint32_t ctl_u32s_at(const ctl_u32s_t *u, uint32_t i);

/* Building frames: append fields between ctl_begin and ctl_end. */
typedef struct ctl_buf {
    unsigned char *p;
    size_t len, cap;
    size_t start;   /* of the frame being built */
} ctl_buf_t;

void ctl_begin(ctl_buf_t *b, uint8_t type);
void ctl_put_u8(ctl_buf_t *b, uint8_t v);
void ctl_put_u32(ctl_buf_t *b, uint32_t v);
void ctl_put_str(ctl_buf_t *b, const char *s);
void ctl_put_strs(ctl_buf_t *b, const char *const *v, uint32_t n);
void ctl_put_data(ctl_buf_t *b, const void *data, size_t len);
/* Returns 0, or -1 (frame dropped) when it exceeds CTL_MAX_FRAME. */
int ctl_end(ctl_buf_t *b);
void ctl_buf_free(ctl_buf_t *b);

/* A printable name of a frame type ("OUTPUT", "type 99"), for messages. */
const char *ctl_type_name(uint8_t type, char *tmp, size_t cap);

#endif
