/*
 * The rate a WAN stream delivers data at, from the kernel's own estimate (TCP_INFO's
 * tcpi_delivery_rate): the B of the compression decision (zc.h).
 */
#ifndef GATEWAY_RATE_H
#define GATEWAY_RATE_H

/* Bytes/s of the stream's latest delivery-rate sample, 0 when unknown; *app_limited is set
 * when the sample was limited by the sender having nothing to send (then it understates what
 * the link can carry). */
double gw_stream_rate(int fd, int *app_limited);

#endif
