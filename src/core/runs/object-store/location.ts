/** A place in an S3-compatible store: `s3://bucket/prefix`. */
export interface S3Location {
  bucket: string;
  /** Key prefix without a leading or trailing slash; "" for the bucket's root. */
  prefix: string;
}

export function isS3Url(s: string): boolean {
  return s.startsWith("s3://");
}

/** Parses `s3://bucket[/prefix]`; a clear error for anything else. */
export function parseS3Url(url: string): S3Location {
  const m = /^s3:\/\/([^/]+)(?:\/(.*))?$/.exec(url);
  if (!m?.[1]) throw new Error(`${url}: not an s3://bucket/prefix URL`);
  const bucket = m[1];
  // S3's bucket naming rules (3-63 of lowercase letters, digits, dots and hyphens): a typo is caught before any request.
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket))
    throw new Error(`${url}: bucket "${bucket}" is not a valid bucket name (3-63 lowercase letters, digits, dots, hyphens)`);
  const prefix = (m[2] ?? "").replace(/^\/+|\/+$/g, "");
  if (prefix.split("/").some((p) => p === "." || p === "..")) throw new Error(`${url}: the prefix may not hold "." or ".." segments`);
  return { bucket, prefix };
}

/** The key of `rel` (a path with / separators) under `prefix`. */
export function keyUnder(prefix: string, rel: string): string {
  return prefix ? `${prefix}/${rel}` : rel;
}

export function formatS3Url(loc: S3Location): string {
  return `s3://${loc.bucket}${loc.prefix ? `/${loc.prefix}` : ""}`;
}
