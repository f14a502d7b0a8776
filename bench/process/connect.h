/* bench/process/connect.h: the added cost of a brokered connect (policy.net.outbound). */
#ifndef SBX_BENCH_PROCESS_CONNECT_H
#define SBX_BENCH_PROCESS_CONNECT_H

/* Prints the median connect() latency in the jail (through the broker) and on the host. */
void bench_connect(int rounds);

#endif
