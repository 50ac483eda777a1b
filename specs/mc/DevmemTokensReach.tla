-------------------------- MODULE DevmemTokensReach -------------------------
(***************************************************************************)
(* Where DevmemTokens' bounds on work are reached and crossed              *)
(* (specs/thresholds.json). `ringlab check` runs a model with the step     *)
(* predicate's negation as its property and must find such a step.         *)
(***************************************************************************)
EXTENDS DevmemTokens

\* MAX_DONTNEED_FRAGS: one SO_DEVMEM_DONTNEED asks for more than
\* DontneedLimit tokens, examines DontneedLimit of them, and a token past
\* the limit stays held.
Step_DontneedCut ==
    \E s \in Socks, t \in Toks, c \in 1 .. MaxCount :
        /\ c > DontneedLimit
        /\ Dontneed(s, t, c)
        /\ work' = DontneedLimit
        /\ \E id \in (t + DontneedLimit) .. (t + c - 1) :
              /\ id \in Toks /\ xa[s][id] # NoNiov
              /\ xa'[s][id] = xa[s][id]
=============================================================================
