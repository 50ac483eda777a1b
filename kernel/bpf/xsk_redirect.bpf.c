// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Redirects frames of ringlab's EtherType to the AF_XDP socket bound to the
 * receiving queue (XSKMAP indexed by rx_queue_index); everything else, and
 * any queue without a socket, goes to the stack (XDP_PASS). The EtherType
 * test keeps stray traffic (router solicitations, MLD) out of the sockets
 * under test, whose counters the harness compares exactly.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* IEEE 802 local experimental EtherType 1. */
#define RINGLAB_ETH_P 0x88B5

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

/* Frames of ringlab's EtherType this program has seen: the harness waits
 * until each is accounted for (on the RX ring or in a drop counter) before
 * it compares, so comparisons happen at quiescent points. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");

SEC("xdp")
int xsk_redirect(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	if ((void *)(eth + 1) > end || eth->h_proto != bpf_htons(RINGLAB_ETH_P))
		return XDP_PASS;
	__u32 k = 0;
	__u64 *n = bpf_map_lookup_elem(&seen, &k);
	if (n)
		__sync_fetch_and_add(n, 1);
	/* The flags' low bits are the action when the entry is empty. */
	return bpf_redirect_map(&xsks, ctx->rx_queue_index, XDP_PASS);
}

char _license[] SEC("license") = "Dual MIT/GPL";
