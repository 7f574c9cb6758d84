/* The PMI-1 line parser shared by client and launcher. */
#include "runtime/pmi_wire.h"

#include <stdio.h>
#include <string.h>

#include "expect.h"

static int parse(const char *line, pmi_msg_t *m)
{
    return pmi_wire_parse(line, strlen(line), m);
}

int main(void)
{
    pmi_msg_t m;
    EXPECT(parse("cmd=put kvsname=kvs_1 key=a value=b=c\n", &m) == 0);
    EXPECT(strcmp(pmi_msg_cmd(&m), "put") == 0);
    EXPECT(m.npairs == 4);
    EXPECT(strcmp(pmi_msg_get(&m, "kvsname"), "kvs_1") == 0);
    EXPECT(strcmp(pmi_msg_get(&m, "value"), "b=c") == 0); /* first '=' ends the key */
    EXPECT(pmi_msg_get(&m, "missing") == NULL);

    EXPECT(parse("cmd=barrier_in", &m) == 0); /* newline optional */
    EXPECT(strcmp(pmi_msg_cmd(&m), "barrier_in") == 0 && m.npairs == 1);

    EXPECT(parse("  cmd=get   key=x  \n", &m) == 0); /* extra spaces tolerated */
    EXPECT(strcmp(pmi_msg_get(&m, "key"), "x") == 0);

    /* free text continues the previous value */
    EXPECT(parse("cmd=abort exitcode=3 error_msg=MPI_Send: invalid rank 7\n", &m) == 0);
    EXPECT(strcmp(pmi_msg_get(&m, "exitcode"), "3") == 0);
    EXPECT(strcmp(pmi_msg_get(&m, "error_msg"), "MPI_Send: invalid rank 7") == 0);
    /* ... verbatim: '=' and repeated spaces are text, not pairs */
    EXPECT(parse("cmd=abort exitcode=1 error_msg=MPI_Cart_rank: coords[0] = 5  out of x=1\n",
                 &m) == 0);
    EXPECT(strcmp(pmi_msg_get(&m, "error_msg"), "MPI_Cart_rank: coords[0] = 5  out of x=1") == 0);
    EXPECT(pmi_msg_get(&m, "x") == NULL);

    /* malformed */
    EXPECT(parse("", &m) == -1);
    EXPECT(parse("\n", &m) == -1);
    EXPECT(parse("put key=a\n", &m) == -1);       /* no cmd= first */
    EXPECT(parse("key=a cmd=put\n", &m) == -1);   /* cmd not first */
    EXPECT(parse("cmd= key=a\n", &m) == -1);      /* empty command */
    EXPECT(parse("cmd=put =a\n", &m) == -1);      /* empty key */
    EXPECT(parse("garbage\n", &m) == -1);

    char line[PMI_WIRE_MAXLINE + 10];
    memset(line, 'a', sizeof line);
    memcpy(line, "cmd=put value=", 14);
    EXPECT(pmi_wire_parse(line, PMI_WIRE_MAXLINE - 1, &m) == 0);  /* longest line */
    EXPECT(pmi_wire_parse(line, PMI_WIRE_MAXLINE, &m) == -1);     /* one too long */

    char many[2048] = "cmd=x";
    for (int i = 0; i < PMI_WIRE_MAXPAIRS; i++)
        strcat(many, " k=v");
    EXPECT(parse(many, &m) == -1); /* more pairs than fit */

    EXPECT(pmi_wire_valid_key("abc_1"));
    EXPECT(!pmi_wire_valid_key("a=b"));
    EXPECT(!pmi_wire_valid_key("a b"));
    EXPECT(!pmi_wire_valid_key(""));
    EXPECT(pmi_wire_valid_value("x=y"));
    EXPECT(!pmi_wire_valid_value("x\ny"));

    return expect_done("pmi_wire");
}
