/**
 * The integration kinds, by neutral slug, with GitLab's slug as an alias, and the
 * fields PUT requires and accepts (lib/api/helpers/integrations_helpers.rb). `secret` fields are
 * write-only (never returned), like GitLab's password fields. With the presenters because the integration
 * entities read it (a kind's title, which properties are shown), as GitLab's read `api_field_names`;
 * the integrations routes validate PUT against it.
 */
export type Field = { name: string; type: "string" | "boolean"; required?: true; secret?: true; values?: string[] };
export type Kind = { slug: string; alias: string | null; title: string; fields: Field[]; events: string[] };

const s = (name: string, extra: Partial<Field> = {}): Field => ({ name, type: "string", ...extra });
const b = (name: string): Field => ({ name, type: "boolean" });
const CHAT_EVENTS = ["push_events", "issues_events", "confidential_issues_events", "merge_requests_events", "tag_push_events", "note_events", "confidential_note_events", "pipeline_events", "wiki_page_events"];
const BRANCHES = ["all", "default", "protected", "default_and_protected"];
/** Slack and Mattermost (BaseChatNotification#default_fields and the per-event `*_channel` fields). */
const SLACK_FIELDS: Field[] = [
  s("webhook", { required: true, secret: true }),
  s("username"),
  s("channel"),
  b("notify_only_broken_pipelines"),
  s("branches_to_be_notified", { values: BRANCHES }),
  s("labels_to_be_notified"),
  s("labels_to_be_notified_behavior", { values: ["match_any", "match_all"] }),
  ...["push", "issue", "confidential_issue", "merge_request", "note", "confidential_note", "tag_push", "pipeline", "wiki_page"].map((e) => s(`${e}_channel`)),
];

export const KINDS: Kind[] = [
  { slug: "task-tracker", alias: "asana", title: "Task tracker", fields: [s("api_key", { required: true, secret: true }), s("restrict_to_branch")], events: ["push_events"] },
  { slug: "project-mgmt-a", alias: "assembla", title: "Project management", fields: [s("token", { required: true, secret: true }), s("subdomain")], events: ["push_events"] },
  {
    slug: "build-server-a",
    alias: "bamboo",
    title: "Build server",
    fields: [s("bamboo_url", { required: true }), s("build_key", { required: true }), s("username", { required: true }), s("password", { required: true, secret: true })],
    events: ["push_events"],
  },
  {
    slug: "issue-tracker-a",
    alias: "bugzilla",
    title: "Issue tracker",
    fields: [s("new_issue_url", { required: true }), s("issues_url", { required: true }), s("project_url", { required: true }), s("description"), s("title")],
    events: ["push_events"],
  },
  {
    slug: "custom-issue-tracker",
    alias: null,
    title: "Custom issue tracker",
    fields: [s("new_issue_url", { required: true }), s("issues_url", { required: true }), s("project_url", { required: true }), s("description"), s("title")],
    events: ["push_events"],
  },
  { slug: "build-service-a", alias: "buildkite", title: "Build service", fields: [s("token", { required: true, secret: true }), s("project_url", { required: true }), b("enable_ssl_verification")], events: ["push_events"] },
  { slug: "group-chat-a", alias: "campfire", title: "Group chat", fields: [s("token", { required: true, secret: true }), s("subdomain"), s("room")], events: ["push_events"] },
  { slug: "rtc-chat-a", alias: "discord", title: "Real-time chat", fields: [s("webhook", { required: true, secret: true }), b("notify_only_broken_pipelines"), s("branches_to_be_notified", { values: BRANCHES })], events: CHAT_EVENTS },
  { slug: "teams-chat-a", alias: "microsoft-teams", title: "Team chat", fields: [s("webhook", { required: true, secret: true }), b("notify_only_broken_pipelines"), s("branches_to_be_notified", { values: BRANCHES })], events: CHAT_EVENTS },
  { slug: "container-ci-a", alias: "drone-ci", title: "Container CI", fields: [s("token", { required: true, secret: true }), s("drone_url", { required: true }), b("enable_ssl_verification")], events: ["push_events", "merge_requests_events", "tag_push_events"] },
  {
    slug: "emails-on-push",
    alias: null,
    title: "Emails on push",
    fields: [s("recipients", { required: true }), b("disable_diffs"), b("send_from_committer_email"), s("branches_to_be_notified", { values: BRANCHES })],
    events: ["push_events", "tag_push_events"],
  },
  { slug: "wiki-cloud-a", alias: "confluence", title: "Cloud wiki", fields: [s("confluence_url", { required: true })], events: [] },
  { slug: "external-wiki", alias: null, title: "External wiki", fields: [s("external_wiki_url", { required: true })], events: [] },
  // Chat kinds after the spec's table (its "not shown" rows), by GitLab's own slug.
  { slug: "slack", alias: null, title: "Slack notifications", fields: SLACK_FIELDS, events: CHAT_EVENTS },
  { slug: "mattermost", alias: null, title: "Mattermost notifications", fields: SLACK_FIELDS, events: CHAT_EVENTS },
  { slug: "hangouts-chat", alias: null, title: "Google Chat", fields: [s("webhook", { required: true, secret: true }), b("notify_only_broken_pipelines"), s("branches_to_be_notified", { values: BRANCHES })], events: CHAT_EVENTS },
  { slug: "flow-chat-a", alias: "flowdock", title: "Flow chat", fields: [s("token", { required: true, secret: true })], events: ["push_events"] },
];

const BY_SLUG = new Map<string, Kind>();
for (const k of KINDS) {
  BY_SLUG.set(k.slug, k);
  if (k.alias) BY_SLUG.set(k.alias, k);
}

/** The kind behind a neutral slug or GitLab's alias; undefined for anything else (an unknown route). */
export const kindOf = (slug: string) => BY_SLUG.get(slug);
