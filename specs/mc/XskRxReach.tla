------------------------------ MODULE XskRxReach ------------------------------
(***************************************************************************)
(* Where XskRx's bounds on work are reached and crossed                    *)
(* (specs/thresholds.json). `ringlab check` runs a model with the step     *)
(* predicate's negation as its property and must find such a step.         *)
(***************************************************************************)
EXTENDS XskRx

\* The NAPI weight: a poll that has handled PollBudget packets ends
\* although more are to come; the next poll takes them.
Step_PollBudget ==
    \E c \in Cpus :
        /\ XdpDoFlush(c)
        /\ arrived - pollStart = PollBudget
        /\ arrived < MaxPkts
=============================================================================
