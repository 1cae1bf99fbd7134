/**
 * How a shard's batch script starts `rlenv run` so that a cancel stops everything it started.
 *
 * A cancel signals the step's processes (SIGTERM), then kills them after KillWait
 * (SIGKILL), each time finding them by walking the process tree (proctrack/linuxproc) or
 * the cgroup. A shell that died of the SIGTERM would orphan whatever it had just forked
 * (a child between fork and exec is missed by the first walk), and an orphan is missed by
 * the second: it runs on past the cancel. So the shell notes the SIGTERM instead of dying,
 * starts nothing more once noted, and is still there, with its children, when the SIGKILL
 * comes.
 */

/** The script's first line after the shebang. */
export const NOTE_STOP = "trap 'stopped=1' TERM INT";

/** Lines that leave if a stop was noted (exit 143, as SIGTERM would). */
// biome-ignore lint/suspicious/noTemplateCurlyInString: a shell expansion, not a template
export const LEAVE_IF_STOPPED = '[ -z "${stopped:-}" ] || exit 143';

/** The last lines: `command` becomes the step's process itself (nothing to orphan). */
export function execLast(command: string): string[] {
  return [LEAVE_IF_STOPPED, `exec ${command}`];
}

/**
 * The last lines where the shell must outlive the command (an EXIT trap stops a policy
 * server): the command runs as the shell's child and the shell waits it out, through the
 * SIGTERM both receive, and exits with its status.
 */
export function runAndWait(command: string): string[] {
  return [LEAVE_IF_STOPPED, `${command} &`, "rl=$!", "while :; do wait $rl; st=$?; kill -0 $rl 2>/dev/null || break; done", "exit $st"];
}
