import { S3Client, type S3ClientConfig } from "@aws-sdk/client-s3";

/**
 * An S3 client for any S3-compatible store (AWS S3, MinIO, Ceph RGW, R2, GCS's S3 API).
 * Credentials and region come from the SDK's standard chain (AWS_ACCESS_KEY_ID /
 * AWS_SECRET_ACCESS_KEY, AWS_PROFILE and ~/.aws/config and credentials, instance roles);
 * nothing of them is ever written into a run folder. The endpoint of a store other than
 * AWS comes from RLENV_S3_ENDPOINT (or the SDK's own AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL);
 * such stores are addressed path-style (bucket in the path) unless RLENV_S3_PATH_STYLE=0.
 */
export function s3ClientFromEnv(env: NodeJS.ProcessEnv = process.env): S3Client {
  // The SDK warns on every start under Node 20 (which rlenv supports) about its own future releases.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
  const endpoint = env.RLENV_S3_ENDPOINT || env.AWS_ENDPOINT_URL_S3 || env.AWS_ENDPOINT_URL;
  const config: S3ClientConfig = {
    region: env.AWS_REGION || env.AWS_DEFAULT_REGION || "us-east-1",
    // Checksums only where the API requires them: stores that do not know the SDK's
    // default CRC trailers (aws-chunked bodies) would otherwise keep them in the object.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    maxAttempts: 5,
  };
  if (endpoint) {
    config.endpoint = endpoint;
    config.forcePathStyle = env.RLENV_S3_PATH_STYLE !== "0";
  }
  return new S3Client(config);
}
