/**
 * The trajectory viewer's messages. The schemas live in core (src/core/view/protocol)
 * because the host parses them too; this file is the app's one import point for them.
 */
export { FromApp, FromHost, InitContext } from "../../../../src/core/view/protocol/envelope";
export * from "../../../../src/core/view/protocol/trajectory";
export { VIEWER_METHODS } from "../../../../src/core/view/protocol/viewer-methods";
