/**
 * Logprobs with the values a vLLM sampler produces, for benchmarks and codec tests: a model's bf16
 * logits, log_softmax computed in float32 (x − max − log Σ exp(x − max)), one token sampled from it at
 * temperature 1. About half the sampled tokens are near-certain (logprob near 0), the rest spread
 * over a long tail; every value is a float32 whose mantissa carries the rounding of that arithmetic,
 * as real ones do. A made-up periodic logprob would compress to nothing and flatter any codec.
 * Seeded: the same seed gives the same values.
 */
export function sampledLogprobs(count: number, seed = 1): number[] {
  let s = seed >>> 0 || 1;
  const rnd = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return ((s >>> 8) & 0xffffff) / 0x1000000;
  };
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  const bf16 = (x: number) => {
    f32[0] = x;
    u32[0] = ((u32[0] as number) + 0x8000) & 0xffff0000;
    return f32[0] as number;
  };
  const fr = Math.fround;
  const out: number[] = [];
  const logits = new Array<number>(32);
  for (let n = 0; n < count; n++) {
    const top = 15 + rnd() * 20;
    // A confident position: the runner-up is far below; otherwise a few candidates compete.
    let cur = top - (rnd() < 0.55 ? 6 + rnd() * 10 : rnd() * 5);
    logits[0] = bf16(top);
    for (let i = 1; i < logits.length; i++) {
      logits[i] = bf16(cur);
      cur -= rnd() * 1.4;
    }
    const max = logits[0] as number;
    let sum = 0;
    for (const x of logits) sum = fr(sum + fr(Math.exp(fr(x - max))));
    const logSum = fr(Math.log(sum));
    let u = rnd() * sum;
    let pick = 0;
    while (pick < logits.length - 1 && u > Math.exp((logits[pick] as number) - max)) {
      u -= Math.exp((logits[pick] as number) - max);
      pick++;
    }
    out.push(fr(fr((logits[pick] as number) - max) - logSum));
  }
  return out;
}
