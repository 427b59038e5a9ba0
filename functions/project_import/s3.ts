/**
 * AWS Signature Version 4 for the two S3 requests of `POST /projects/remote-import-s3`: a HEAD signed in
 * the `Authorization` header (`Aws::S3::Object#exists?` and its content type and length), and a presigned
 * GET URL that the import job downloads (`presigned_url(:get, expires_in: 28.hours)`). WebCrypto only:
 * the two requests do not need an S3 client library.
 *
 * The endpoint is AWS's virtual-hosted form (`https://<bucket>.s3.<region>.amazonaws.com/<key>`), or
 * `IMPORT_S3_ENDPOINT` for an S3-compatible store, addressed path-style (`<endpoint>/<bucket>/<key>`).
 */
export type S3Object = { region: string; bucket: string; key: string; accessKeyId: string; secretAccessKey: string };

/** The presigned URL's lifetime (RemoteFileS3::URL_EXPIRATION: the import may take a day). */
export const URL_EXPIRATION_SECONDS = 28 * 3600;

const encoder = new TextEncoder();

/** RFC 3986 encoding as SigV4 wants it (`encodeURIComponent` leaves `!'()*` alone). */
const rfc3986 = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);

async function hmac(key: Uint8Array | string, data: string): Promise<Uint8Array> {
  const raw = typeof key === "string" ? encoder.encode(key) : key;
  const cryptoKey = await crypto.subtle.importKey("raw", raw as Uint8Array<ArrayBuffer>, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, encoder.encode(data)));
}

const hex = (bytes: Uint8Array) => [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
const sha256Hex = async (data: string) => hex(new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(data))));

/** The object's URL (without a query). */
export function objectUrl(o: S3Object, endpoint?: string): URL {
  const key = o.key.split("/").map(rfc3986).join("/");
  if (endpoint) return new URL(`${endpoint.replace(/\/+$/, "")}/${rfc3986(o.bucket)}/${key}`);
  return new URL(`https://${o.bucket}.s3.${o.region}.amazonaws.com/${key}`);
}

const amzDate = (now: Date) => now.toISOString().replace(/[:-]|\.\d{3}/g, "");

async function signature(o: S3Object, now: Date, canonicalRequest: string): Promise<string> {
  const date = amzDate(now).slice(0, 8);
  const scope = `${date}/${o.region}/s3/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate(now), scope, await sha256Hex(canonicalRequest)].join("\n");
  let key = await hmac(`AWS4${o.secretAccessKey}`, date);
  for (const part of [o.region, "s3", "aws4_request"]) key = await hmac(key, part);
  return hex(await hmac(key, toSign));
}

function canonicalQuery(params: Record<string, string>): string {
  return Object.keys(params)
    .sort()
    .map((k) => `${rfc3986(k)}=${rfc3986(params[k])}`)
    .join("&");
}

/** A HEAD request for the object, signed in the Authorization header. */
export async function signedHead(o: S3Object, now: Date, endpoint?: string): Promise<Request> {
  const url = objectUrl(o, endpoint);
  const date = amzDate(now);
  const payload = "UNSIGNED-PAYLOAD";
  const headers = { host: url.host, "x-amz-content-sha256": payload, "x-amz-date": date };
  const signed = Object.keys(headers).sort().join(";");
  const canonical = ["HEAD", url.pathname, "", ...Object.keys(headers).sort().map((k) => `${k}:${headers[k as keyof typeof headers]}`), "", signed, payload].join("\n");
  const credential = `${o.accessKeyId}/${date.slice(0, 8)}/${o.region}/s3/aws4_request`;
  const authorization = `AWS4-HMAC-SHA256 Credential=${credential}, SignedHeaders=${signed}, Signature=${await signature(o, now, canonical)}`;
  return new Request(url, { method: "HEAD", headers: { "x-amz-content-sha256": payload, "x-amz-date": date, authorization } });
}

/** A presigned GET URL, valid for URL_EXPIRATION_SECONDS. */
export async function presignedGet(o: S3Object, now: Date, endpoint?: string): Promise<string> {
  const url = objectUrl(o, endpoint);
  const date = amzDate(now);
  const query: Record<string, string> = {
    "X-Amz-Algorithm": "AWS4-HMAC-SHA256",
    "X-Amz-Credential": `${o.accessKeyId}/${date.slice(0, 8)}/${o.region}/s3/aws4_request`,
    "X-Amz-Date": date,
    "X-Amz-Expires": String(URL_EXPIRATION_SECONDS),
    "X-Amz-SignedHeaders": "host",
  };
  const canonical = ["GET", url.pathname, canonicalQuery(query), `host:${url.host}`, "", "host", "UNSIGNED-PAYLOAD"].join("\n");
  return `${url.origin}${url.pathname}?${canonicalQuery(query)}&X-Amz-Signature=${await signature(o, now, canonical)}`;
}
