/*
 * Raw TCP ping-pong across the emulated WAN, the limit for the gateways' latency target: a few
 * round trips per size (a WAN round trip costs 10 ms), TCP_NODELAY, blocking sockets.
 *   raw_rtt server PORT
 *   raw_rtt client HOST PORT
 * Output (client): "size one_way_us" per size, as bench/p2p/latency prints.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static const size_t SIZES[] = { 1, 8, 1024, 16384, 65536, 262144, 1048576, 4194304 };
enum { NSIZES = sizeof SIZES / sizeof SIZES[0], ITERS = 40 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void io(int fd, char *b, size_t n, int wr)
{
    for (size_t d = 0; d < n;) {
        ssize_t k = wr ? send(fd, b + d, n - d, MSG_NOSIGNAL) : recv(fd, b + d, n - d, 0);
        if (k <= 0) {
            perror("raw_rtt");
            exit(1);
        }
        d += (size_t)k;
    }
}

int main(int argc, char **argv)
{
    static char buf[4 << 20];
    int one = 1, fd;
    if (argc == 3 && strcmp(argv[1], "server") == 0) {
        int l = socket(AF_INET, SOCK_STREAM, 0);
        setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2])) };
        if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1) || (fd = accept(l, 0, 0)) < 0)
            return perror("raw_rtt server"), 1;
    } else if (argc == 4 && strcmp(argv[1], "client") == 0) {
        fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[3])) };
        inet_pton(AF_INET, argv[2], &a.sin_addr);
        if (connect(fd, (struct sockaddr *)&a, sizeof a))
            return perror("raw_rtt client"), 1;
    } else {
        fprintf(stderr, "usage: raw_rtt server PORT | raw_rtt client IP PORT\n");
        return 2;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int client = argv[1][0] == 'c';
    for (int s = 0; s < NSIZES; s++) {
        int n = ITERS, warm = 5;
        double t0 = 0;
        for (int i = 0; i < warm + n; i++) {
            if (i == warm)
                t0 = now();
            io(fd, buf, SIZES[s], client);
            io(fd, buf, SIZES[s], !client);
        }
        if (client)
            printf("%zu %.1f\n", SIZES[s], (now() - t0) / n / 2 * 1e6);
        fflush(stdout);
    }
    return 0;
}
