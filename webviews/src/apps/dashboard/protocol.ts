/**
 * The run dashboard's messages. The schemas live in core (src/core/view/protocol)
 * because the host parses them too; this file is the app's one import point for them.
 */
export { FromApp, FromHost, InitContext } from "../../../../src/core/view/protocol/envelope";
export * from "../../../../src/core/view/protocol/dashboard";
