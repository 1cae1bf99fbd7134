/** Which shard's copy of a rollout the merged run keeps. */
export interface Claim {
  shard: string;
  member: string;
  file: string;
  at: number;
}

export interface Duplicate {
  rollout: string;
  kept: { shard: string; member: string };
  dropped: { shard: string; member: string };
}

/**
 * The merged run holds each rollout once: the first finished copy to arrive is kept, and
 * every later one (a stalled shard that came back, a cancel that did not get through) is
 * recorded as a duplicate, never merged.
 */
export class RolloutClaims {
  private readonly claims = new Map<string, Claim>();
  readonly duplicates: Duplicate[] = [];

  constructor(private readonly expected: ReadonlySet<string>) {}

  /** "kept": the first finished copy; "duplicate": one was kept before; "unexpected": not a rollout of this job. */
  offer(rollout: string, c: Claim): "kept" | "duplicate" | "unexpected" {
    if (!this.expected.has(rollout)) return "unexpected";
    const first = this.claims.get(rollout);
    if (first) {
      this.duplicates.push({ rollout, kept: { shard: first.shard, member: first.member }, dropped: { shard: c.shard, member: c.member } });
      return "duplicate";
    }
    this.claims.set(rollout, c);
    return "kept";
  }

  has(rollout: string): boolean {
    return this.claims.has(rollout);
  }

  get(rollout: string): Claim | undefined {
    return this.claims.get(rollout);
  }

  get size(): number {
    return this.claims.size;
  }

  get complete(): boolean {
    return this.claims.size === this.expected.size;
  }
}
