// GET /projects/:id/repository/commits/:sha/signature over commits git signed (fixtures made with
// `git commit -S`: a PGP signature by an ed25519 key, key id C8971369419999F3, and an SSH signature),
// pushed through receive-pack so that their objects are git's own bytes.
import { describe, expect, it } from "vitest";
import { gpgKeys } from "../../db/schema";
import { PackWriter } from "../../functions/shared/git/pack/pack";
import { FLUSH, pkt } from "../../functions/shared/git/pack/pktline";
import { BASE, statusAndBody, worker } from "../helpers/client";
import { hidesPrivateProject } from "../helpers/shared";
import { world, type TestProject, type TestUser } from "../helpers/world";
import { commitSignature, pgpIssuer } from "../../functions/commits/signature";
import { decodeCommit, deflate, TYPE_CODE } from "../../functions/shared/git/pure/objects";

function fromBase64Text(text: string): Uint8Array {
  const binary = atob(text);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

const PGP_COMMIT = "6647f3c30bd0cd0e0a3ce1ccb16fa99ca9458716";
const PGP_BODY =
  "dHJlZSA0YjgyNWRjNjQyY2I2ZWI5YTA2MGU1NGJmOGQ2OTI4OGZiZWU0OTA0CmF1dGhvciBTaWduZXIgPHNpZ25lckBleGFtcGxlLmNvbT4gMTc5NTY5MTU1OSArMDAwMApjb21taXR0ZXIgU2lnbmVyIDxzaWduZXJAZXhhbXBsZS5jb20+IDE3OTU2OTE1NTkgKzAwMDAKZ3Bnc2lnIC0tLS0tQkVHSU4gUEdQIFNJR05BVFVSRS0tLS0tCiAKIGlJZ0VBQllJQURFV0lRUTVEc2pqOHA0TTViV1VsQmZJbHhOcFFabVo4d1VDYXdnVUp4TWNjMmxuYm1WeVFHVjQKIFlXMXdiR1V1WTI5dEFBb0pFTWlYRTJsQm1abnpsZk1BLzBVVjZ0ZlFXZDJTVWdTZ21PYUdpZnY4aEdJeWxnRXQKIFN4N0svZ0RkREordUFQaVVRbUJUbmJBbWdzZ0crQ205aVV2dXEyQzFQY2lFdmc1OGthTXJTRjhKCiA9VCtSOAogLS0tLS1FTkQgUEdQIFNJR05BVFVSRS0tLS0tCgpzaWduZWQK";
const SSH_COMMIT = "0c297f9785feaba950a80b1674c389c255ed39f7";
const SSH_BODY =
  "dHJlZSA0YjgyNWRjNjQyY2I2ZWI5YTA2MGU1NGJmOGQ2OTI4OGZiZWU0OTA0CnBhcmVudCA2NjQ3ZjNjMzBiZDBjZDBlMGEzY2UxY2NiMTZmYTk5Y2E5NDU4NzE2CmF1dGhvciBTaWduZXIgPHNpZ25lckBleGFtcGxlLmNvbT4gMTc5NTY5MTU2MyArMDAwMApjb21taXR0ZXIgU2lnbmVyIDxzaWduZXJAZXhhbXBsZS5jb20+IDE3OTU2OTE1NjMgKzAwMDAKZ3Bnc2lnIC0tLS0tQkVHSU4gU1NIIFNJR05BVFVSRS0tLS0tCiBVMU5JVTBsSEFBQUFBUUFBQURNQUFBQUxjM05vTFdWa01qVTFNVGtBQUFBZzVpdjBiNmdJOUJYVStHOEM3ZDVnOHlqZzZlCiBlRlpNd25xUDVFM2dIblZpMEFBQUFEWjJsMEFBQUFBQUFBQUFaemFHRTFNVElBQUFCVEFBQUFDM056YUMxbFpESTFOVEU1CiBBQUFBUUJpZkdJblUxUWNGN1hqeVBuVEtBMkdmckhDOFZOanVXRHJtSWFzWXg3Q1hobEFvREd4clBoVHJ1L3dUUTg1bTdXCiAva2VXa3lRbDZNcCtiZktIN21RUU09CiAtLS0tLUVORCBTU0ggU0lHTkFUVVJFLS0tLS0KCnNzaCBzaWduZWQK";

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** Pushes the two signed commits (and the empty tree) as `main` of an empty project. */
async function pushSigned(owner: TestUser, project: TestProject) {
  const writer = new PackWriter();
  const objects = [
    { type: TYPE_CODE.tree, body: new Uint8Array(0) },
    { type: TYPE_CODE.commit, body: fromBase64Text(PGP_BODY) },
    { type: TYPE_CODE.commit, body: fromBase64Text(SSH_BODY) },
  ];
  const pack = concat([writer.header(objects.length), ...objects.map((o) => writer.entry(o.type, o.body.length, deflate(o.body))), writer.trailer()]);
  const res = await worker.fetch(
    new Request(`${BASE}/${project.fullPath}.git/git-receive-pack`, {
      method: "POST",
      headers: { Authorization: `Basic ${btoa(`x:${owner.token}`)}` },
      body: concat([pkt(`${"0".repeat(40)} ${SSH_COMMIT} refs/heads/main\0report-status\n`), FLUSH, pack]),
    }),
  );
  expect(new TextDecoder().decode(await res.arrayBuffer())).toContain("ok refs/heads/main");
}

const path = (project: { id: number }, sha: string) => `/projects/${project.id}/repository/commits/${sha}/signature`;

describe("GET /projects/:id/repository/commits/:sha/signature", () => {
  it("reads the signature type and a PGP signature's issuer from the commit object", () => {
    const pgp = decodeCommit(fromBase64Text(PGP_BODY));
    expect(commitSignature(pgp.extraHeaders)).toEqual({ type: "PGP", keyid: "C8971369419999F3" });
    expect(commitSignature(decodeCommit(fromBase64Text(SSH_BODY)).extraHeaders)).toEqual({ type: "SSH", keyid: null });
    expect(commitSignature([])).toBeNull();
    expect(pgpIssuer("-----BEGIN PGP SIGNATURE-----\n\n!!!!\n-----END PGP SIGNATURE-----")).toBeNull();
  });

  it("answers unknown_key for a PGP signature no key of the instance issued, unverified once the key is known; 404 for SSH and unsigned commits", async () => {
    const w = await world();
    const owner = await w.user();
    const project = await w.project({ owner });
    await pushSigned(owner, project);
    const api = w.as(owner);
    expect(await statusAndBody(await api.get(path(project, PGP_COMMIT)))).toEqual([
      200,
      {
        signature_type: "PGP",
        verification_status: "unknown_key",
        gpg_key_id: null,
        gpg_key_primary_keyid: "C8971369419999F3",
        gpg_key_user_name: null,
        gpg_key_user_email: null,
        gpg_key_subkey_id: null,
        commit_source: "gitaly",
      },
    ]);
    // GitLab 15.4 reads no SSH signatures (15.7 does): as if unsigned.
    expect(await statusAndBody(await api.get(path(project, "main")))).toEqual([404, { message: "404 Signature Not Found" }]);

    const [key] = await w.db((db) =>
      db.insert(gpgKeys).values({ userId: owner.id, key: `fixture ${project.id}`, fingerprint: `FP${project.id}`, primaryKeyid: "C8971369419999F3" }).returning(),
    );
    try {
      expect(await statusAndBody(await api.get(path(project, PGP_COMMIT.slice(0, 8))))).toMatchObject([
        200,
        { signature_type: "PGP", verification_status: "unverified", gpg_key_id: key.id, gpg_key_primary_keyid: "C8971369419999F3" },
      ]);
    } finally {
      const { eq } = await import("drizzle-orm");
      await w.db((db) => db.delete(gpgKeys).where(eq(gpgKeys.id, key.id)));
    }

    // An unsigned commit, and a commit that does not exist.
    const unsigned = await api.post(`/projects/${project.id}/repository/commits`, {
      json: { branch: "main", commit_message: "unsigned", actions: [{ action: "create", file_path: "a.txt", content: "a" }] },
    });
    const { id } = (await unsigned.json()) as { id: string };
    expect(await statusAndBody(await api.get(path(project, id)))).toEqual([404, { message: "404 Signature Not Found" }]);
    expect(await statusAndBody(await api.get(path(project, "f".repeat(40))))).toEqual([404, { message: "404 Commit Not Found" }]);
  });

  hidesPrivateProject((w, project) => w.as(w.stranger).get(path(project, "main")));
});
