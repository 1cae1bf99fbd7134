import type { Readable } from "node:stream";

/**
 * Calls `onLine` for each line of a child's output (without its "\n" or "\r\n"), and for
 * the last unterminated line at the end. A plain splitter rather than node:readline,
 * whose terminal machinery cost the runner a good part of its CPU on a thousand
 * progress lines a second.
 */
export function onStreamLines(stream: Readable, onLine: (line: string) => void): void {
  let rest = "";
  stream.setEncoding("utf8");
  stream.on("data", (chunk: string) => {
    const text = rest + chunk;
    let at = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", at)) {
      onLine(text.slice(at, nl > at && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl));
      at = nl + 1;
    }
    rest = text.slice(at);
  });
  stream.on("end", () => {
    if (rest) onLine(rest);
    rest = "";
  });
}
