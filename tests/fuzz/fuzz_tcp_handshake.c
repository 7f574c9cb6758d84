/*
 * Fuzz target: everything a TCP peer (or anyone who connects) can make a rank parse before
 * and during the handshake (transport/tcp/wire.c) and the address cards read from the
 * process manager (card.c). The first byte picks the parser.
 */
#include "transport/tcp/card.h"
#include "net/frame.h"
#include "transport/tcp/wire.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static const auth_key_t key = { { 1, 2, 3, 4, 5, 6, 7, 8 } };
    unsigned char nonce[AUTH_NONCE] = { 9 }, other[AUTH_NONCE] = { 7 }, buf[TCP_HELLO_LEN];
    const uint8_t *in = data + 1;
    size_t n = size - 1;
    memset(buf, 0, sizeof buf);
    memcpy(buf, in, n < sizeof buf ? n : sizeof buf);
    switch (data[0] % 5) {
    case 0:
        tcp_challenge_parse(buf, nonce);
        break;
    case 1: {
        tcp_hello_t h;
        if (!tcp_hello_parse(buf, &key, nonce, 8, 2, &h) && (h.rank >= 8 || h.rank == 2))
            abort(); /* accepted an impossible rank */
        break;
    }
    case 2: {
        tcp_welcome_t w;
        if (!tcp_welcome_parse(buf, &key, nonce, other, 5, &w) && w.rank != 5)
            abort();
        break;
    }
    case 3: {
        net_frame_hdr_t h;
        if (!net_frame_hdr_parse(buf, 1000, &h) && h.kind == NET_KIND_FRAME &&
            (h.len > 1000 || h.head_len > h.len || h.len == 0))
            abort();
        break;
    }
    default: {
        char *s = malloc(n + 1);
        if (!s)
            return 0;
        memcpy(s, in, n);
        s[n] = '\0';
        tcp_card_t c;
        if (!tcp_card_parse(s, &c)) {
            if (c.naddr < 1 || c.naddr > TCP_CARD_MAX_ADDRS || !c.host[0])
                abort();
            tcp_addr_t local[2] = { { .prefix = 24 }, { .prefix = 64 } };
            net_addr_parse("10.0.0.1", NET_ADDR_NUMERIC | NET_ADDR_PORT_OPTIONAL, 0,
                           &local[0].a, NULL, 0);
            net_addr_parse("fd00::1", NET_ADDR_NUMERIC | NET_ADDR_PORT_OPTIONAL, 0,
                           &local[1].a, NULL, 0);
            tcp_card_order(&c, local, 2);
        }
        free(s);
        break;
    }
    }
    return 0;
}

void fuzz_make_seeds(void (*add)(const void *data, size_t size))
{
    static const auth_key_t key = { { 1, 2, 3, 4, 5, 6, 7, 8 } };
    unsigned char nonce[AUTH_NONCE] = { 9 }, other[AUTH_NONCE] = { 7 };
    unsigned char b[1 + TCP_HELLO_LEN];
    b[0] = 0;
    tcp_challenge_encode(b + 1, nonce);
    add(b, 1 + TCP_CHALLENGE_LEN);
    b[0] = 1;
    tcp_hello_encode(b + 1, &key, 3, 8, nonce, other);
    add(b, 1 + TCP_HELLO_LEN);
    b[0] = 2;
    tcp_welcome_encode(b + 1, &key, TCP_VERDICT_DUPLICATE, 5, nonce, other);
    add(b, 1 + TCP_WELCOME_LEN);
    b[0] = 3;
    net_frame_hdr_encode(b + 1, &(net_frame_hdr_t){ .len = 77, .head_len = 24 });
    add(b, 1 + NET_FRAME_HDR);
    static const char card[] = "\x04node-1|10.0.0.1:4000,192.168.1.7:65535";
    add(card, sizeof card - 1);
    static const char card6[] = "\x04node-2|10.0.0.2:4000,[fd00::2]:4001,[::ffff:10.0.0.3]:9";
    add(card6, sizeof card6 - 1);
}
