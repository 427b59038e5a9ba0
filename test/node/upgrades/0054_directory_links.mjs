// 0054 adds ldap_group_links, saml_group_links and `members.ldap`. A membership written before it is not
// the LDAP sync's (ldap = false), so a sync never removes it; the group takes links of both kinds.
import { insertProject } from "./base.mjs";

export async function fill(db) {
  const made = await insertProject(db, "directory-before-0054");
  await db.query(`INSERT INTO members (source_type, source_id, user_id, access_level) VALUES ('Namespace', $1, 1, 50)`, [made.groupId]);
  return made;
}

export async function check(api, { groupId }, assert, db) {
  const { rows } = await db.query(`SELECT ldap FROM members WHERE source_type = 'Namespace' AND source_id = $1`, [groupId]);
  assert.deepEqual(rows, [{ ldap: false }]);
  const none = await api("GET", `/groups/${groupId}/ldap_group_links`);
  assert.equal(none.status, 404);
  const link = await api("POST", `/groups/${groupId}/ldap_group_links`, { json: { cn: "developers", group_access: 30, provider: "ldapmain" } });
  assert.equal(link.status, 201, JSON.stringify(link.body));
  const saml = await api("POST", `/groups/${groupId}/saml_group_links`, { json: { saml_group_name: "devs", access_level: 30 } });
  assert.equal(saml.status, 201, JSON.stringify(saml.body));
  assert.deepEqual(saml.body, { name: "devs", access_level: 30 });
}
