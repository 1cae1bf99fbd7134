import type http from "node:http";
import { Transform, type TransformCallback } from "node:stream";
import Docker from "dockerode";
import type { Health, JobEvent, JobRecord } from "../api";
import { BundleError } from "../bundle/bundle";
import { queryGpus } from "../jobs/gpus";
import { headerValue, HttpError, sendJson } from "./http-reply";
import type { JobManager } from "../jobs/jobs";
import { eventJson } from "../jobs/journal";
import type { runnerMetrics } from "./metrics";
import { runnerStatus } from "./runner-status";
import { streamRunFolder } from "./run-stream";
import { withDeadline } from "../../util/deadline";

/** What every handler may use: the job manager, the limits, the metrics. */
export interface RunnerApi {
  jobs: JobManager;
  version: string;
  maxUpload: number;
  metrics: ReturnType<typeof runnerMetrics>;
}

/** One request on its way to a handler. */
export interface ApiRequest {
  api: RunnerApi;
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
}

/** Counts bytes through and fails the stream past the limit (uploads without Content-Length). */
class SizeLimit extends Transform {
  private seen = 0;
  constructor(private readonly max: number) {
    super();
  }
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.seen += chunk.length;
    if (this.seen > this.max) cb(new BundleError(`upload larger than ${this.max} bytes`, 413));
    else cb(null, chunk);
  }
}

/** `GET /metrics`: Prometheus text. */
export async function sendMetrics({ api, res }: ApiRequest): Promise<void> {
  const m = await api.metrics.render();
  res.writeHead(200, { "Content-Type": m.contentType });
  res.end(m.text);
}

/** `GET /v1/health`. */
export async function sendHealth({ api, res }: ApiRequest): Promise<void> {
  const [docker, gpu] = await Promise.all([dockerStatus(), queryGpus()]);
  const health: Health = {
    ok: true,
    version: api.version,
    docker,
    gpus: gpu.gpus,
    ...(gpu.error ? { gpu_error: gpu.error } : {}),
    capacity: { concurrent_jobs: api.jobs.capacity, running: api.jobs.runningCount() },
    queue: api.jobs.queued(),
    executors: api.jobs.executorKinds(),
  };
  sendJson(res, 200, health);
}

/** `GET /v1/status`. */
export async function sendStatus({ api, res }: ApiRequest): Promise<void> {
  sendJson(res, 200, await runnerStatus(api.version, api.jobs));
}

/** `POST /v1/jobs`: an uploaded bundle becomes a job (once per Idempotency-Key). */
export async function submitJob({ api, req, res }: ApiRequest): Promise<void> {
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  // Refused before a byte is read or written.
  if (Number.isFinite(declared) && declared > api.maxUpload)
    throw new BundleError(`upload of ${declared} bytes is larger than the limit of ${api.maxUpload}`, 413);
  const key = headerValue(req.headers["idempotency-key"]);
  if (key !== undefined && !/^[A-Za-z0-9_.:-]{1,200}$/.test(key))
    throw new HttpError(400, "Idempotency-Key: 1–200 characters of [A-Za-z0-9_.:-]", "Idempotency-Key");
  // The idle bound is for the upload: once it is in, validating it may take longer than a pause may.
  req.once("end", () => res.setTimeout(0));
  const limited = req.pipe(new SizeLimit(api.maxUpload));
  req.on("error", (e) => limited.destroy(e));
  const { job, created } = await api.jobs.submit(limited, key);
  sendJson(res, created ? 201 : 200, job, { Location: `/v1/jobs/${job.id}` });
}

/** `POST /v1/jobs/:id/resume`. */
export function resumeJob({ api, req, res }: ApiRequest, job: JobRecord): void {
  req.resume();
  sendJson(res, 202, api.jobs.resume(job.id));
}

/** `GET /v1/jobs/:id/run`: the run folder as a tar; with follow=1 it grows with the run and ends with the job (run-stream.ts). */
export function sendRunTar({ api, res, url }: ApiRequest, job: JobRecord): void {
  const follow = url.searchParams.get("follow") === "1";
  const { stream, close } = streamRunFolder(api.jobs, job.id, job.run_id, { follow });
  // With follow the state header is the state at the start; the job's end ends the tar.
  // A followed pull is quiet while no rollout ends: its connection is not idle.
  if (follow) res.setTimeout(0);
  res.writeHead(200, { "Content-Type": "application/x-tar", "X-Rlenv-Run-Id": job.run_id, "X-Rlenv-Job-State": job.state });
  res.on("close", close);
  stream.pipe(res);
}

/** `GET /v1/jobs/:id/events`: server-sent events from Last-Event-ID (or ?after=) on, then live. */
export function streamEvents({ api, req, res, url }: ApiRequest, job: JobRecord): void {
  const id = job.id;
  const lastId = Number(headerValue(req.headers["last-event-id"]) ?? url.searchParams.get("after") ?? 0) || 0;
  // Pinged every 15 s, but a client that reads nothing for a while must not lose its stream.
  res.setTimeout(0);
  res.writeHead(200, {
    "Content-Type": "text/event-stream",
    "Cache-Control": "no-cache",
    Connection: "keep-alive",
    "X-Accel-Buffering": "no",
  });
  res.flushHeaders();
  let sent = lastId;
  // Events of one tick (a batch of rollout ends) leave as one write, one HTTP chunk.
  let queued: string[] = [];
  const send = () => {
    if (queued.length > 0 && !res.destroyed) res.write(queued.join(""));
    queued = [];
  };
  const write = (ev: JobEvent) => {
    if (ev.id <= sent) return;
    sent = ev.id;
    if (queued.length === 0) process.nextTick(send);
    queued.push(`id: ${ev.id}\nevent: ${ev.type}\ndata: ${eventJson(ev)}\n\n`);
  };
  // Subscribe first, then replay from the journal: nothing falls between the two, and
  // `write` drops what was already sent.
  const buffered: JobEvent[] = [];
  let replaying = true;
  const onEvent = (jobId: string, ev: JobEvent) => {
    if (jobId !== id) return;
    if (replaying) buffered.push(ev);
    else write(ev);
  };
  api.jobs.on("event", onEvent);
  for (const ev of api.jobs.eventsAfter(id, lastId)) write(ev);
  replaying = false;
  for (const ev of buffered) write(ev);
  const ping = setInterval(() => res.write(": ping\n\n"), 15_000);
  req.on("close", () => {
    clearInterval(ping);
    api.jobs.off("event", onEvent);
  });
}

async function dockerStatus(): Promise<Health["docker"]> {
  try {
    const v = await withDeadline(new Docker().version(), 3000);
    if (!v.ok) return { available: false, detail: "no answer in 3 s" };
    return { available: true, detail: `Docker ${v.value.Version}` };
  } catch (e) {
    return { available: false, detail: (e as Error).message };
  }
}
