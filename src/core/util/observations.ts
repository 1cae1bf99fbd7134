/**
 * What the rollouts of this process saw happen that a runner's metrics want and a
 * trajectory does not hold: how long a sandbox took to come up, how long each policy
 * request took. Emitted where it is measured; `rlenv run --progress-jsonl` passes them to
 * the runner as lines. With no listener an observation costs a call and nothing else.
 */
export type Observation =
  | { kind: "rollout-start" }
  | { kind: "sandbox-start"; ms: number }
  | { kind: "policy-request"; ms: number }
  | { kind: "rollout-error"; class: string }
  /** A rollout's submission raised this hack signal (once per rollout and signal). */
  | { kind: "hack-signal"; signal: string };

type Listener = (o: Observation) => void;
const listeners = new Set<Listener>();

export function observe(o: Observation): void {
  for (const l of listeners) l(o);
}

/** Listens until the returned function is called. */
export function onObservation(l: Listener): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}
