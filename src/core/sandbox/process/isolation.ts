import { spawnSync } from "node:child_process";
import { existsSync, lstatSync } from "node:fs";
import { shq } from "../../util/shell-quote";
import { hostIdentity } from "./host-identity";

/** How a process sandbox isolates commands: bubblewrap, util-linux unshare as root, or nothing (explicitly unsafe). */
export type IsolationMode = "bwrap" | "unshare" | "none";

/** Where one exec runs: host folders standing in for the workdir and /tmp, and the identity to run as. */
export interface ExecLayout {
  hostWork: string;
  hostTmp: string;
  /** A host folder the unshare mode mounts its private root on. */
  hostRoot: string;
  workdir: string;
  cwd: string;
  uid: number;
  gid: number;
  /** bwrap: the unprivileged host identity to start it as (root's sandboxes: see host-identity.ts); absent, the caller's. */
  host?: { uid: number; gid: number };
  /**
   * The command is the PID namespace's init (the sandbox's long-lived agent), as in a docker
   * container: the kernel then drops every signal the sandbox's own processes send it that it
   * has no handler for, SIGKILL included, so a model's `kill -9 -1` or `pkill python3` cannot
   * take the sandbox down (and have its own doing counted as an infrastructure fault).
   */
  asInit?: boolean;
}

/** Host paths a command needs read-only: the merged /usr, and the few /etc files programs read. */
const ETC_FILES = [
  "/etc/alternatives",
  "/etc/ld.so.cache",
  "/etc/ld.so.conf",
  "/etc/ld.so.conf.d",
  "/etc/localtime",
  "/etc/nsswitch.conf",
  "/etc/passwd",
  "/etc/group",
  "/etc/ssl/certs",
  "/etc/python3",
  "/etc/python3.11",
];
const TOP_DIRS = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/** Runs a probe command: null when it succeeds, else what went wrong (its stderr, or why it could not start). */
function probe(argv: string[]): string | null {
  const r = spawnSync(argv[0] ?? "", argv.slice(1), { stdio: ["ignore", "ignore", "pipe"], timeout: 5000, encoding: "utf8" });
  if (r.status === 0) return null;
  if (r.error) return (r.error as NodeJS.ErrnoException).code === "ENOENT" ? `${argv[0]} is not installed` : r.error.message;
  const err = (r.stderr ?? "").trim().split("\n")[0];
  return err || (r.signal ? `killed by ${r.signal}` : `exit ${r.status}`);
}

/** Whether a program of this name is on PATH. */
function onPath(name: string): boolean {
  return (process.env.PATH ?? "").split(":").some((d) => d !== "" && existsSync(`${d}/${name}`));
}

/** The modes that isolate, strongest first. */
export const ISOLATION_MODES = ["bwrap", "unshare"] as const;
export type IsolatingMode = (typeof ISOLATION_MODES)[number];

/** The environment variable that forces one isolation mode instead of the strongest that works. */
export const ISOLATION_ENV = "RLENV_ISOLATION";

const whyNot = new Map<IsolatingMode, string | null>();

/** Null when this mode isolates on this host, else why it cannot (checked once per mode and process). */
export function isolationUnavailable(mode: IsolatingMode): string | null {
  const known = whyNot.get(mode);
  if (known !== undefined) return known;
  let reason: string | null;
  if (mode === "bwrap") {
    const host = hostIdentity("bwrap", { uid: 1000, gid: 1000 });
    const layout: ExecLayout = {
      hostWork: "/tmp",
      hostTmp: "/tmp",
      hostRoot: "",
      workdir: "/workspace",
      cwd: "/workspace",
      uid: 1000,
      gid: 1000,
      ...(host ? { host } : {}),
    };
    // Asked of PATH first: root's probe starts setpriv, whose own failure would otherwise hide bwrap's absence.
    const err = onPath("bwrap") ? probe(bwrapArgv(layout, ["/bin/true"])) : "bwrap is not installed";
    reason =
      err && `bubblewrap cannot isolate here (${err}); install it with apt-get install bubblewrap, or allow unprivileged user namespaces`;
  } else if (process.getuid?.() !== 0) {
    reason = "unshare isolation needs root (it mounts a private root and drops to the sandbox user)";
  } else {
    const err = probe(["unshare", "--mount", "--pid", "--net", "--ipc", "--uts", "--fork", "--kill-child", "/bin/true"]);
    reason = err && `unshare cannot make namespaces here (${err})`;
  }
  whyNot.set(mode, reason);
  return reason;
}

/** The strongest isolation that works on this host, or null when none does (RLENV_ISOLATION aside). */
export function detectIsolation(): IsolatingMode | null {
  return ISOLATION_MODES.find((m) => isolationUnavailable(m) === null) ?? null;
}

/**
 * The mode the process backend uses: the one RLENV_ISOLATION forces (throwing, with the
 * reason, when it does not work here), else the strongest that works, else null.
 */
export function chooseIsolation(env: NodeJS.ProcessEnv = process.env): IsolatingMode | null {
  const forced = env[ISOLATION_ENV]?.trim();
  if (!forced || forced === "auto") return detectIsolation();
  if (!(ISOLATION_MODES as readonly string[]).includes(forced)) {
    throw new Error(`${ISOLATION_ENV}='${forced}' is not an isolation mode: use bwrap, unshare or auto (the strongest that works)`);
  }
  const mode = forced as IsolatingMode;
  const reason = isolationUnavailable(mode);
  if (reason) throw new Error(`${ISOLATION_ENV}=${mode} was asked for, but ${reason}`);
  return mode;
}

/** bwrap: every namespace, no capabilities, read-only host /usr, a private workdir and /tmp, a read-only root. */
export function bwrapArgv(l: ExecLayout, argv: string[]): string[] {
  // Dropped to the host identity before bwrap starts, so that its user namespace maps the sandbox user onto it, not onto root.
  const drop = l.host
    ? ["setpriv", `--reuid=${l.host.uid}`, `--regid=${l.host.gid}`, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--"]
    : [];
  const a = [
    ...drop,
    "bwrap",
    "--unshare-all",
    // No reaper of bwrap's own as PID 1: the command is init (it reaps what it orphans itself).
    ...(l.asInit ? ["--as-pid-1"] : []),
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--uid",
    String(l.uid),
    "--gid",
    String(l.gid),
  ];
  a.push("--hostname", "sandbox", "--ro-bind", "/usr", "/usr");
  for (const d of TOP_DIRS) {
    if (!existsSync(d)) continue;
    const st = lstatSync(d);
    if (st.isSymbolicLink()) a.push("--symlink", `usr${d}`, d);
    else a.push("--ro-bind", d, d);
  }
  for (const f of ETC_FILES) a.push("--ro-bind-try", f, f);
  a.push("--proc", "/proc", "--dev", "/dev", "--bind", l.hostTmp, "/tmp", "--bind", l.hostWork, l.workdir);
  a.push("--remount-ro", "/", "--chdir", l.cwd, "--", ...argv);
  return a;
}

/** Device nodes the sandbox gets in its /dev (the rest of the host's /dev stays out). */
const DEVICES = ["/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"];

/** What the unshare root is made of on this host: copied (links, /etc files, device nodes) and bind-mounted (real top folders). */
interface UnshareRootPlan {
  copies: string[];
  binds: string[];
}

let cachedPlan: UnshareRootPlan | undefined;

function unshareRootPlan(): UnshareRootPlan {
  if (cachedPlan) return cachedPlan;
  const copies: string[] = [];
  const binds: string[] = [];
  for (const d of TOP_DIRS) {
    const st = lstatIfAny(d);
    if (!st) continue;
    if (st.isSymbolicLink()) copies.push(d);
    else if (st.isDirectory()) binds.push(d);
  }
  for (const f of [...ETC_FILES, ...DEVICES]) if (lstatIfAny(f)) copies.push(f);
  cachedPlan = { copies, binds };
  return cachedPlan;
}

function lstatIfAny(p: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/**
 * unshare (root only): new mount/pid/net/ipc/uts namespaces; a shell script builds a private
 * read-only root on a tmpfs (a bind mount of /usr, copies of the few /etc files, the top-level
 * links and the device nodes, the workdir and /tmp read-write), chroots into it and drops to
 * the sandbox user with no capabilities. Every exec pays for this, so it is done in as few
 * processes as it can: one `cp` makes the copies, each bind mount sets read-only as it mounts.
 */
export function unshareArgv(l: ExecLayout, argv: string[]): string[] {
  const plan = unshareRootPlan();
  const script = [
    "set -e",
    "R=$1; W=$2; T=$3; WD=$4; CWD=$5; U=$6; G=$7; shift 7",
    'mount -t tmpfs -o size=8m,mode=755 rlenv-root "$R"',
    // Relative to / so that --parents rebuilds each path under the new root (cp -a copies links and device nodes as such).
    `cd / && cp -a --parents ${plan.copies.map((c) => shq(c.slice(1))).join(" ")} "$R"`,
    `mkdir -p "$R/usr" "$R/proc" "$R/dev/pts" "$R/tmp" "$R$WD"${plan.binds.map((d) => ` "$R"${shq(d)}`).join("")}`,
    'mount --rbind -o ro /usr "$R/usr"',
    ...plan.binds.map((d) => `mount --rbind -o ro ${shq(d)} "$R"${shq(d)}`),
    // A private devpts (not the host's ptys) so the sandbox shell can make its terminal.
    'if mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$R/dev/pts"; then ln -s pts/ptmx "$R/dev/ptmx"; fi',
    'mount -t proc proc "$R/proc"',
    // nosuid,nodev: nothing the sandbox (or anyone) leaves in its writable folders runs with another identity or reaches a device.
    'mount --bind -o nosuid,nodev "$T" "$R/tmp"; mount --bind -o nosuid,nodev "$W" "$R$WD"',
    'mount -o remount,ro "$R"',
    // Not exec: this shell reports a signal death of the command as 128+n (unshare cannot re-raise SIGKILL).
    // Exec for an init: the command takes this shell's place as PID 1.
    `${l.asInit ? "exec " : ""}chroot "$R" /usr/bin/setpriv --reuid="$U" --regid="$G" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- /bin/sh -c 'cd "$1" && shift && exec "$@"' sh "$CWD" "$@"`,
  ].join("\n");
  return [
    "unshare",
    "--mount",
    "--pid",
    "--net",
    "--ipc",
    "--uts",
    "--fork",
    "--kill-child",
    "--mount-proc",
    "/bin/sh",
    "-c",
    script,
    "sh",
    l.hostRoot,
    l.hostWork,
    l.hostTmp,
    l.workdir,
    l.cwd,
    String(l.uid),
    String(l.gid),
    ...argv,
  ];
}

/** The full argv for one command under the given isolation. */
export function isolatedArgv(mode: IsolationMode, l: ExecLayout, argv: string[]): string[] {
  if (mode === "bwrap") return bwrapArgv(l, argv);
  if (mode === "unshare") return unshareArgv(l, argv);
  return argv;
}
