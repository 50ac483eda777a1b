// SPDX-License-Identifier: GPL-2.0-only OR MIT
/* Frames of ringlab's EtherTypes, by EtherType: 0x88B5 to the AF_XDP socket
 * bound to the receiving queue (XSKMAP indexed by rx_queue_index), 0x88B7 to
 * a second socket on that queue (index rx_queue_index + 32), 0x88B8
 * dropped, 0x88B9 passed to the stack; an empty XSKMAP entry passes the
 * frame too. Everything else goes to the stack uncounted: the EtherType
 * test keeps stray traffic (router solicitations, MLD) out of the sockets
 * under test, whose counters the harness compares exactly.
 *
 * Built twice: with bpf_redirect_map(), and with -DRINGLAB_REDIRECT_XSK
 * with bpf_redirect_xsk() (kernel/patches/xsk-redirect-xsk), which answers
 * XDP_REDIRECT_XSK when the entry is the queue's only socket and otherwise
 * does what bpf_redirect_map() does.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

/* IEEE 802 local experimental EtherType 1; the three after 0x88B6 (the
 * harness's transmit-only frames) belong to other protocols, none of which
 * runs in the sandbox's namespaces. */
#define RINGLAB_ETH_P 0x88B5
#define RINGLAB_ETH_P_SECOND 0x88B7
#define RINGLAB_ETH_P_DROP 0x88B8
#define RINGLAB_ETH_P_PASS 0x88B9
#define XSKMAP_SECOND 32

/* enum xdp_action of the series; uapi headers without it still build. */
#ifndef XDP_REDIRECT_XSK
#define XDP_REDIRECT_XSK 5
#endif

#ifdef RINGLAB_REDIRECT_XSK
/* FN(redirect_xsk, 212) of the series' include/uapi/linux/bpf.h. */
static long (*bpf_redirect_xsk)(struct xdp_md *ctx, void *map, __u64 key, __u64 flags) = (void *)212;
#endif

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

/* Frames of ringlab's EtherTypes this program has seen: [0] redirected to a
 * socket, [1] dropped or passed; with bpf_redirect_xsk(), of those in [0],
 * [2] answered XDP_REDIRECT_XSK (the fast path) and [3] XDP_REDIRECT (the
 * fallback). The harness waits until every frame it
 * sent is counted, and each redirected one is on an RX ring or in a drop
 * counter, before it compares: comparisons happen at quiescent points. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4);
	__type(key, __u32);
	__type(value, __u64);
} seen SEC(".maps");

static void count(__u32 k)
{
	__u64 *n = bpf_map_lookup_elem(&seen, &k);

	if (n)
		__sync_fetch_and_add(n, 1);
}

SEC("xdp")
int xsk_redirect(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;
	__u32 key = ctx->rx_queue_index;
	int act;

	if ((void *)(eth + 1) > end)
		return XDP_PASS;
	switch (bpf_ntohs(eth->h_proto)) {
	case RINGLAB_ETH_P:
		break;
	case RINGLAB_ETH_P_SECOND:
		key += XSKMAP_SECOND;
		break;
	case RINGLAB_ETH_P_DROP:
		count(1);
		return XDP_DROP;
	case RINGLAB_ETH_P_PASS:
		count(1);
		return XDP_PASS;
	default:
		return XDP_PASS;
	}
	/* The flags' low bits are the action when the entry is empty. */
#ifdef RINGLAB_REDIRECT_XSK
	act = bpf_redirect_xsk(ctx, &xsks, key, XDP_PASS);
	if (act == XDP_REDIRECT_XSK)
		count(2);
	else if (act == XDP_REDIRECT)
		count(3);
#else
	act = bpf_redirect_map(&xsks, key, XDP_PASS);
#endif
	count(act == XDP_REDIRECT || act == XDP_REDIRECT_XSK ? 0 : 1);
	return act;
}

char _license[] SEC("license") = "Dual MIT/GPL";
