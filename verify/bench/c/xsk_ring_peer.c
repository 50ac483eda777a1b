/* The ring bench's libxdp peer: libxdp's own ring functions from
 * <xdp/xsk.h> (xsk_ring_prod__reserve/submit, xsk_ring_cons__peek/release)
 * over a ring in ordinary memory instead of a socket's mmap, so that they
 * run between two threads exactly as an application's and the kernel's
 * sides would. Only the inline ring functions are used: nothing of
 * libxdp.so is linked.
 *
 * The shared words have ringlab's Ring layout (sim/ring/src/owned.rs):
 * producer and consumer each on their own 128-byte pair of cache lines,
 * so the comparison is between the two protocols' code, not two layouts. */

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xdp/xsk.h>

#define PAIR_OF_LINES 128

struct xsk_peer {
	/* what the kernel's struct xdp_ring holds */
	_Alignas(PAIR_OF_LINES) __u32 producer;
	_Alignas(PAIR_OF_LINES) __u32 consumer;
	_Alignas(PAIR_OF_LINES) __u32 flags;
	__u64 *entries;
	/* each side's private view, as libxdp keeps it in the application;
	 * apart so that one side's cached indices do not share a line with
	 * the other's */
	_Alignas(PAIR_OF_LINES) struct xsk_ring_prod prod;
	_Alignas(PAIR_OF_LINES) struct xsk_ring_cons cons;
};

/* A ring of `size` u64 entries (a power of two), both sides set up as
 * xsk_socket__create() and xsk_umem__create() set them up; NULL for a size
 * that is not a power of two or when memory runs out. */
struct xsk_peer *xsk_peer_new(uint32_t size)
{
	struct xsk_peer *r;

	if (size == 0 || (size & (size - 1)) != 0)
		return NULL;
	r = aligned_alloc(PAIR_OF_LINES, sizeof(*r));
	if (!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->entries = calloc(size, sizeof(__u64));
	if (!r->entries) {
		free(r);
		return NULL;
	}
	r->prod.mask = size - 1;
	r->prod.size = size;
	r->prod.producer = &r->producer;
	r->prod.consumer = &r->consumer;
	r->prod.flags = &r->flags;
	r->prod.ring = r->entries;
	r->prod.cached_prod = r->producer;
	/* size ahead of the consumer: xsk_prod_nb_free() then computes free
	 * space as cached_cons - cached_prod without adding size each time */
	r->prod.cached_cons = r->consumer + size;

	r->cons.mask = size - 1;
	r->cons.size = size;
	r->cons.producer = &r->producer;
	r->cons.consumer = &r->consumer;
	r->cons.flags = &r->flags;
	r->cons.ring = r->entries;
	r->cons.cached_prod = r->producer;
	r->cons.cached_cons = r->consumer;
	return r;
}

void xsk_peer_free(struct xsk_peer *r)
{
	if (!r)
		return;
	free(r->entries);
	free(r);
}

/* The producer's side: `n` entries seq, seq + 1, ... as one batch, all or
 * nothing as xsk_ring_prod__reserve() gives them; returns n, or 0 when the
 * ring has not room for n. */
uint32_t xsk_peer_send(struct xsk_peer *r, uint64_t seq, uint32_t n)
{
	__u32 idx, i;

	if (xsk_ring_prod__reserve(&r->prod, n, &idx) != n)
		return 0;
	for (i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&r->prod, idx + i) = seq + i;
	xsk_ring_prod__submit(&r->prod, n);
	return n;
}

/* The consumer's side: takes up to `n` entries, read in place as an
 * application reads its completion ring, each of which must be *next
 * (which then moves on). Returns how many it took; on an entry out of
 * order, stores it in *bad and returns UINT32_MAX without releasing. */
uint32_t xsk_peer_recv(struct xsk_peer *r, uint32_t n, uint64_t *next, uint64_t *bad)
{
	__u32 idx, k, i;
	uint64_t want = *next;

	k = xsk_ring_cons__peek(&r->cons, n, &idx);
	for (i = 0; i < k; i++) {
		uint64_t v = *xsk_ring_cons__comp_addr(&r->cons, idx + i);

		if (v != want) {
			*bad = v;
			*next = want;
			return UINT32_MAX;
		}
		want++;
	}
	if (k)
		xsk_ring_cons__release(&r->cons, k);
	*next = want;
	return k;
}
