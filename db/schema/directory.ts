// Directory links of groups: LDAP group links (ee/app/models/ldap_group_link.rb), which the LDAP group
// sync turns into memberships, and SAML group links (ee/app/models/saml_group_link.rb), which give
// users provisioned with a SAML identity their access (docs/directory_and_imports.md).
import { index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { sql } from "drizzle-orm";
import { createdAt, id, updatedAt } from "./columns";
import { namespaces } from "./namespaces";

/** `ldap_group_links`: a directory group (`cn`) or a user filter (`filter`) of one LDAP provider, with the access it grants. */
export const ldapGroupLinks = pgTable(
  "ldap_group_links",
  {
    id: id(),
    groupId: integer().notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    cn: text(),
    filter: text(),
    groupAccess: integer().notNull(),
    provider: text().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    // LdapGroupLink's `validates :cn, uniqueness: { scope: [:group_id, :provider] }` (and the same for filter).
    uniqueIndex("index_ldap_group_links_on_group_provider_cn").on(t.groupId, t.provider, t.cn).where(sql`${t.cn} IS NOT NULL`),
    uniqueIndex("index_ldap_group_links_on_group_provider_filter").on(t.groupId, t.provider, t.filter).where(sql`${t.filter} IS NOT NULL`),
  ],
);

/** `saml_group_links`: a SAML group name and the access its members get in the group. */
export const samlGroupLinks = pgTable(
  "saml_group_links",
  {
    id: id(),
    groupId: integer().notNull().references(() => namespaces.id, { onDelete: "cascade" }),
    samlGroupName: text().notNull(),
    accessLevel: integer().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("index_saml_group_links_on_group_id_and_saml_group_name").on(t.groupId, t.samlGroupName),
    index("index_saml_group_links_on_saml_group_name").on(t.samlGroupName),
  ],
);

export type LdapGroupLink = typeof ldapGroupLinks.$inferSelect;
export type SamlGroupLink = typeof samlGroupLinks.$inferSelect;
