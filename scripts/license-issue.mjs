#!/usr/bin/env node
// Issues an Edgeforge license signed with Ed25519 (functions/license/format.ts). Usage:
//   npm run license:issue -- --generate-key                 prints a new key pair (keep the private key secret)
//   LICENSE_PRIVATE_KEY=<base64 pkcs8> npm run license:issue -- --plan ultimate --licensee "Acme" \
//     [--email ops@acme.test] [--company Acme] [--starts 2026-01-01] [--expires 2027-01-01] [--users 50] [--add-on GitLab_FileLocks=1]
// The instance verifies with LICENSE_PUBLIC_KEY (base64 of the raw 32-byte public key).
import { createPrivateKey, generateKeyPairSync, sign } from "node:crypto";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    "generate-key": { type: "boolean" },
    plan: { type: "string", default: "ultimate" },
    licensee: { type: "string", default: "Edgeforge user" },
    email: { type: "string" },
    company: { type: "string" },
    starts: { type: "string" },
    expires: { type: "string" },
    users: { type: "string" },
    "add-on": { type: "string", multiple: true },
  },
});

if (values["generate-key"]) {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const raw = publicKey.export({ type: "spki", format: "der" }).subarray(12);
  console.log(`LICENSE_PUBLIC_KEY=${raw.toString("base64")}`);
  console.log(`LICENSE_PRIVATE_KEY=${privateKey.export({ type: "pkcs8", format: "der" }).toString("base64")}`);
  process.exit(0);
}

const privateKeyText = process.env.LICENSE_PRIVATE_KEY;
if (!privateKeyText) {
  console.error("LICENSE_PRIVATE_KEY (base64 pkcs8 DER, from --generate-key) is required");
  process.exit(2);
}
const key = createPrivateKey({ key: Buffer.from(privateKeyText, "base64"), format: "der", type: "pkcs8" });
const licensee = { Name: values.licensee };
if (values.email) licensee.Email = values.email;
if (values.company) licensee.Company = values.company;
const addOns = Object.fromEntries((values["add-on"] ?? []).map((pair) => {
  const [name, count] = pair.split("=");
  return [name, Number(count ?? 1)];
}));
const data = JSON.stringify({
  licensee,
  plan: values.plan,
  starts_at: values.starts ?? new Date().toISOString().slice(0, 10),
  expires_at: values.expires ?? null,
  user_limit: values.users ? Number(values.users) : null,
  add_ons: addOns,
});
const signature = sign(null, Buffer.from(data), key).toString("base64");
console.log(Buffer.from(JSON.stringify({ data, signature })).toString("base64"));
