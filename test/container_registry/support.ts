import { worker } from "../helpers/client";

export const BASE = "http://edgeforge.test";

export const basic = (token: string, login = "user") => ({ Authorization: `Basic ${btoa(`${login}:${token}`)}` });

export async function digestOf(bytes: Uint8Array | string): Promise<string> {
  const data = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  const hash = await crypto.subtle.digest("SHA-256", data);
  return `sha256:${[...new Uint8Array(hash)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export function call(method: string, path: string, headers: Record<string, string> = {}, body?: BodyInit) {
  return worker.fetch(new Request(`${BASE}${path}`, { method, headers, body }));
}

/** A registry token for `scopes` (`repository:<path>:pull,push`), as Docker gets one from `/jwt/auth`. */
export async function registryToken(credentials: Record<string, string>, ...scopes: string[]): Promise<string> {
  const query = new URLSearchParams([["service", "container_registry"], ...scopes.map((s): [string, string] => ["scope", s])]);
  const res = await call("GET", `/jwt/auth?${query}`, credentials);
  if (res.status !== 200) throw new Error(`jwt/auth ${res.status} ${await res.text()}`);
  return ((await res.json()) as { token: string }).token;
}

/** The access claims of a token (its payload, unverified). */
export function accessOf(token: string): { type: string; name: string; actions: string[] }[] {
  const payload = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
  return JSON.parse(atob(payload)).access;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** Pushes a blob monolithically (`POST …/blobs/uploads/?digest=`). */
export async function pushBlob(image: string, token: string, content: string): Promise<string> {
  const digest = await digestOf(content);
  const res = await call("POST", `/v2/${image}/blobs/uploads/?digest=${digest}`, bearer(token), content);
  if (res.status !== 201) throw new Error(`push blob ${res.status} ${await res.text()}`);
  return digest;
}

/** A one-layer OCI image: config, layer and manifest pushed; returns the manifest's digest. */
export async function pushImage(image: string, token: string, tag: string, layerText = "layer") {
  const config = JSON.stringify({ architecture: "amd64", os: "linux", rootfs: { type: "layers", diff_ids: [] } });
  const configDigest = await pushBlob(image, token, config);
  const layerDigest = await pushBlob(image, token, layerText);
  const manifest = JSON.stringify({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: configDigest, size: config.length },
    layers: [{ mediaType: "application/vnd.oci.image.layer.v1.tar", digest: layerDigest, size: layerText.length }],
  });
  const res = await call("PUT", `/v2/${image}/manifests/${tag}`, { ...bearer(token), "Content-Type": "application/vnd.oci.image.manifest.v1+json" }, manifest);
  if (res.status !== 201) throw new Error(`push manifest ${res.status} ${await res.text()}`);
  return { manifest, digest: await digestOf(manifest), configDigest, layerDigest };
}
