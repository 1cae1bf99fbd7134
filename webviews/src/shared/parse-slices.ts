import type { ZodMiniType } from "zod/mini";

/** A slice's most time before the page is given back (a task over 50 ms is one a person feels). */
const SLICE_MS = 8;

/** Gives the page back: what follows runs in a later task (a message, which no timer clamping delays). */
export function yieldToPage(): Promise<void> {
  return new Promise((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port1.addEventListener(
      "message",
      () => {
        port1.close();
        resolve();
      },
      { once: true },
    );
    port1.start();
    port2.postMessage(null);
  });
}

/** `value` parsed with `schema`, or an error naming the reply (`what`) and the first problem's path (from `at`, where `value` lies in the reply). */
export function parseOrThrow<T>(schema: ZodMiniType<T>, value: unknown, what: string, at: readonly PropertyKey[] = []): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  throw new Error(`${what}: unexpected reply: ${[...at, ...(issue?.path ?? [])].map(String).join(".")}: ${issue?.message}`);
}

/**
 * Each of `items` parsed with `schema`, giving the page back between slices of about SLICE_MS: a
 * list of thousands of entries (a run's tasks, each with its pass@k for every k) parsed whole takes
 * the page's main thread for tens of milliseconds at once, its code still cold on a page's first
 * parse. The first bad entry stops it, named by `what` and its path in the reply (`at`, then its index).
 */
export async function parseInSlices<T>(
  schema: ZodMiniType<T>,
  items: readonly unknown[],
  what: string,
  at: readonly PropertyKey[],
): Promise<T[]> {
  const out: T[] = [];
  let start = performance.now();
  for (const [i, item] of items.entries()) {
    out.push(parseOrThrow(schema, item, what, [...at, i]));
    if (performance.now() - start < SLICE_MS) continue;
    await yieldToPage();
    start = performance.now();
  }
  return out;
}
