import { spawnSync } from "node:child_process";
import { existsSync, lstatSync } from "node:fs";

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

function probe(argv: string[]): boolean {
  const r = spawnSync(argv[0] ?? "", argv.slice(1), { stdio: "ignore", timeout: 5000 });
  return r.status === 0;
}

let cachedMode: Exclude<IsolationMode, "none"> | null | undefined;

/** The strongest isolation that works on this host, or null when none does. */
export function detectIsolation(): Exclude<IsolationMode, "none"> | null {
  if (cachedMode !== undefined) return cachedMode;
  const layout: ExecLayout = { hostWork: "/tmp", hostTmp: "/tmp", hostRoot: "", workdir: "/workspace", cwd: "/workspace", uid: 1000, gid: 1000 };
  if (probe(bwrapArgv(layout, ["/bin/true"]))) cachedMode = "bwrap";
  else if (process.getuid?.() === 0 && probe(["unshare", "--mount", "--pid", "--net", "--ipc", "--uts", "--fork", "--kill-child", "/bin/true"])) cachedMode = "unshare";
  else cachedMode = null;
  return cachedMode;
}

/** bwrap: every namespace, no capabilities, read-only host /usr, a private workdir and /tmp, a read-only root. */
export function bwrapArgv(l: ExecLayout, argv: string[]): string[] {
  const a = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--uid", String(l.uid), "--gid", String(l.gid)];
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

/**
 * unshare (root only): new mount/pid/net/ipc/uts namespaces; a shell script builds a private
 * read-only root on a tmpfs (bind mounts of /usr and the /etc files, the workdir and /tmp
 * read-write), chroots into it and drops to the sandbox user with no capabilities.
 */
export function unshareArgv(l: ExecLayout, argv: string[]): string[] {
  const script = [
    "set -e",
    'R=$1; W=$2; T=$3; WD=$4; CWD=$5; U=$6; G=$7; shift 7',
    'mount -t tmpfs -o size=4m,mode=755 rlenv-root "$R"',
    'mkdir -p "$R/usr" "$R/proc" "$R/dev" "$R/tmp" "$R/etc" "$R$WD"',
    'mount --rbind /usr "$R/usr"; mount -o remount,bind,ro "$R/usr"',
    `for d in ${TOP_DIRS.join(" ")}; do if [ -L "$d" ]; then ln -s "$(readlink "$d")" "$R$d"; elif [ -d "$d" ]; then mkdir -p "$R$d"; mount --rbind "$d" "$R$d"; mount -o remount,bind,ro "$R$d"; fi; done`,
    `for f in ${ETC_FILES.join(" ")}; do [ -e "$f" ] || continue; mkdir -p "$R$(dirname "$f")"; if [ -d "$f" ]; then mkdir -p "$R$f"; else : > "$R$f"; fi; mount --bind "$f" "$R$f"; mount -o remount,bind,ro "$R$f"; done`,
    'for n in null zero full random urandom tty; do : > "$R/dev/$n"; mount --bind "/dev/$n" "$R/dev/$n"; done',
    // A private devpts (not the host's ptys) so the sandbox shell can make its terminal.
    'mkdir -p "$R/dev/pts"; if mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$R/dev/pts"; then ln -s pts/ptmx "$R/dev/ptmx"; fi',
    'mount -t proc proc "$R/proc"',
    'mount --bind "$T" "$R/tmp"; mount --bind "$W" "$R$WD"',
    'mount -o remount,ro "$R"',
    // Not exec: this shell reports a signal death of the command as 128+n (unshare cannot re-raise SIGKILL).
    'chroot "$R" /usr/bin/setpriv --reuid="$U" --regid="$G" --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all -- /bin/sh -c \'cd "$1" && shift && exec "$@"\' sh "$CWD" "$@"',
  ].join("\n");
  return [
    "unshare", "--mount", "--pid", "--net", "--ipc", "--uts", "--fork", "--kill-child", "--mount-proc",
    "/bin/sh", "-c", script, "sh", l.hostRoot, l.hostWork, l.hostTmp, l.workdir, l.cwd, String(l.uid), String(l.gid), ...argv,
  ];
}

/** The full argv for one command under the given isolation. */
export function isolatedArgv(mode: IsolationMode, l: ExecLayout, argv: string[]): string[] {
  if (mode === "bwrap") return bwrapArgv(l, argv);
  if (mode === "unshare") return unshareArgv(l, argv);
  return argv;
}
