/*
 * Raw TCP between two hosts, the limit the MPI libraries are compared with: the same
 * ping-pong and streaming as bench/p2p, over one TCP connection with TCP_NODELAY, no
 * framing, receiving by polling (as the MPI libraries' progress engines do: a blocking
 * receive sleeps in the kernel and, on an idle machine, pays a wake-up of about 20 µs per
 * message that no MPI pays, which made raw TCP's round trip 4× the MPIs' here). The server echoes (ping-pong) or sinks (stream) and answers each
 * window with one byte, as osu_bw's receiver does.
 *   raw_tcp server PORT
 *   raw_tcp client HOST PORT latency|bandwidth [max_bytes [scale]]
 * Sizes 1 B, 2 B, ... max_bytes (default and at most 4 MiB); scale in (0, 1] multiplies every
 * iteration count (at least 1 remains), for links so slow that the full schedule would take
 * minutes (a WAN). The client sends the mode, max_bytes and scale to the server first, so
 * both walk the same schedule.
 * Output: one line per size, "size value" (µs one-way / MB/s, MB = 10^6 B).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { MAX = 4 << 20, WINDOW = 64 };

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void full(ssize_t (*io)(int, void *, size_t, int), int fd, void *b, size_t n)
{
    for (size_t done = 0; done < n;) {
        ssize_t k = io(fd, (char *)b + done, n - done, 0);
        if (k <= 0) {
            perror("raw_tcp: socket");
            exit(1);
        }
        done += (size_t)k;
    }
}

static ssize_t rd(int fd, void *b, size_t n, int f)
{
    for (;;) {
        ssize_t k = recv(fd, b, n, f | MSG_DONTWAIT);
        if (k >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            return k;
    }
}

static ssize_t wr(int fd, void *b, size_t n, int f)
{
    return send(fd, b, n, f | MSG_NOSIGNAL);
}

static void nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* The run's parameters, as the client sends them: mode byte ('l' or 'b'), then max_bytes and
 * scale in millionths, both 32-bit big-endian. */
typedef struct {
    int lat;
    uint32_t max_bytes, scale_ppm;
} params_t;

/* Both sides walk the same schedule: for each size, iterations of ping-pong or windows. */
static int iters(size_t size, const params_t *p)
{
    int n;
    if (p->lat)
        n = size <= 16384 ? 10000 : (int)(((size_t)256 << 20) / size) + 100;
    else
        n = size <= 16384 ? 1000 : (int)(((size_t)1 << 30) / (size * WINDOW)) + 20;
    n = (int)((double)n * ((double)p->scale_ppm / 1e6));
    return n < 1 ? 1 : n;
}

static void run(int fd, int client, const params_t *p, char *buf)
{
    int lat = p->lat;
    for (size_t size = 1; size <= p->max_bytes; size *= 2) {
        int n = iters(size, p), warm = n / 10 + 1;
        double t0 = 0;
        for (int i = 0; i < warm + n; i++) {
            if (i == warm)
                t0 = now();
            if (lat) {
                if (client) {
                    full(wr, fd, buf, size);
                    full(rd, fd, buf, size);
                } else {
                    full(rd, fd, buf, size);
                    full(wr, fd, buf, size);
                }
            } else {
                for (int w = 0; w < WINDOW; w++)
                    full(client ? wr : rd, fd, buf, size);
                char ack = 0;
                full(client ? rd : wr, fd, &ack, 1);
            }
        }
        double t = now() - t0;
        if (client && lat)
            printf("%zu %.2f\n", size, t / n / 2 * 1e6);
        else if (client)
            printf("%zu %.3f\n", size, (double)size * WINDOW * n / t / 1e6);
        fflush(stdout);
    }
}

int main(int argc, char **argv)
{
    static char buf[MAX];
    memset(buf, 'x', MAX);
    if (argc == 3 && strcmp(argv[1], "server") == 0) {
        int l = socket(AF_INET, SOCK_STREAM, 0), one = 1;
        setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2])) };
        if (bind(l, (struct sockaddr *)&a, sizeof a) != 0 || listen(l, 1) != 0) {
            perror("raw_tcp: listen");
            return 1;
        }
        int fd = accept(l, NULL, NULL);
        nodelay(fd);
        unsigned char hdr[9];
        full(rd, fd, hdr, sizeof hdr);
        params_t p = { .lat = hdr[0] == 'l' };
        memcpy(&p.max_bytes, hdr + 1, 4);
        memcpy(&p.scale_ppm, hdr + 5, 4);
        p.max_bytes = ntohl(p.max_bytes);
        p.scale_ppm = ntohl(p.scale_ppm);
        if (p.max_bytes > MAX || p.scale_ppm == 0 || p.scale_ppm > 1000000) {
            fprintf(stderr, "raw_tcp: bad parameters from the client\n");
            return 1;
        }
        run(fd, 0, &p, buf);
        return 0;
    }
    if (argc >= 5 && argc <= 7 && strcmp(argv[1], "client") == 0) {
        params_t p = { .lat = argv[4][0] == 'l', .max_bytes = MAX, .scale_ppm = 1000000 };
        char *end;
        if (strcmp(argv[4], "latency") != 0 && strcmp(argv[4], "bandwidth") != 0) {
            fprintf(stderr, "raw_tcp: expected latency or bandwidth, got '%s'\n", argv[4]);
            return 2;
        }
        if (argc > 5) {
            unsigned long m = strtoul(argv[5], &end, 10);
            if (*end || m < 1 || m > MAX) {
                fprintf(stderr, "raw_tcp: max_bytes: expected 1 to %d, got '%s'\n", MAX, argv[5]);
                return 2;
            }
            p.max_bytes = (uint32_t)m;
        }
        if (argc > 6) {
            double sc = strtod(argv[6], &end);
            if (*end || !(sc > 0 && sc <= 1)) {
                fprintf(stderr, "raw_tcp: scale: expected a number in (0, 1], got '%s'\n", argv[6]);
                return 2;
            }
            p.scale_ppm = (uint32_t)(sc * 1e6 + 0.5);
            if (p.scale_ppm == 0)
                p.scale_ppm = 1;
        }
        struct addrinfo *ai, hint = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
        if (getaddrinfo(argv[2], argv[3], &hint, &ai) != 0) {
            fprintf(stderr, "raw_tcp: cannot resolve %s\n", argv[2]);
            return 1;
        }
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        for (int tries = 0; connect(fd, ai->ai_addr, ai->ai_addrlen) != 0; tries++) {
            if (tries == 100) {
                perror("raw_tcp: connect");
                freeaddrinfo(ai);
                return 1;
            }
            usleep(20000);
        }
        freeaddrinfo(ai);
        nodelay(fd);
        unsigned char hdr[9] = { (unsigned char)(p.lat ? 'l' : 'b') };
        uint32_t v = htonl(p.max_bytes);
        memcpy(hdr + 1, &v, 4);
        v = htonl(p.scale_ppm);
        memcpy(hdr + 5, &v, 4);
        full(wr, fd, hdr, sizeof hdr);
        run(fd, 1, &p, buf);
        return 0;
    }
    fprintf(stderr, "usage: raw_tcp server PORT | raw_tcp client HOST PORT latency|bandwidth "
                    "[max_bytes [scale]]\n");
    return 2;
}
