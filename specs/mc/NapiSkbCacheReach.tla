-------------------------- MODULE NapiSkbCacheReach --------------------------
(***************************************************************************)
(* Where NapiSkbCache's bounds on work are reached and crossed             *)
(* (specs/thresholds.json). `ringlab check` runs a model with a state      *)
(* predicate's negation as its invariant (a step predicate's as its        *)
(* property) and must find one.                                            *)
(***************************************************************************)
EXTENDS NapiSkbCache

\* NAPI_SKB_CACHE_SIZE: a put fills the cache and its newer half goes back
\* to the slab.
Step_HalfFlush ==
    \E c \in CPUs :
        /\ Len(cache[c]) = CacheSize - 1
        /\ Len(cache'[c]) = Half
        /\ Range(SubSeq(cache[c], Half + 1, CacheSize - 1)) \subseteq slab'

\* NAPI_SKB_CACHE_BULK: an empty cache is refilled with Bulk heads, one of
\* which the get hands out.
Step_BulkRefill == \E c \in CPUs : cache[c] = <<>> /\ Len(cache'[c]) = Bulk - 1

\* sysctl_skb_defer_max: a defer list is full, so the next remote free of
\* one of its CPU's skbs bypasses it.
Reach_DeferFull == \E c \in CPUs : dcount[c] = DeferMax

\* Half of sysctl_skb_defer_max: the enqueue that passes it kicks the CPU.
Reach_DeferKick == \E c \in CPUs : kick[c] /\ dcount[c] > DeferMax \div 2

\* VHOST_NET_BATCH: a batch holds more heads than its cache has room for.
Reach_BatchOverCache ==
    \E c \in CPUs : ctx[c] = "tun" /\ Len(heads[c]) > CacheSize - Len(cache[c])
=============================================================================
