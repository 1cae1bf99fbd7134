/**
 * Keeps the first `limit` bytes of a command's stdout and stderr together (in arrival
 * order), counts everything, and drops the rest so a runaway command cannot fill memory.
 */
export class OutputCollector {
  private readonly out: Buffer[] = [];
  private readonly err: Buffer[] = [];
  private kept = 0;
  total = 0;

  constructor(private readonly limit: number) {}

  push(stream: "stdout" | "stderr", chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.limit - this.kept;
    if (room <= 0) return;
    const piece = chunk.length <= room ? chunk : chunk.subarray(0, room);
    (stream === "stdout" ? this.out : this.err).push(piece);
    this.kept += piece.length;
  }

  get truncated(): { originalBytes: number } | undefined {
    return this.total > this.kept ? { originalBytes: this.total } : undefined;
  }

  /** Decoded text; a cut stream ends with a marker saying how much was dropped. */
  result(): CappedOutput {
    return formatOutput(Buffer.concat(this.out), Buffer.concat(this.err), this.total);
  }
}

export interface CappedOutput {
  stdout: string;
  stderr: string;
  truncated?: { originalBytes: number };
}

/** Output already cut to its cap (by us or the in-sandbox agent), decoded and marked when cut. */
export function formatOutput(out: Buffer, err: Buffer, total: number): CappedOutput {
  const stdout = out.toString("utf8");
  const stderr = err.toString("utf8");
  const kept = out.length + err.length;
  if (total <= kept) return { stdout, stderr };
  const marker = `\n[output truncated: kept ${kept} of ${total} bytes]\n`;
  return { stdout: stdout + marker, stderr, truncated: { originalBytes: total } };
}
