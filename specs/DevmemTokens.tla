---------------------------- MODULE DevmemTokens -----------------------------
(***************************************************************************)
(* Devmem TCP receive: who holds a reference on each net_iov of a dmabuf   *)
(* binding, and the tokens that let the application give them back.        *)
(*                                                                         *)
(* The NIC fills net_iovs from the binding's page pool; TCP queues them on *)
(* sockets as skb frags. tcp_recvmsg_dmabuf() takes a page-pool reference  *)
(* for the application and hands it a token in a cmsg; the application     *)
(* returns tokens with SO_DEVMEM_DONTNEED (sock_devmem_dontneed()). A      *)
(* net_iov goes back to the pool when its pp_ref_count reaches zero.       *)
(*                                                                         *)
(* Two token modes, chosen per binding at NETDEV_CMD_BIND_RX:              *)
(*  "xarray" (linux 6.12.117; autorelease on): a token is an id in the     *)
(*      socket's sk_user_frags xarray; closing the socket releases them;   *)
(*  "array" (seed 004; autorelease off): a token is the net_iov's index in *)
(*      the binding, and the kernel only counts how many it handed out     *)
(*      (niov->uref); closing a socket releases nothing, unbind releases   *)
(*      what is left.                                                      *)
(* One mode system-wide: a binding cannot be created while a binding of    *)
(* the other mode is bound.                                                *)
(*                                                                         *)
(* A frag may be read in Parts pieces (a short recvmsg); each piece is a   *)
(* token and a reference of its own.                                       *)
(*                                                                         *)
(* Lifetime = TRUE adds the binding's own life (its refcount, the device   *)
(* it is bound on, the holders of its references) and the system-wide      *)
(* mode; see "The binding's lifetime" below. With Lifetime = FALSE those   *)
(* variables keep their initial values and the actions are those above.    *)
(***************************************************************************)
EXTENDS Naturals, Integers, Sequences, FiniteSets, TLC

CONSTANTS
    Bindings,     \* dmabuf bindings (model values)
    SocksPer,     \* TCP sockets steered to each binding's queues
    NiovsPer,     \* net_iovs in each binding
    Parts,        \* recvmsg calls a frag may be split over
    Modes,        \* the modes a bind may ask for: a subset of {"xarray", "array"}
    MaxCount,     \* token_count the application may pass in one dmabuf_token
    DontneedLimit,\* MAX_DONTNEED_FRAGS: tokens one SO_DEVMEM_DONTNEED examines
    Lifetime,     \* BOOLEAN: model the binding's refcount and its device
    Mutant        \* "none" or a mutant id of specs/manifest.json

ASSUME SocksPer \in Nat \ {0} /\ NiovsPer \in Nat \ {0} /\ Parts \in Nat \ {0}
ASSUME Modes \subseteq {"xarray", "array"} /\ Modes # {}
ASSUME MaxCount \in Nat \ {0} /\ DontneedLimit \in Nat \ {0}
ASSUME Lifetime \in BOOLEAN
ASSUME Mutant \in {"none", "dm-dontneed-loop", "dm-cmsg-trunc", "zcrx-uref-race",
                   "dm-recv-no-ref", "dm-close-no-release",
                   "dm-unbind-no-cleanup", "dm-mode-mix",
                   "dm-nl-close-uaf", "dm-nl-close-dev-gone",
                   "dm-sock-no-binding-ref", "dm-mode-reset-early"}

\* A socket and a net_iov are named by their binding and an index, so a
\* socket receives only its binding's net_iovs (the queues are steered).
Socks == Bindings \X (0 .. SocksPer - 1)
Niovs == Bindings \X (0 .. NiovsPer - 1)
\* Token values: xarray ids of one socket (at most NiovsPer * Parts are live
\* at once, so xa_alloc never fails here) and net_iov indices.
Toks == 0 .. (NiovsPer * Parts - 1)
NoNiov == <<"none", -1>>
NoTok == -1

VARIABLES
    bst,      \* bst[b]: "idle", "bound" or "dead" (unbound)
    mode,     \* mode[b]: the token mode the bind asked for
    pool,     \* pool[n]: times n sits in the page pool's free list
    ppref,    \* ppref[n]: the net_iov's pp_ref_count
    uref,     \* uref[n]: array mode: tokens handed out and not returned
    rxq,      \* rxq[s]: skbs queued on s: [niov, left] (pieces unread)
    xa,       \* xa[s][id]: xarray mode: the net_iov token id names in s
    open,     \* open[s]: the socket is not closed
    user,     \* user[s][t]: tokens t the application holds from s (history)
    stolen,   \* releases through one socket of a token another received
    work,     \* tokens the last SO_DEVMEM_DONTNEED examined
    pend,     \* pend[s]: zcrx-uref-race: a release that saw uref > 0 and
              \* has not yet decremented it
    \* Lifetime only (constant otherwise):
    dev,      \* dev[b]: the binding's netdev, "up" or "gone" (unregistered)
    mp,       \* mp[b]: its RX queue's memory provider: "off"; "on"
              \* (installed, the page pool holds a binding reference);
              \* "drain" (uninstalled, the pool waits for its net_iovs)
    bref,     \* bref[b]: the binding's refcount
    sref,     \* sref[s]: array mode: s received from its binding and holds
              \* a reference on it (sk_devmem_info.binding) until close
    freed,    \* freed[b]: __net_devmem_dmabuf_binding_free has run
    smode,    \* the system-wide mode: "none" or that of every binding
    tbind,    \* tbind[b]: the last step used b after the references it
              \* dropped
    tdev      \* tdev[b]: the last step used b's netdev

life == <<dev, mp, bref, sref, freed, smode, tbind, tdev>>
vars == <<bst, mode, pool, ppref, uref, rxq, xa, open, user, stolen, work, pend,
          dev, mp, bref, sref, freed, smode, tbind, tdev>>

Bind(n) == n[1]
SocksOf(b) == {s \in Socks : s[1] = b}
NiovAt(b, i) == <<b, i>>
Min(S) == CHOOSE x \in S : \A y \in S : x <= y

\* References an skb still queued on a socket holds on n.
SkbRefs(n) == Cardinality({<<s, k>> \in Socks \X (1 .. NiovsPer) :
                              k <= Len(rxq[s]) /\ rxq[s][k].niov = n})
\* Tokens the kernel accounts for on n.
KernelTokens(n) ==
    IF mode[Bind(n)] = "xarray"
    THEN Cardinality({<<s, id>> \in SocksOf(Bind(n)) \X Toks : xa[s][id] = n})
    ELSE uref[n]
\* Tokens the application holds on n.
UserTokens(n) ==
    IF mode[Bind(n)] = "xarray"
    THEN Cardinality({<<s, id>> \in SocksOf(Bind(n)) \X Toks :
                        xa[s][id] = n /\ user[s][id] > 0})
    ELSE LET S == SocksOf(Bind(n)) IN
         LET Sum[T \in SUBSET S] ==
                IF T = {} THEN 0
                ELSE LET s == CHOOSE x \in T : TRUE
                     IN user[s][n[2]] + Sum[T \ {s}]
         IN Sum[S]

TypeOK ==
    /\ bst \in [Bindings -> {"idle", "bound", "dead"}]
    /\ mode \in [Bindings -> {"xarray", "array"}]
    /\ pool \in [Niovs -> Nat]
    /\ ppref \in [Niovs -> Int]
    /\ uref \in [Niovs -> Int]
    /\ \A s \in Socks : rxq[s] \in Seq([niov : Niovs, left : 1 .. Parts])
    /\ xa \in [Socks -> [Toks -> Niovs \cup {NoNiov}]]
    /\ open \in [Socks -> BOOLEAN]
    /\ user \in [Socks -> [Toks -> Nat]]
    /\ work \in Nat
    /\ pend \in [Socks -> Toks \cup {NoTok}]
    /\ dev \in [Bindings -> {"up", "gone"}]
    /\ mp \in [Bindings -> {"off", "on", "drain"}]
    /\ bref \in [Bindings -> Int]
    /\ sref \in [Socks -> BOOLEAN]
    /\ freed \in [Bindings -> BOOLEAN]
    /\ smode \in {"none", "xarray", "array"}
    /\ tbind \in [Bindings -> BOOLEAN]
    /\ tdev \in [Bindings -> BOOLEAN]

Init ==
    /\ bst = [b \in Bindings |-> "idle"]
    /\ mode = [b \in Bindings |-> CHOOSE m \in Modes : TRUE]
    /\ pool = [n \in Niovs |-> 0]
    /\ ppref = [n \in Niovs |-> 0]
    /\ uref = [n \in Niovs |-> 0]
    /\ rxq = [s \in Socks |-> <<>>]
    /\ xa = [s \in Socks |-> [id \in Toks |-> NoNiov]]
    /\ open = [s \in Socks |-> TRUE]
    /\ user = [s \in Socks |-> [t \in Toks |-> 0]]
    /\ stolen = {}
    /\ work = 0
    /\ pend = [s \in Socks |-> NoTok]
    /\ dev = [b \in Bindings |-> "up"]
    /\ mp = [b \in Bindings |-> "off"]
    /\ bref = [b \in Bindings |-> 0]
    /\ sref = [s \in Socks |-> FALSE]
    /\ freed = [b \in Bindings |-> FALSE]
    /\ smode = "none"
    /\ tbind = [b \in Bindings |-> FALSE]
    /\ tdev = [b \in Bindings |-> FALSE]

\* A step that uses no binding and no device after its last put.
NoTouch ==
    /\ tbind' = [b \in Bindings |-> FALSE]
    /\ tdev' = [b \in Bindings |-> FALSE]

\* Drop dec[n] references from every net_iov; one that reaches zero goes
\* back to the pool (napi_pp_put_page -> page_pool_put_netmem).
Put(dec) ==
    /\ ppref' = [n \in Niovs |-> ppref[n] - dec[n]]
    /\ pool' = [n \in Niovs |->
                  IF dec[n] > 0 /\ ppref[n] - dec[n] = 0 THEN pool[n] + 1
                  ELSE pool[n]]

\* Lifetime: a binding that exists (bound, or unbound and not yet freed).
Alive(b) == bst[b] # "idle" /\ ~freed[b]

\* Lifetime: the users of b (binding->users): its RX queue while the memory
\* provider is installed, and the sockets that received from it.
Users(b) == (IF mp[b] = "on" THEN 1 ELSE 0)
            + Cardinality({s \in SocksOf(b) : sref[s]})

\* Lifetime: the holders of b's references: the netlink socket that bound
\* it, its queue's page pool, the sockets that received from it.
Holders(b) == (IF bst[b] = "bound" THEN 1 ELSE 0)
              + (IF mp[b] # "off" THEN 1 ELSE 0)
              + Cardinality({s \in SocksOf(b) : sref[s]})

\* net_devmem_dmabuf_binding_put, k times: the last frees the binding.
Freeing(b, k) == k > 0 /\ bref[b] - k = 0
Release(b, k) ==
    /\ bref' = [bref EXCEPT ![b] = @ - k]
    /\ freed' = [freed EXCEPT ![b] = @ \/ Freeing(b, k)]

\* The system-wide mode after k puts on b: reset when b is freed and no
\* other binding exists (mutant dm-mode-reset-early: not here, at unbind).
ModeAfter(b, k) ==
    IF /\ Mutant # "dm-mode-reset-early"
       /\ Freeing(b, k)
       /\ \A c \in Bindings \ {b} : ~Alive(c)
    THEN "none" ELSE smode

\* Array mode, Lifetime: the last user of b goes; the references of tokens
\* never returned are dropped (each uref exchanged with zero; mutant
\* dm-unbind-no-cleanup: not), and the application's tokens are void.
Cleans(b, last) == last /\ mode[b] = "array" /\ Mutant # "dm-unbind-no-cleanup"
CleanDec(b, clean) == [n \in Niovs |-> IF clean /\ Bind(n) = b THEN uref[n] ELSE 0]
CleanUref(b, clean) ==
    uref' = IF clean THEN [n \in Niovs |-> IF Bind(n) = b THEN 0 ELSE uref[n]]
            ELSE uref
CleanUser(b, clean) ==
    IF clean THEN [o \in Socks |-> IF o[1] = b THEN [t \in Toks |-> 0] ELSE user[o]]
    ELSE user

(***************************************************************************)
(* NETDEV_CMD_BIND_RX (net_devmem_bind_dmabuf): the binding's net_iovs     *)
(* enter its page pool. The single-mode rule: no binding of the other mode *)
(* may be bound.                                                           *)
(***************************************************************************)
BindRx(b, m) ==
    /\ bst[b] = "idle"
    /\ m \in Modes
    /\ IF Lifetime
       THEN smode \in {"none", m}
       ELSE \/ \A c \in Bindings : bst[c] = "bound" => mode[c] = m
            \/ Mutant = "dm-mode-mix"
    /\ bst' = [bst EXCEPT ![b] = "bound"]
    /\ mode' = [mode EXCEPT ![b] = m]
    /\ pool' = [n \in Niovs |-> IF Bind(n) = b THEN 1 ELSE pool[n]]
    /\ UNCHANGED <<ppref, uref, rxq, xa, open, user, stolen, work, pend>>
    \* Lifetime: the netlink socket's reference and the page pool's
    \* (mp_dmabuf_devmem_init on the queue); the mode is set system-wide.
    /\ IF Lifetime
       THEN /\ mp' = [mp EXCEPT ![b] = "on"]
            /\ bref' = [bref EXCEPT ![b] = 2]
            /\ smode' = m
            /\ tbind' = [c \in Bindings |-> c = b]
            /\ tdev' = [c \in Bindings |-> c = b]
            /\ UNCHANGED <<dev, sref, freed>>
       ELSE UNCHANGED life

(***************************************************************************)
(* The NIC takes n from the page pool (pp_ref_count set to 1, the skb's    *)
(* reference) and TCP queues the frag on s (tcp_data_queue).               *)
(***************************************************************************)
RxFrag(s, n) ==
    /\ bst[Bind(n)] = "bound"
    /\ Bind(n) = s[1]
    /\ open[s]
    /\ pool[n] > 0
    /\ Lifetime => mp[Bind(n)] = "on"
    /\ pool' = [pool EXCEPT ![n] = @ - 1]
    /\ ppref' = [ppref EXCEPT ![n] = 1]
    /\ rxq' = [rxq EXCEPT ![s] = Append(@, [niov |-> n, left |-> Parts])]
    /\ UNCHANGED <<bst, mode, uref, xa, open, user, stolen, work, pend>>
    /\ IF Lifetime THEN NoTouch /\ UNCHANGED <<dev, mp, bref, sref, freed, smode>>
       ELSE UNCHANGED life

(***************************************************************************)
(* tcp_recvmsg_dmabuf: one piece of the head skb's frag. The kernel takes  *)
(* a reference for the application (atomic_long_inc(pp_ref_count)) and     *)
(* records a token; an skb whose last piece is read is freed, dropping its *)
(* own reference. In array mode a binding that is already unbound hands    *)
(* out no tokens: unbind's cleanup has run and nothing would release them. *)
(* Mutant dm-cmsg-trunc: put_cmsg truncates the token's cmsg silently and  *)
(* the reference is taken anyway. Mutant dm-recv-no-ref: no reference.     *)
(***************************************************************************)
RecvMsg(s) ==
    /\ open[s]
    /\ rxq[s] # <<>>
    /\ LET h == Head(rxq[s])
           n == h.niov
           b == Bind(n)
           ref == IF Mutant = "dm-recv-no-ref" THEN 0 ELSE 1
           last == h.left = 1
       IN
       /\ mode[b] = "array" => bst[b] = "bound"
       /\ \E told \in IF Mutant = "dm-cmsg-trunc" THEN {TRUE, FALSE} ELSE {TRUE} :
          LET tok == IF mode[b] = "xarray"
                     THEN Min({id \in Toks : xa[s][id] = NoNiov})
                     ELSE n[2]
          IN
          /\ xa' = IF mode[b] = "xarray" THEN [xa EXCEPT ![s][tok] = n] ELSE xa
          /\ uref' = IF mode[b] = "array" THEN [uref EXCEPT ![n] = @ + 1] ELSE uref
          /\ user' = IF told THEN [user EXCEPT ![s][tok] = @ + 1] ELSE user
       /\ ppref' = [ppref EXCEPT ![n] = @ + ref - (IF last THEN 1 ELSE 0)]
       /\ pool' = IF ppref[n] + ref - (IF last THEN 1 ELSE 0) = 0
                  THEN [pool EXCEPT ![n] = @ + 1] ELSE pool
       /\ rxq' = [rxq EXCEPT ![s] = IF last THEN Tail(@)
                                     ELSE <<[h EXCEPT !.left = @ - 1]>> \o Tail(@)]
       \* Lifetime: the cmsg names the binding (xarray) or the token is
       \* its net_iov index (array): the binding is used. Array mode: the
       \* first receive makes s a user holding a reference (mutant
       \* dm-sock-no-binding-ref: without net_devmem_dmabuf_binding_get).
       /\ IF Lifetime
          THEN LET first == mode[b] = "array" /\ ~sref[s]
               IN /\ sref' = IF first THEN [sref EXCEPT ![s] = TRUE] ELSE sref
                  /\ bref' = IF first /\ Mutant # "dm-sock-no-binding-ref"
                             THEN [bref EXCEPT ![b] = @ + 1] ELSE bref
                  /\ tbind' = [c \in Bindings |-> c = b]
                  /\ tdev' = [c \in Bindings |-> FALSE]
                  /\ UNCHANGED <<dev, mp, freed, smode>>
          ELSE UNCHANGED life
    /\ UNCHANGED <<bst, mode, open, stolen, work, pend>>

(***************************************************************************)
(* SO_DEVMEM_DONTNEED with one dmabuf_token {token_start = t, token_count  *)
(* = c}: the kernel examines at most DontneedLimit tokens (mutant          *)
(* dm-dontneed-loop: all c). The application may pass any value.           *)
(*  xarray: each id found in the socket's own xarray is erased and its     *)
(*      reference dropped;                                                  *)
(*  array: each index whose uref is positive is decremented in one atomic  *)
(*      step (atomic_dec_if_positive) and its reference dropped. The token *)
(*      may have been handed to another socket of the same binding.        *)
(***************************************************************************)
Examined(t, c) ==
    LET k == IF Mutant = "dm-dontneed-loop" THEN c
             ELSE IF c < DontneedLimit THEN c ELSE DontneedLimit
    IN {t + j : j \in 0 .. (k - 1)}

\* The socket through which the application received the token it returns
\* as i (history only): its own when it has one, else another's.
Holder(s, i) ==
    IF user[s][i] > 0 THEN s
    ELSE IF \E o \in SocksOf(s[1]) : user[o][i] > 0
         THEN CHOOSE o \in SocksOf(s[1]) : user[o][i] > 0
         ELSE s

DontneedXarray(s, R) ==
    LET hit == {id \in R \cap Toks : xa[s][id] # NoNiov}
        dec == [n \in Niovs |-> Cardinality({id \in hit : xa[s][id] = n})]
    IN
    /\ xa' = [xa EXCEPT ![s] = [id \in Toks |-> IF id \in hit THEN NoNiov ELSE @[id]]]
    /\ user' = [user EXCEPT ![s] = [id \in Toks |-> IF id \in hit THEN 0 ELSE @[id]]]
    /\ Put(dec)
    /\ UNCHANGED <<uref, stolen>>

ReleaseUser(s, hit) ==
    /\ user' = [o \in Socks |-> [i \in Toks |->
                  IF i \in hit /\ Holder(s, i) = o /\ user[o][i] > 0
                  THEN user[o][i] - 1 ELSE user[o][i]]]
    /\ stolen' = stolen \cup {[by |-> s, from |-> Holder(s, i), tok |-> i] :
                                i \in {j \in hit : Holder(s, j) # s}}

DontneedArray(s, R) ==
    LET b == s[1]
        hit == {i \in R \cap (0 .. NiovsPer - 1) : uref[NiovAt(b, i)] > 0}
        dec == [n \in Niovs |-> IF Bind(n) = b /\ n[2] \in hit THEN 1 ELSE 0]
    IN
    /\ uref' = [n \in Niovs |-> uref[n] - dec[n]]
    /\ ReleaseUser(s, hit)
    /\ Put(dec)
    /\ UNCHANGED xa

Dontneed(s, t, c) ==
    /\ open[s]
    /\ ~(Mutant = "zcrx-uref-race" /\ mode[s[1]] = "array")
    \* Lifetime, array mode: the tokens are the indices of the binding s
    \* received from (sk_devmem_info.binding); none yet, -EINVAL.
    /\ Lifetime /\ mode[s[1]] = "array" => sref[s]
    /\ LET R == Examined(t, c) IN
       /\ work' = Cardinality(R)
       /\ IF mode[s[1]] = "xarray" THEN DontneedXarray(s, R) ELSE DontneedArray(s, R)
    /\ UNCHANGED <<bst, mode, rxq, open, pend>>
    /\ IF Lifetime
       THEN /\ tbind' = [c2 \in Bindings |-> c2 = s[1] /\ mode[s[1]] = "array"]
            /\ tdev' = [c2 \in Bindings |-> FALSE]
            /\ UNCHANGED <<dev, mp, bref, sref, freed, smode>>
       ELSE UNCHANGED life

(***************************************************************************)
(* Mutant zcrx-uref-race (the pattern of io_uring/zcrx's scrub/refill      *)
(* race): the release reads uref > 0, then decrements it in a second step; *)
(* unbind's exchange to zero may run in between.                           *)
(***************************************************************************)
DontneedRead(s, t) ==
    /\ Mutant = "zcrx-uref-race"
    /\ ~Lifetime
    /\ mode[s[1]] = "array"
    /\ open[s]
    /\ pend[s] = NoTok
    /\ t < NiovsPer
    /\ uref[NiovAt(s[1], t)] > 0
    /\ pend' = [pend EXCEPT ![s] = t]
    /\ work' = 1
    /\ UNCHANGED <<bst, mode, pool, ppref, uref, rxq, xa, open, user, stolen>>
    /\ UNCHANGED life

DontneedPut(s) ==
    /\ pend[s] # NoTok
    /\ LET n == NiovAt(s[1], pend[s])
           dec == [m \in Niovs |-> IF m = n THEN 1 ELSE 0]
       IN
       /\ uref' = [uref EXCEPT ![n] = @ - 1]
       /\ ReleaseUser(s, {pend[s]})
       /\ Put(dec)
    /\ pend' = [pend EXCEPT ![s] = NoTok]
    /\ UNCHANGED <<bst, mode, rxq, xa, open, work>>
    /\ UNCHANGED life

(***************************************************************************)
(* close(): tcp_v4_destroy_sock. Queued skbs are purged. xarray mode:      *)
(* tcp_release_user_frags drops every token's reference (mutant            *)
(* dm-close-no-release: it does not). array mode: nothing; the tokens stay *)
(* with the application, which may return them through another socket.   *)
(***************************************************************************)
Close(s) ==
    /\ open[s]
    /\ pend[s] = NoTok
    /\ LET b == s[1]
           xarr == mode[b] = "xarray" /\ Mutant # "dm-close-no-release"
           \* Lifetime: s puts its binding reference; the last user cleans.
           had == Lifetime /\ sref[s]
           clean == Cleans(b, had /\ Users(b) = 1)
           dec == [n \in Niovs |->
                     Cardinality({k \in 1 .. Len(rxq[s]) : rxq[s][k].niov = n})
                     + (IF xarr THEN Cardinality({id \in Toks : xa[s][id] = n})
                        ELSE 0)
                     + CleanDec(b, clean)[n]]
       IN
       /\ Put(dec)
       /\ xa' = IF xarr THEN [xa EXCEPT ![s] = [id \in Toks |-> NoNiov]] ELSE xa
       /\ user' = IF mode[b] = "xarray"
                  THEN [user EXCEPT ![s] = [t \in Toks |-> 0]]
                  ELSE CleanUser(b, clean)
       /\ CleanUref(b, clean)
       /\ IF Lifetime
          THEN /\ sref' = [sref EXCEPT ![s] = FALSE]
               /\ Release(b, IF had THEN 1 ELSE 0)
               /\ smode' = ModeAfter(b, IF had THEN 1 ELSE 0)
               /\ NoTouch
               /\ UNCHANGED <<dev, mp>>
          ELSE UNCHANGED life
    /\ open' = [open EXCEPT ![s] = FALSE]
    /\ rxq' = [rxq EXCEPT ![s] = <<>>]
    /\ UNCHANGED <<bst, mode, stolen, work, pend>>

(***************************************************************************)
(* net_devmem_unbind_dmabuf (the netlink socket that bound it closes). In  *)
(* array mode the references of tokens never returned are dropped: each    *)
(* uref is exchanged with zero (mutant dm-unbind-no-cleanup: they are      *)
(* not), and the application's tokens are void.                            *)
(***************************************************************************)
Unbind(b) ==
    /\ ~Lifetime
    /\ bst[b] = "bound"
    /\ bst' = [bst EXCEPT ![b] = "dead"]
    /\ LET clean == mode[b] = "array" /\ Mutant # "dm-unbind-no-cleanup"
           dec == [n \in Niovs |-> IF clean /\ Bind(n) = b THEN uref[n] ELSE 0]
       IN
       /\ Put(dec)
       /\ uref' = [n \in Niovs |-> uref[n] - dec[n]]
       /\ user' = IF clean
                  THEN [s \in Socks |-> IF s[1] = b THEN [t \in Toks |-> 0]
                                        ELSE user[s]]
                  ELSE user
    /\ UNCHANGED <<mode, rxq, xa, open, stolen, work, pend>>
    /\ UNCHANGED life

(***************************************************************************)
(* The binding's lifetime (Lifetime = TRUE).                               *)
(*                                                                         *)
(* NlSockClose: the netlink socket that bound b closes,                    *)
(* netdev_nl_sock_priv_destroy -> net_devmem_unbind_dmabuf. With the       *)
(* device present it takes the device's lock, uninstalls the memory        *)
(* provider from the queue (its page pool drains), puts the netlink        *)
(* socket's reference and unlocks the device. With the device gone the     *)
(* queue is already uninstalled and the device is not touched (mutant      *)
(* dm-nl-close-dev-gone, the bug 0afc44d8cdf6 fixed: it is). The unlock    *)
(* reads the device through a pointer saved before the put (mutant         *)
(* dm-nl-close-uaf, the bug 42f342387841 fixed: through binding->dev, a    *)
(* use after free when that put was the last).                             *)
(***************************************************************************)
NlSockClose(b) ==
    /\ Lifetime
    /\ bst[b] = "bound"
    /\ bst' = [bst EXCEPT ![b] = "dead"]
    /\ LET inst == mp[b] = "on"
           clean == Cleans(b, inst /\ Users(b) = 1)
       IN
       /\ Put(CleanDec(b, clean))
       /\ CleanUref(b, clean)
       /\ user' = CleanUser(b, clean)
       /\ mp' = IF inst THEN [mp EXCEPT ![b] = "drain"] ELSE mp
    /\ Release(b, 1)
    /\ smode' = IF Mutant = "dm-mode-reset-early"
                THEN IF \A c \in Bindings \ {b} : bst[c] # "bound" THEN "none" ELSE smode
                ELSE ModeAfter(b, 1)
    /\ tdev' = [c \in Bindings |->
                  c = b /\ (dev[b] = "up" \/ Mutant = "dm-nl-close-dev-gone")]
    /\ tbind' = [c \in Bindings |-> c = b /\ Mutant = "dm-nl-close-uaf"]
    /\ UNCHANGED <<mode, rxq, xa, open, stolen, work, pend, dev, sref>>

(***************************************************************************)
(* NetdevUnregister: b's device goes (unregister_netdevice, or its module  *)
(* unloads): the queue is closed (page_pool_destroy; the pool drains) and  *)
(* the memory provider uninstalled (mp_dmabuf_devmem_uninstall). Nothing   *)
(* may use the device after this step. The bound queue was a user.         *)
(***************************************************************************)
NetdevUnregister(b) ==
    /\ Lifetime
    /\ dev[b] = "up"
    /\ Alive(b)
    /\ dev' = [dev EXCEPT ![b] = "gone"]
    /\ LET inst == mp[b] = "on"
           clean == Cleans(b, inst /\ Users(b) = 1)
       IN
       /\ Put(CleanDec(b, clean))
       /\ CleanUref(b, clean)
       /\ user' = CleanUser(b, clean)
       /\ mp' = IF inst THEN [mp EXCEPT ![b] = "drain"] ELSE mp
    /\ NoTouch
    /\ UNCHANGED <<bst, mode, rxq, xa, open, stolen, work, pend, bref, sref,
                   freed, smode>>

(***************************************************************************)
(* MpDmabufDevmemDestroy: the uninstalled queue's page pool is released    *)
(* once every net_iov of b is back in it (page_pool_release), and puts the *)
(* reference mp_dmabuf_devmem_init took; the last put frees b              *)
(* (__net_devmem_dmabuf_binding_free).                                     *)
(***************************************************************************)
MpDmabufDevmemDestroy(b) ==
    /\ Lifetime
    /\ mp[b] = "drain"
    /\ \A n \in Niovs : Bind(n) = b => pool[n] > 0
    /\ mp' = [mp EXCEPT ![b] = "off"]
    /\ Release(b, 1)
    /\ smode' = ModeAfter(b, 1)
    /\ NoTouch
    /\ UNCHANGED <<bst, mode, pool, ppref, uref, rxq, xa, open, user, stolen,
                   work, pend, dev, sref>>

\* Every socket closed and every binding unbound: nothing is left to do.
Done ==
    /\ \A s \in Socks : ~open[s]
    /\ \A b \in Bindings : bst[b] # "bound"
    /\ UNCHANGED vars

Next ==
    \/ \E b \in Bindings, m \in Modes : BindRx(b, m)
    \/ \E s \in Socks, n \in Niovs : RxFrag(s, n)
    \/ \E s \in Socks : RecvMsg(s)
    \/ \E s \in Socks, t \in Toks, c \in 1 .. MaxCount : Dontneed(s, t, c)
    \/ \E s \in Socks, t \in Toks : DontneedRead(s, t)
    \/ \E s \in Socks : DontneedPut(s)
    \/ \E s \in Socks : Close(s)
    \/ \E b \in Bindings : Unbind(b)
    \/ \E b \in Bindings : NlSockClose(b)
    \/ \E b \in Bindings : NetdevUnregister(b)
    \/ \E b \in Bindings : MpDmabufDevmemDestroy(b)
    \/ Done

Spec == Init /\ [][Next]_vars

(***************************************************************************)
(* Invariants                                                              *)
(***************************************************************************)

\* Per net_iov: references held = tokens outstanding + skbs queued.
RefsAccounted ==
    \A n \in Niovs : ppref[n] = SkbRefs(n) + KernelTokens(n)

\* Neither counter goes below zero.
NoUnderflow ==
    \A n \in Niovs : ppref[n] >= 0 /\ uref[n] >= 0

\* A net_iov is in the pool only once, and only when nothing refers to it.
PoolOnlyUnreferenced ==
    \A n \in Niovs : pool[n] > 0 =>
        /\ pool[n] = 1
        /\ ppref[n] = 0
        /\ SkbRefs(n) = 0
        /\ KernelTokens(n) = 0
        /\ UserTokens(n) = 0

\* Autorelease: a closed socket holds nothing.
NoLeakAfterClose ==
    \A s \in Socks : ~open[s] /\ mode[s[1]] = "xarray" =>
        /\ rxq[s] = <<>>
        /\ \A id \in Toks : xa[s][id] = NoNiov

\* Array mode: once unbound (Lifetime: and its last user gone), no token
\* holds a reference.
NoLeakAfterUnbind ==
    \A n \in Niovs :
        (/\ bst[Bind(n)] = "dead"
         /\ mode[Bind(n)] = "array"
         /\ Lifetime => Users(Bind(n)) = 0) => uref[n] = 0

\* Bounded work per SO_DEVMEM_DONTNEED call.
BudgetPerCall == work <= DontneedLimit

\* A token reaches the application iff the kernel took a reference for it.
TokensDelivered ==
    \A n \in Niovs : KernelTokens(n) = UserTokens(n)

\* The single-mode rule.
SingleMode ==
    \A b, c \in Bindings : bst[b] = "bound" /\ bst[c] = "bound" => mode[b] = mode[c]

\* Ownership: a socket releases only tokens it received. Holds in xarray
\* mode; array mode gives it up (the kernel counts tokens per net_iov only).
OwnTokensOnly == stolen = {}

\* Lifetime: nothing uses a binding after its last reference is dropped.
NoUseAfterFree == \A b \in Bindings : tbind[b] => ~freed[b]

\* Lifetime: nothing uses a binding's device after it is unregistered.
NoDevAfterGone == \A b \in Bindings : tdev[b] => dev[b] = "up"

\* Lifetime: every reference taken is put once: the count is the number of
\* holders, never below zero.
RefsBalanced ==
    Lifetime => \A b \in Bindings : bref[b] >= 0 /\ bref[b] = Holders(b)

\* Lifetime: the system-wide mode is every existing binding's mode, and
\* does not change while one exists.
ModeStable ==
    Lifetime => \A b \in Bindings : Alive(b) => mode[b] = smode

=============================================================================
