import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after } from "node:test";
import Docker from "dockerode";
import { DockerSandboxProvider } from "../../../src/core/sandbox/docker/provider";
import { ISOLATION_MODES, isolationUnavailable } from "../../../src/core/sandbox/process/isolation";
import { ProcessSandboxProvider } from "../../../src/core/sandbox/process/provider";
import type { Sandbox, SandboxProvider, SandboxRequest } from "../../../src/core/model/sandbox";
import { missing } from "../../support/services";

/**
 * The backends every red-team probe runs on: docker (where the engine and the sandbox image
 * are up) and the process backend under each isolation mode that works on this machine (bwrap,
 * unshare). Each is started once per test file, on first use, and shut down after it.
 */
export interface Backend {
  name: "docker" | "bwrap" | "unshare";
  /** Why this backend cannot run here, or false. */
  skip: string | false;
  provider(): Promise<SandboxProvider>;
  image?: string;
}

const image = process.env.RLENV_TEST_IMAGE ?? "rlenv/python:bookworm";

function lazily(make: () => Promise<SandboxProvider>, cleanup: () => void = () => {}): () => Promise<SandboxProvider> {
  let p: Promise<SandboxProvider> | undefined;
  after(async () => {
    if (p) await (await p).shutdown();
    cleanup();
  });
  return () => {
    p ??= make();
    return p;
  };
}

export function backends(): Backend[] {
  const out: Backend[] = [
    {
      name: "docker",
      skip: missing("docker") || missing("image"),
      image,
      provider: lazily(() => DockerSandboxProvider.create({ docker: new Docker(), warm: 0 })),
    },
  ];
  for (const mode of ISOLATION_MODES) {
    const why = isolationUnavailable(mode);
    const base = mkdtempSync(path.join(os.tmpdir(), `rlenv-redteam-${mode}-`));
    out.push({
      name: mode,
      skip: why ? `${mode} does not work here: ${why}` : false,
      provider: lazily(
        async () => new ProcessSandboxProvider({ mode, baseDir: base }),
        () => rmSync(base, { recursive: true, force: true }),
      ),
    });
  }
  return out;
}

/** The request every probe's sandbox is made from (a code environment's defaults, smaller). */
export function redteamRequest(
  b: Backend,
  over: Partial<SandboxRequest> = {},
  limits: Partial<SandboxRequest["limits"]> = {},
): SandboxRequest {
  return {
    ...(b.image ? { image: b.image } : {}),
    workdir: "/workspace",
    user: "1000:1000",
    limits: { cpus: 1, memoryBytes: 256 << 20, pids: 128, outputBytes: 1_000_000, tmpfsBytes: 64 << 20, fileBytes: 1 << 30, ...limits },
    ...over,
  };
}

/** A sandbox from the backend, reset to `seed`, closed after `use`. */
export async function withSandbox<T>(
  b: Backend,
  use: (sb: Sandbox) => Promise<T>,
  req: SandboxRequest = redteamRequest(b),
  seed: Record<string, string> = {},
): Promise<T> {
  const sb = await (await b.provider()).acquire(req);
  try {
    await sb.reset(seed);
    return await use(sb);
  } finally {
    await sb.close();
  }
}

/**
 * A Python program (run as `python3 -c`) that prints, as one JSON list, every thread still
 * running in the sandbox besides itself and the sandbox's init: what a clean slate must leave.
 */
export const LIVE_THREADS = `
import json, os
me = os.getpid()
live = []
for n in os.listdir("/proc"):
    if not n.isdigit() or int(n) in (1, me):
        continue
    try:
        for t in os.listdir("/proc/%s/task" % n):
            st = open("/proc/%s/task/%s/stat" % (n, t)).read()
            state = st[st.rindex(")") + 2]
            if state not in "ZX":
                live.append("%s/%s %s" % (n, t, st[st.index("(") + 1:st.rindex(")")]))
    except OSError:
        pass
print(json.dumps(live))
`;
