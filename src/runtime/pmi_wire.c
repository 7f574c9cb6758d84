#include "runtime/pmi_wire.h"

#include <string.h>

int pmi_wire_parse(const char *line, size_t len, pmi_msg_t *msg)
{
    if (len > 0 && line[len - 1] == '\n')
        len--;
    if (len > PMI_WIRE_MAXLINE - 1)
        return -1;
    memcpy(msg->buf, line, len);
    msg->buf[len] = '\0';
    msg->npairs = 0;

    char *p = msg->buf;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        char *tok = p;
        /* error_msg (abort) is free text: its value is the rest of the line, spaces and
         * '=' included, as in hydra's PMI-1 */
        if (msg->npairs > 0 && strncmp(tok, "error_msg=", 10) == 0) {
            if (msg->npairs == PMI_WIRE_MAXPAIRS)
                return -1;
            tok[9] = '\0';
            msg->key[msg->npairs] = tok;
            msg->val[msg->npairs] = tok + 10;
            msg->npairs++;
            break;
        }
        while (*p && *p != ' ')
            p++;
        int more = (*p == ' ');
        *p = '\0';
        char *eq = strchr(tok, '=');
        if (!eq) {
            /* continuation of the previous value: put the separating space back */
            if (msg->npairs == 0)
                return -1;
            tok[-1] = ' ';
        } else {
            if (eq == tok || msg->npairs == PMI_WIRE_MAXPAIRS)
                return -1;
            *eq = '\0';
            msg->key[msg->npairs] = tok;
            msg->val[msg->npairs] = eq + 1;
            msg->npairs++;
        }
        if (more)
            p++;
    }
    if (msg->npairs == 0 || strcmp(msg->key[0], "cmd") != 0 || msg->val[0][0] == '\0')
        return -1;
    return 0;
}

const char *pmi_msg_get(const pmi_msg_t *msg, const char *key)
{
    for (int i = 0; i < msg->npairs; i++)
        if (strcmp(msg->key[i], key) == 0)
            return msg->val[i];
    return NULL;
}

const char *pmi_msg_cmd(const pmi_msg_t *msg)
{
    return msg->val[0];
}

static int valid_token(const char *s, size_t max, int allow_eq)
{
    size_t n = 0;
    for (; s[n]; n++) {
        unsigned char c = (unsigned char)s[n];
        if (c <= ' ' || c >= 0x7f || (!allow_eq && c == '='))
            return 0;
    }
    return n > 0 && n <= max;
}

int pmi_wire_valid_key(const char *s)
{
    return valid_token(s, PMI_WIRE_KEYLEN_MAX, 0);
}

int pmi_wire_valid_value(const char *s)
{
    return valid_token(s, PMI_WIRE_VALLEN_MAX, 1);
}
