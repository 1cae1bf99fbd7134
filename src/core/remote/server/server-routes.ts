import type http from "node:http";
import type { JobRecord } from "../api";
import { HttpError, sendJson } from "./http-reply";
import {
  type ApiRequest,
  type RunnerApi,
  resumeJob,
  sendHealth,
  sendMetrics,
  sendRunTar,
  sendStatus,
  streamEvents,
  submitJob,
} from "./server-handlers";
import { bearerMatches } from "./token";

type Handler = (r: ApiRequest) => Promise<void> | void;
type JobHandler = (r: ApiRequest, job: JobRecord) => Promise<void> | void;

/** `/v1/<name>`, by "METHOD name". */
const RUNNER_ROUTES = new Map<string, Handler>([
  ["GET health", sendHealth],
  ["GET status", sendStatus],
]);

/** `/v1/jobs`, by method. */
const JOBS_ROUTES = new Map<string, Handler>([
  ["GET", ({ api, res }) => sendJson(res, 200, { jobs: api.jobs.list() })],
  ["POST", submitJob],
]);

/** `/v1/jobs/:id[/<sub>]`, by "METHOD sub" (sub empty for the job itself). */
const JOB_ROUTES = new Map<string, JobHandler>([
  ["GET ", ({ res }, job) => sendJson(res, 200, job)],
  ["DELETE ", async ({ api, res }, job) => sendJson(res, 200, await api.jobs.cancel(job.id))],
  ["GET events", streamEvents],
  ["POST resume", resumeJob],
  ["GET run", sendRunTar],
]);

/** The runner's HTTP API (see api.ts): the bearer token on every route, then the route tables. */
export async function routeRequest(api: RunnerApi, token: string, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const url = new URL(req.url ?? "/", "http://runner");
  if (!bearerMatches(req.headers.authorization, token)) {
    req.resume();
    res.setHeader("WWW-Authenticate", 'Bearer realm="rlenv-runner"');
    throw new HttpError(401, req.headers.authorization ? "wrong token" : "missing bearer token (Authorization: Bearer …)");
  }
  const r: ApiRequest = { api, req, res, url };
  const method = req.method ?? "GET";
  if (method === "GET" && url.pathname === "/metrics") return sendMetrics(r);
  const noRoute = () => new HttpError(404, `no route ${method} ${url.pathname}`);
  const parts = url.pathname.split("/").filter(Boolean);
  if (parts[0] !== "v1") throw noRoute();
  const runnerRoute = parts.length === 2 ? RUNNER_ROUTES.get(`${method} ${parts[1]}`) : undefined;
  if (runnerRoute) return runnerRoute(r);
  if (parts[1] !== "jobs") throw noRoute();
  const id = parts[2];
  if (!id) {
    const jobsRoute = JOBS_ROUTES.get(method);
    if (!jobsRoute) throw new HttpError(405, `${method} not allowed on /v1/jobs`);
    return jobsRoute(r);
  }
  const job = api.jobs.get(id);
  if (!job) throw new HttpError(404, `no job ${id}`);
  const jobRoute = JOB_ROUTES.get(`${method} ${parts[3] ?? ""}`);
  if (!jobRoute) throw noRoute();
  return jobRoute(r, job);
}
