import { nemoGymMount } from "./nemo-gym/nemo-gym-mount";
import { openEnvMount } from "./openenv/openenv-mount";
import { rolloutsMount } from "./rollouts/rollouts-mount";
import type { ProtocolMount, ServeContext } from "./serve-context";

/** Every protocol `rlenv serve` answers, on one listener and one session table (add a line for a new one). */
export const SERVE_PROTOCOLS: ReadonlyArray<(ctx: ServeContext) => ProtocolMount> = [
  openEnvMount,
  (ctx) => nemoGymMount(ctx),
  rolloutsMount,
];
