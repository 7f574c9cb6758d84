#include "jobspace.h"

#include "kvs.h"
#include "pmi_spawn.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct msg {
    struct msg *next;
    char *value;
} msg_t;

typedef struct port {
    struct port *next;
    char *name;
    msg_t *head, **tail;
} port_t;

struct jobspace {
    kvs_t names;          /* service -> port name */
    port_t *ports;
    size_t bytes;         /* held by ports and messages */
};

jobspace_t *jobspace_new(void)
{
    jobspace_t *js = util_xmalloc(sizeof *js);
    memset(js, 0, sizeof *js);
    kvs_init(&js->names);
    return js;
}

static void port_free(port_t *p)
{
    for (msg_t *m = p->head, *n; m; m = n) {
        n = m->next;
        free(m->value);
        free(m);
    }
    free(p->name);
    free(p);
}

void jobspace_free(jobspace_t *js)
{
    if (!js)
        return;
    kvs_free(&js->names);
    for (port_t *p = js->ports, *n; p; p = n) {
        n = p->next;
        port_free(p);
    }
    free(js);
}

static port_t **find_port(jobspace_t *js, const char *name)
{
    port_t **p = &js->ports;
    while (*p && strcmp((*p)->name, name) != 0)
        p = &(*p)->next;
    return p;
}

static int charge(jobspace_t *js, size_t n)
{
    if (js->bytes + n > KVS_MAX_BYTES)
        return -1;
    js->bytes += n;
    return 0;
}

static port_t *open_port(jobspace_t *js, const char *name)
{
    if (charge(js, strlen(name) + sizeof(port_t)) != 0)
        return NULL;
    port_t *p = util_xmalloc(sizeof *p);
    memset(p, 0, sizeof *p);
    p->name = util_xstrdup(name);
    p->tail = &p->head;
    p->next = js->ports;
    js->ports = p;
    return p;
}

/* The port commands; name decoded. */
static int port_cmd(jobspace_t *js, const char *cmd, const char *name, const pmi_msg_t *m,
                    char *reply, size_t cap)
{
    port_t **pp = find_port(js, name), *p = *pp;
    int rc = 0;
    if (strcmp(cmd, "port_open") == 0) {
        rc = p || !open_port(js, name) ? -1 : 0;
    } else if (strcmp(cmd, "port_close") == 0) {
        if (p) {
            *pp = p->next;
            port_free(p);
        } else {
            rc = -1;
        }
    } else if (strcmp(cmd, "port_post") == 0) {
        const char *v = pmi_msg_get(m, "value");
        if (!v || !pmi_wire_valid_value(v))
            return -1;
        if (!p && strncmp(name, "reply:", 6) == 0)
            p = open_port(js, name);
        if (!p || charge(js, strlen(v) + 1 + sizeof(msg_t)) != 0) {
            rc = -1;
        } else {
            msg_t *msg = util_xmalloc(sizeof *msg);
            msg->next = NULL;
            msg->value = util_xstrdup(v);
            *p->tail = msg;
            p->tail = &msg->next;
        }
    } else { /* port_take */
        if (!p) {
            rc = -1;
        } else if (!p->head) {
            rc = 1;
        } else {
            msg_t *msg = p->head;
            p->head = msg->next;
            if (!p->head)
                p->tail = &p->head;
            snprintf(reply, cap, "cmd=port_result rc=0 value=%s", msg->value);
            free(msg->value);
            free(msg);
            return 1;
        }
    }
    snprintf(reply, cap, "cmd=port_result rc=%d", rc);
    return 1;
}

static int is_port_cmd(const char *cmd)
{
    return strcmp(cmd, "port_open") == 0 || strcmp(cmd, "port_close") == 0 ||
           strcmp(cmd, "port_post") == 0 || strcmp(cmd, "port_take") == 0;
}

int jobspace_is_command(const char *cmd)
{
    return is_port_cmd(cmd) || strcmp(cmd, "publish") == 0 || strcmp(cmd, "lookup") == 0 ||
           strcmp(cmd, "unpublish") == 0;
}

int jobspace_command(jobspace_t *js, const pmi_msg_t *m, char *reply, size_t cap)
{
    const char *cmd = pmi_msg_cmd(m);
    int is_port = is_port_cmd(cmd);
    if (!jobspace_is_command(cmd))
        return 0;
    const char *hex = pmi_msg_get(m, is_port ? "port" : "service");
    char *name = hex ? pmi_spawn_hex_decode(hex) : NULL;
    if (!name || !*name) {
        free(name);
        return -1;
    }
    int rc = 1;
    if (is_port) {
        rc = port_cmd(js, cmd, name, m, reply, cap);
    } else if (strcmp(cmd, "publish") == 0) {
        const char *port = pmi_msg_get(m, "port");
        if (!port || !pmi_wire_valid_value(port))
            rc = -1;
        else
            snprintf(reply, cap, "cmd=publish_result rc=%d",
                     kvs_get(&js->names, hex) || kvs_put(&js->names, hex, port) != 0 ? -1 : 0);
    } else if (strcmp(cmd, "lookup") == 0) {
        const char *port = kvs_get(&js->names, hex);
        if (port)
            snprintf(reply, cap, "cmd=lookup_result rc=0 port=%s", port);
        else
            snprintf(reply, cap, "cmd=lookup_result rc=-1");
    } else {
        int had = kvs_get(&js->names, hex) != NULL;
        if (had)
            kvs_delete(&js->names, hex);
        snprintf(reply, cap, "cmd=unpublish_result rc=%d", had ? 0 : -1);
    }
    free(name);
    return rc;
}
