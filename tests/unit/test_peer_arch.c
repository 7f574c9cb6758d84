/* The architecture exchange (issue 19): the launcher's summary of every rank's descriptor
 * (tools/launch/arch_summary.c) and its reading by the ranks (runtime/peer_arch.c). */
#include "arch_summary.h"
#include "kvs.h"
#include "runtime/peer_arch.h"

#include <stdio.h>
#include <string.h>

static int failures;

#define CHECK(c)                                                                               \
    do {                                                                                       \
        if (!(c)) {                                                                            \
            fprintf(stderr, "%s:%d: failed: %s\n", __FILE__, __LINE__, #c);                  \
            failures++;                                                                        \
        }                                                                                      \
    } while (0)

static void put_machine(kvs_t *k, int r, const char *hex)
{
    char key[48], value[256];
    snprintf(key, sizeof key, "metampi.machine.%d", r);
    snprintf(value, sizeof value, "boot-id-%d/%s", r % 2, hex);
    kvs_put(k, key, value);
}

int main(void)
{
    char local[PEER_ARCH_HEX + 1], other[PEER_ARCH_HEX + 1];
    peer_arch_local_hex(local);
    /* the other architecture: this one with the other byte order */
    arch_desc_t d = *arch_local();
    d.byte_order = d.byte_order == ARCH_BIG ? ARCH_LITTLE : ARCH_BIG;
    uint8_t w[ARCH_WIRE_SIZE];
    arch_encode(&d, w);
    for (int i = 0; i < ARCH_WIRE_SIZE; i++)
        snprintf(other + 2 * i, 3, "%02x", w[i]);

    kvs_t k;
    kvs_init(&k);
    for (int r = 0; r < 6; r++)
        if (r != 4)
            put_machine(&k, r, r == 3 || r == 4 ? other : local);
    arch_summary_publish(&k, 6);
    CHECK(kvs_get(&k, ARCH_SUMMARY_KEY) == NULL); /* rank 4 has not published */
    put_machine(&k, 4, other);
    arch_summary_publish(&k, 6);
    const char *sum = kvs_get(&k, ARCH_SUMMARY_KEY);
    char want[512];
    snprintf(want, sizeof want, "%s:0-2,5;%s:3-4", local, other);
    CHECK(sum && strcmp(sum, want) == 0);

    char err[256];
    CHECK(peer_arch_open(6, err, sizeof err) == 0);
    CHECK(peer_arch_all_same());
    CHECK(sum && peer_arch_record_summary(sum, 6, err, sizeof err) == 0);
    CHECK(!peer_arch_all_same());
    CHECK(arch_same(peer_arch(0), arch_local()) && arch_same(peer_arch(5), arch_local()));
    CHECK(peer_arch(3)->byte_order == d.byte_order && !arch_same(peer_arch(4), arch_local()));
    CHECK(peer_arch(99) == arch_local());
    int one_host[6] = { 0, 0, 0, 1, 1, 1 }, same_host[6] = { 0 };
    CHECK(peer_arch_check_hosts(one_host, 6, 0, "h", err, sizeof err) == 0);
    CHECK(peer_arch_check_hosts(one_host, 6, 5, "h", err, sizeof err) == -1);
    CHECK(strstr(err, "ranks 5 (") && strstr(err, "and 3 (") && strstr(err, "share host h"));
    CHECK(peer_arch_check_hosts(same_host, 6, 0, "h", err, sizeof err) == -1);

    /* a federated part's summary: some ranks only; the known ones, and back into text */
    CHECK(peer_arch_open(6, err, sizeof err) == 0);
    CHECK(!peer_arch_known(3) && !peer_arch_known(99));
    char part[512], back[512];
    snprintf(part, sizeof part, "%s:3-4", other);
    CHECK(peer_arch_record_part(part, 6, err, sizeof err) == 0);
    CHECK(peer_arch_known(3) && peer_arch_known(4) && !peer_arch_known(5));
    CHECK(!peer_arch_all_same() && !arch_same(peer_arch(4), arch_local()));
    int ranks[] = { 0, 1, 3, 4, 5 };
    CHECK(peer_arch_format_part(ranks, 5, back, sizeof back) > 0);
    snprintf(want, sizeof want, "%s:0-1,5;%s:3-4", local, other);
    CHECK(strcmp(back, want) == 0);
    CHECK(peer_arch_format_part(ranks, 5, back, 40) == -1); /* does not fit */
    CHECK(peer_arch_record_part("", 6, err, sizeof err) == -1);
    snprintf(part, sizeof part, "%s:6", other); /* beyond the job */
    CHECK(peer_arch_record_part(part, 6, err, sizeof err) == -1);

    /* malformed summaries are refused with the text */
    const char *bad[] = { "zz:0", "", ";", NULL };
    for (int i = 0; bad[i]; i++) {
        CHECK(peer_arch_open(2, err, sizeof err) == 0);
        CHECK(peer_arch_record_summary(bad[i], 2, err, sizeof err) == -1);
    }
    char text[512];
    snprintf(text, sizeof text, "%s:0", local); /* rank 1 missing */
    CHECK(peer_arch_record_summary(text, 2, err, sizeof err) == -1);
    CHECK(strstr(err, "malformed") != NULL);
    snprintf(text, sizeof text, "%s:0-2", local); /* beyond the job */
    CHECK(peer_arch_record_summary(text, 2, err, sizeof err) == -1);
    snprintf(text, sizeof text, "%s:0,1", local);
    CHECK(peer_arch_open(2, err, sizeof err) == 0 &&
          peer_arch_record_summary(text, 2, err, sizeof err) == 0 && peer_arch_all_same());
    peer_arch_close();
    kvs_free(&k);
    if (failures) {
        fprintf(stderr, "%d failure(s)\n", failures);
        return 1;
    }
    printf("peer_arch: ok\n");
    return 0;
}
