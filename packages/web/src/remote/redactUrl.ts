/**
 * Query parameters that carry a signature or a credential: AWS SigV4/SigV2 (`X-Amz-*`,
 * `Signature`, `AWSAccessKeyId`), GCS (`X-Goog-*`, `GoogleAccessId`), Azure SAS (`sig`, `se`,
 * `sp`, `sv`, `skoid`, …), CloudFront (`Policy`, `Key-Pair-Id`), and plain tokens.
 */
const CREDENTIAL_PARAM =
  /^(x-amz-.*|x-goog-.*|signature|awsaccesskeyid|googleaccessid|expires|sig|se|sp|sv|sr|st|skoid|sktid|policy|key-pair-id|token|access_token)$/i;

/**
 * `url` as it may appear in an error message, a log line or a stat: without its query
 * string when the query carries a signature or a credential (a presigned URL), else as it
 * is. Never throws.
 */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  let params: URLSearchParams;
  try {
    params = new URLSearchParams(url.slice(q + 1).split('#')[0]);
  } catch {
    return url.slice(0, q);
  }
  for (const key of params.keys()) if (CREDENTIAL_PARAM.test(key)) return url.slice(0, q);
  return url;
}
