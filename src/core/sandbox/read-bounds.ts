/**
 * How much of a sandbox's workdir the host reads at once (the diff after every command, the
 * files a verifier reads): bounded in files and bytes, since the model decides how much is
 * there. One bash call that left 4.5 GB of files took rlenv to 8 GB of memory reading them all;
 * 100k files made every later call read 100k. Past a bound a read stops and says so: a file too
 * large reads as a placeholder text naming its size, and a tree cut short gets one more entry,
 * CUT_PATH, saying what was left out.
 */

/** Files of a workdir the host reads for one diff; the rest is counted, not read. */
export const TREE_FILES = 20_000;
/** Bytes of a workdir the host reads for one diff; files past them read as placeholders. */
export const TREE_BYTES = 64 * 1024 * 1024;
/** The largest single file the host reads into a diff; a larger one reads as a placeholder. */
export const FILE_BYTES = 8 * 1024 * 1024;
/** Bytes one readFiles call reads in all (a verifier's reports, a scene file); past them a file is cut. */
export const READ_BYTES = 256 * 1024 * 1024;

/** The path of the entry that says a tree was cut short (shown as an added file in the diff). */
export const CUT_PATH = "[rlenv: workdir read cut short]";

/** What stands in for a file the host did not read (too large, or past the tree's byte bound). */
export function unreadFile(size: number, why: string): Buffer {
  return Buffer.from(`[rlenv: a file of ${size} bytes, not read: ${why}]\n`);
}

const UNREAD = /^\[rlenv: a file of (\d+) bytes, not read: /;

/** The size a stand-in names, or null when the buffer is a file's own bytes. */
export function unreadSize(b: Buffer): number | null {
  if (b.length > 300) return null;
  const m = UNREAD.exec(b.toString());
  return m ? Number(m[1]) : null;
}

/** Counts one tree read against the bounds. */
export class TreeBudget {
  files = 0;
  bytes = 0;
  /** Files seen past the file bound (listed, not read). */
  skipped = 0;

  /** @param fileBytes the largest file read; @param treeBytes the bytes read in all (a readFiles call: READ_BYTES for both). */
  constructor(
    private readonly fileBytes = FILE_BYTES,
    private readonly treeBytes = TREE_BYTES,
  ) {}

  /** Whether another file may be taken at all (else count it as skipped). */
  takeFile(): boolean {
    if (this.files >= TREE_FILES) {
      this.skipped++;
      return false;
    }
    this.files++;
    return true;
  }

  /** Why a file of `size` bytes is not read, or null when it may be (its bytes then counted). */
  refuse(size: number): string | null {
    if (size > this.fileBytes) return `larger than the host's ${this.fileBytes}-byte bound on one file`;
    if (this.bytes + size > this.treeBytes) return `past the host's ${this.treeBytes}-byte bound on one read of the workdir`;
    this.bytes += size;
    return null;
  }

  /** The text of the CUT_PATH entry, or null when nothing was left out. */
  get cut(): string | null {
    return this.skipped > 0 ? `the workdir holds more than ${TREE_FILES} files: the rest were not read (nor shown in this diff)\n` : null;
  }
}
