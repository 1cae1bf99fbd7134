import type { SandboxRequest } from "../model/sandbox";

/** SIGXFSZ's number on Linux (x86 and arm alike). */
const SIGXFSZ = 25;

/**
 * Why a command ended as it did when it wrote past the sandbox's file size limit: it died of
 * SIGXFSZ (a shell in between makes that exit status 153). A model's doing, scored as any
 * failure; undefined for any other exit, and where no limit is set.
 */
export function fileSizeReason(limits: SandboxRequest["limits"], exitCode: number | null): string | undefined {
  if (limits.fileBytes === undefined || exitCode !== 128 + SIGXFSZ) return undefined;
  return `file size limit exceeded: a file reached the ${limits.fileBytes} byte limit (sandbox.limits.file_size)`;
}
