/**
 * One event of a Chrome trace (`browser.stopTracing()`'s `traceEvents`, the Trace Event Format),
 * the fields the page-open benches read: complete events ("X") with their wall and thread
 * durations, and the data Chromium attaches to script, frame and navigation events.
 */
export interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  /** Microseconds on the trace's clock. */
  ts: number;
  dur?: number;
  /** Thread (CPU) time of the event, microseconds. */
  tdur?: number;
  pid: number;
  tid: number;
  args?: { data?: { url?: string; frame?: string; functionName?: string; documentLoaderURL?: string } };
}
