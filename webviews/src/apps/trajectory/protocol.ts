/**
 * The trajectory viewer's messages. The schemas live in core (src/core/view/protocol)
 * because the host parses them too; this file is the app's one import point for them.
 */
export { FromApp, FromHost, InitContext } from "../../../../src/core/view/protocol/envelope";
export * from "../../../../src/core/view/protocol/trajectory";
import { RolloutMethods } from "../../../../src/core/view/protocol/rollouts";
import { TokenMethods } from "../../../../src/core/view/protocol/tokens";
import { TrajectoryMethods } from "../../../../src/core/view/protocol/trajectory";

/** The methods the viewer asks for (see createApi): none of them needs the other apps' schemas, built with classic zod. */
export const VIEWER_METHODS = { ...TrajectoryMethods, ...TokenMethods, ...RolloutMethods };
