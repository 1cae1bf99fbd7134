export { renderPage, nonce, type PageOptions } from "./page";
export * from "./protocol/envelope";
export * from "./protocol/methods";
export { findAssetsDir } from "./server/assets";
export { startViewServer, targetFor, type RunningViewServer, type ViewTarget } from "./server/http-server";
export { TrajectoryIndex } from "./server/trajectory-index";
export { ViewRequestError, ViewService } from "./server/view-service";
