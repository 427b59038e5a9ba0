import { branchMatches } from "./events";

/**
 * Chat notifications of integrations: GitLab's Integrations::BaseChatNotification
 * with the messages of app/models/integrations/chat_message/*.rb, built from the same hook payload a
 * webhook receives, and each chat service's request body (slack.rb / mattermost.rb through
 * Slack::Messenger, discord.rb through discordrb, microsoft_teams.rb through MicrosoftTeams::Notifier,
 * hangouts_chat.rb through HangoutsChat::Sender). Pure functions: the consumer in ./index.ts loads
 * the integrations and queues one request per body.
 *
 * Not built: wiki page messages; deployment messages (integrations store no deployment flag); Google Chat threads
 * (`threadKey`); Slack's per-user Slack app. GitLab has no chat message for job events, nor here.
 */

/** The chat services by stored slug (the spec's neutral slugs, and GitLab's where the spec has none). */
export const CHAT_SERVICES = {
  "rtc-chat-a": "discord",
  "teams-chat-a": "microsoft_teams",
  slack: "slack",
  mattermost: "mattermost",
  "hangouts-chat": "hangouts_chat",
} as const;
export type ChatService = (typeof CHAT_SERVICES)[keyof typeof CHAT_SERVICES];
export const chatServiceOf = (slug: string): ChatService | null => (CHAT_SERVICES as Record<string, ChatService>)[slug] ?? null;

/** Discord and Microsoft Teams read Markdown (`custom_data … merge(markdown: true)`); the others Slack's mrkdwn. */
const MARKDOWN: Record<ChatService, boolean> = { discord: true, microsoft_teams: true, slack: false, mattermost: false, hangouts_chat: false };

type Payload = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Attachment = { title?: string; title_link?: string; text?: string; color: string; [key: string]: unknown };
type Activity = { title: string; subtitle: string; text: string; image: string | null };

/** What a ChatMessage answers: `pretext`/`summary`, `fallback`, `attachments`, `activity`, the user. */
export type ChatMessage = {
  pretext: string;
  /** BaseMessage#summary (Microsoft Teams' `summary`) where it differs from `pretext` (pipelines: empty pretext). */
  summary?: string;
  fallback: string;
  /** Slack-style attachments, or (Markdown services) the attachment text itself. */
  attachments: Attachment[] | string;
  activity: Activity;
  userName: string | null;
  userAvatar: string | null;
  projectName: string;
};

/** SlackMarkdownSanitizer.sanitize: user text loses the characters links are made of. */
export const stripMarkup = (s: string | null | undefined) => (s ?? "").replace(/[<>[\]|]/g, "");

/** Slack::Messenger::Util::LinkFormatter: HTML and Markdown links become `<url|text>`. */
export function slackLinks(s: string): string {
  return s
    .replace(/<a(?:.*?)href=['"](.+?)['"](?:.*?)>(.+?)<\/a>/g, (_, url: string, text: string) => `<${url}|${text}>`)
    .replace(/\[([^[\]]*?)\]\(((?:https?:\/\/.*?)|(?:mailto:.*?))\)(?![\w\-.~/?#=]*\))/g, (_, text: string, url: string) => (text ? `<${url}|${text}>` : `<${url}>`));
}

const link = (text: string, url: string) => `[${stripMarkup(text)}](${url})`;
const firstLine = (s: string | null | undefined) => (s ?? "").split("\n")[0].replace(/\r$/, "");
const ZERO = /^0+$/;

type Base = { markdown: boolean; projectName: string; projectUrl: string; userFullName: string | null; userName: string | null; userAvatar: string | null };

function base(payload: Payload, projectName: string, markdown: boolean): Base {
  const user = payload.user as Payload | undefined;
  return {
    markdown,
    projectName,
    projectUrl: payload.project?.web_url ?? "",
    // BaseMessage: `user.name` or `user_full_name`, `user.username` or `user_name` (a push's full name).
    userFullName: user?.name ?? null,
    userName: user?.username ?? payload.user_name ?? null,
    userAvatar: user?.avatar_url ?? payload.user_avatar ?? null,
  };
}

const combinedName = (b: Base) => (b.userFullName ? `${b.userFullName} (${b.userName})` : (b.userName ?? ""));

/** BaseMessage#format: relative upload links made absolute, then Slack's link syntax. */
function format(b: Base, s: string): string {
  return slackLinks(s.replace(/!\[[^\]]*\]\((\/uploads\/[^)]*)\)/g, (_, path: string) => `${b.projectUrl}${path}`));
}

function finish(b: Base, message: string, attachments: Attachment[] | string, activity: Activity): ChatMessage {
  return {
    pretext: b.markdown ? message : format(b, message),
    fallback: format(b, message),
    attachments,
    activity,
    userName: b.userName,
    userAvatar: b.userAvatar,
    projectName: b.projectName,
  };
}

/** ChatMessage::PushMessage (pushes and tag pushes). */
function pushMessage(b: Base, p: Payload): ChatMessage {
  const tag = String(p.ref).startsWith("refs/tags/");
  const refType = tag ? "tag" : "branch";
  const ref = String(p.ref).replace(/^refs\/(heads|tags)\//, "");
  const created = ZERO.test(p.before);
  const removed = ZERO.test(p.after);
  const refLink = link(ref, tag ? `${b.projectUrl}/-/tags/${ref}` : `${b.projectUrl}/-/commits/${ref}`);
  const projectLink = link(b.projectName, b.projectUrl);
  const compareLink = link("Compare changes", `${b.projectUrl}/-/compare/${p.before}...${p.after}`);
  const [action, shownRef, target] = created
    ? ["pushed new", refLink, `to ${projectLink}`]
    : removed
      ? ["removed", ref, `from ${projectLink}`]
      : ["pushed to", refLink, `of ${projectLink} (${compareLink})`];
  const who = stripMarkup(combinedName(b));
  const commits = ((p.commits ?? []) as Payload[])
    .map((c) => `${link(String(c.id).slice(0, 8), c.url)}: ${stripMarkup(c.title)} - ${stripMarkup(c.author?.name)}`)
    .join("\n\n");
  const attachments = created || removed ? [] : b.markdown ? commits : [{ text: slackLinks(commits), color: "#334455" }];
  return {
    ...finish(b, [who, action, refType, shownRef, target].join(" "), attachments, {
      title: [who, action, refType, shownRef].join(" "),
      subtitle: `in ${projectLink}`,
      text: compareLink,
      image: b.userAvatar,
    }),
    // PushMessage#format skips the relative-link step.
    fallback: slackLinks([who, action, refType, shownRef, target].join(" ")),
  };
}

/** ChatMessage::IssueMessage */
function issueMessage(b: Base, p: Payload): ChatMessage {
  const a = p.object_attributes as Payload;
  const type = a.type ?? (p.object_kind === "incident" ? "Incident" : "Issue");
  const projectLink = b.projectName ? link(b.projectName, b.projectUrl) : null;
  const issueTitle = `#${a.iid} ${stripMarkup(a.title)}`;
  const issueLink = link(issueTitle, a.url);
  const who = stripMarkup(combinedName(b));
  const description = a.description ?? "";
  const attachments = a.action !== "open" ? [] : b.markdown ? description : [{ title: issueTitle, title_link: a.url, text: format(b, description), color: "#C95823" }];
  return finish(b, `${projectLink ? `[${projectLink}] ` : ""}${type} ${issueLink} ${a.state} by ${who}`, attachments, {
    title: `${type} ${a.state} by ${who}`,
    subtitle: projectLink ? `in ${projectLink}` : "",
    text: issueLink,
    image: b.userAvatar,
  });
}

/** ChatMessage::MergeMessage */
function mergeMessage(b: Base, p: Payload): ChatMessage {
  const a = p.object_attributes as Payload;
  const title = `*${stripMarkup(firstLine(a.title))}*`;
  const mrLink = link(`!${a.iid} ${stripMarkup(title)}`, `${b.projectUrl}/-/merge_requests/${a.iid}`);
  const projectLink = link(b.projectName, b.projectUrl);
  const stateText =
    a.action === "approved" || a.action === "unapproved"
      ? a.action
      : a.action === "approval"
        ? "added their approval to"
        : a.action === "unapproval"
          ? "removed their approval from"
          : a.state;
  const who = stripMarkup(combinedName(b));
  return finish(b, `${who} ${stateText} merge request ${mrLink} in ${projectLink}`, [], {
    title: `Merge request ${stateText} by ${who}`,
    subtitle: `in ${projectLink}`,
    text: mrLink,
    image: b.userAvatar,
  });
}

/** ChatMessage::NoteMessage (issue and merge request notes: the kinds the hook queue carries). */
function noteMessage(b: Base, p: Payload): ChatMessage {
  const a = p.object_attributes as Payload;
  const [target, title] =
    a.noteable_type === "MergeRequest"
      ? [`merge request !${p.merge_request?.iid}`, p.merge_request?.title]
      : a.noteable_type === "Commit"
        ? [`commit ${String(p.commit?.id ?? "").slice(0, 8)}`, p.commit?.message]
        : [`issue #${p.issue?.iid}`, p.issue?.title];
  const noteLink = link(`commented on ${target}`, a.url);
  const projectLink = link(b.projectName, b.projectUrl);
  const who = combinedName(b);
  const note = a.note ?? "";
  return finish(b, `${who} ${noteLink} in ${projectLink}: *${firstLine(title)}*`, b.markdown ? note : [{ text: format(b, note), color: "#334455" }], {
    title: `${who} ${noteLink}`,
    subtitle: `in ${projectLink}`,
    text: firstLine(title),
    image: b.userAvatar,
  });
}

/** ChatMessage::PipelineMessage::MAX_VISIBLE_JOBS */
const MAX_VISIBLE_JOBS = 10;

/** BaseMessage#pretty_duration: `%M:%S` under an hour, else `%H:%M:%S` (of the seconds since the epoch, in UTC). */
function prettyDuration(seconds: number): string {
  const iso = new Date(seconds * 1000).toISOString();
  return seconds < 3600 ? iso.slice(14, 19) : iso.slice(11, 19);
}

/** `"…".pluralize(n)` for the two field titles. */
const plural = (word: string, n: number) => (n === 1 ? word : `${word}s`);

/**
 * ChatMessage::PipelineMessage: a finished pipeline (BaseChatNotification sends only `success` and
 * `failed`, see `chatMessage`). Differs from GitLab: no `author_link` (GitLab links the commit's
 * committer when that e-mail belongs to a user) and no "Invalid CI config YAML file" field (the hook
 * payload does not carry the pipeline's YAML errors); pipelines have no names in 15.4.
 */
function pipelineMessage(b: Base, p: Payload): ChatMessage {
  const a = p.object_attributes as Payload;
  const userName = b.userName ?? "API";
  const combined = b.userFullName ? `${b.userFullName} (${userName})` : userName;
  const refType = a.tag ? "tag" : "branch";
  const ref = String(a.ref ?? "");
  const projectUrl = b.projectUrl;
  const projectName = String(p.project?.name ?? "");
  const duration = Math.trunc(Number(a.duration ?? 0)) || 0;
  const finishedAt = a.finished_at ? Math.floor(new Date(String(a.finished_at).replace(" UTC", "Z").replace(" ", "T")).getTime() / 1000) : null;
  const pipelineId = a.id;
  // Jobs that failed for good: failed, with no successful job of the same name; one per name, last first.
  const builds = (Array.isArray(p.builds) ? p.builds : []) as Payload[];
  const succeeded = new Set(builds.filter((j) => j.status === "success").map((j) => j.name));
  const seen = new Set<string>();
  const failedJobs = builds.filter((j) => j.status === "failed" && !succeeded.has(j.name) && !seen.has(j.name) && (seen.add(j.name), true)).reverse();
  const failedStages = [...new Set(failedJobs.map((j) => String(j.stage)))];
  const failuresUrl = `${projectUrl}/-/pipelines/${pipelineId}/failures`;
  const pipelineUrl = failedJobs.length ? failuresUrl : `${projectUrl}/-/pipelines/${pipelineId}`;
  const passedWithWarnings = a.detailed_status === "passed with warnings";
  const humanized = a.status === "success" ? (passedWithWarnings ? "has passed with warnings" : "has passed") : a.status === "failed" ? "has failed" : String(a.status);
  const color = a.status === "success" ? (passedWithWarnings ? "warning" : "good") : "danger";
  const refLink = link(ref, refType === "tag" ? `${projectUrl}/-/tags/${ref}` : `${projectUrl}/-/commits/${ref}`);
  const pipelineLink = link(`#${pipelineId}`, pipelineUrl);
  const projectLink = link(projectName, projectUrl);
  const who = stripMarkup(combined);
  const message = `${projectLink}: Pipeline ${pipelineLink} of ${refType} ${refLink} by ${who} ${humanized} in ${prettyDuration(duration)}`;
  const activity = {
    title: `Pipeline ${pipelineLink} of ${refType} ${refLink} by ${who} ${humanized}`,
    subtitle: `in ${projectLink}`,
    text: `in ${prettyDuration(duration)}`,
    image: b.userAvatar ?? "",
  };
  let attachments: Attachment[] | string = message;
  if (!b.markdown) {
    const fields: { title: string; value: string; short: boolean }[] = [
      { title: refType === "tag" ? "Tag" : "Branch", value: slackLinks(refLink), short: true },
      { title: "Commit", value: slackLinks(link(String(p.commit?.title ?? ""), String(p.commit?.url ?? `${projectUrl}/-/commit/${a.sha}`))), short: true },
    ];
    if (failedStages.length)
      fields.push({ title: plural("Failed stage", failedStages.length), value: slackLinks(failedStages.map((st) => link(st, pipelineUrl)).join(", ")), short: true });
    if (failedJobs.length) {
      const links = failedJobs.slice(0, MAX_VISIBLE_JOBS).map((j) => link(String(j.name), `${projectUrl}/-/jobs/${j.id}`));
      const more = failedJobs.length - MAX_VISIBLE_JOBS;
      if (more > 0) links.push(`and [${more} more](${failuresUrl})`);
      fields.push({ title: plural("Failed job", failedJobs.length), value: slackLinks(links.join(", ")), short: true });
    }
    attachments = [
      {
        fallback: format(b, message),
        color,
        author_name: stripMarkup(combined),
        author_icon: b.userAvatar,
        author_link: null,
        title: `Pipeline #${pipelineId} ${humanized} in ${prettyDuration(duration)}`,
        title_link: pipelineUrl,
        fields,
        footer: projectName,
        footer_icon: p.project?.avatar_url ?? null,
        ts: finishedAt,
      },
    ];
  }
  return {
    pretext: "",
    summary: b.markdown ? message : format(b, message),
    fallback: format(b, message),
    attachments,
    activity,
    userName,
    userAvatar: b.userAvatar,
    projectName: b.projectName,
  };
}

/** BaseChatNotification#notify_for_pipeline?: `failed` always, `success` unless only broken pipelines are wanted. */
function notifyForPipeline(s: ChatSettings, status: string): boolean {
  if (status === "failed") return true;
  if (status === "success") return !(s.properties.notify_only_broken_pipelines === true || s.properties.notify_only_broken_pipelines === "true");
  return false;
}

/** The settings of one chat integration that decide whether and where it posts. */
export type ChatSettings = {
  service: ChatService;
  properties: Record<string, unknown>;
  defaultBranch: string | null;
  protectedBranches: string[];
};

/** NotificationBranchSelection#notify_for_branch? (`branches_to_be_notified`, default `default`). */
function notifyForBranch(s: ChatSettings, ref: string): boolean {
  const branch = ref.replace(/^refs\/heads\//, "");
  const isDefault = branch === s.defaultBranch;
  const isProtected = s.protectedBranches.some((name) => branchMatches(name, branch));
  switch ((s.properties.branches_to_be_notified as string | undefined) ?? "default") {
    case "all":
      return true;
    case "protected":
      return isProtected;
    case "default_and_protected":
      return isDefault || isProtected;
    default:
      return isDefault;
  }
}

/** BaseChatNotification#notify_label?: `labels_to_be_notified` (issue, merge request and note events). */
function notifyLabel(s: ChatSettings, p: Payload): boolean {
  const wanted = String(s.properties.labels_to_be_notified ?? "")
    .replace(/~/g, "")
    .split(",")
    .map((l) => l.trim())
    .filter(Boolean);
  if (!wanted.length || !["issue", "merge_request", "note"].includes(p.object_kind)) return true;
  const labels = (p.labels ?? p.issue?.labels ?? p.merge_request?.labels ?? p.object_attributes?.labels ?? []) as { title: string }[];
  const matching = wanted.filter((w) => labels.some((l) => l.title === w));
  return s.properties.labels_to_be_notified_behavior === "match_all" ? matching.length === wanted.length : matching.length > 0;
}

/** BaseChatNotification#get_message: null when the event sends nothing (an update, a branch not chosen). */
export function chatMessage(s: ChatSettings, payload: Payload, projectName: string): ChatMessage | null {
  if (!notifyLabel(s, payload)) return null;
  const b = base(payload, projectName, MARKDOWN[s.service]);
  switch (payload.object_kind) {
    case "push":
      return notifyForBranch(s, String(payload.ref)) ? pushMessage(b, payload) : null;
    case "tag_push":
      return pushMessage(b, payload);
    case "issue":
      return payload.object_attributes?.action === "update" ? null : issueMessage(b, payload);
    case "merge_request":
      return payload.object_attributes?.action === "update" ? null : mergeMessage(b, payload);
    case "note":
      return noteMessage(b, payload);
    case "pipeline":
      // BaseChatNotification#should_pipeline_be_notified?: the pipeline's ref through the branch choice, then its status.
      return notifyForBranch(s, String(payload.object_attributes?.ref ?? "")) && notifyForPipeline(s, String(payload.object_attributes?.status))
        ? pipelineMessage(b, payload)
        : null;
    default:
      return null;
  }
}

/** One request to the chat service. */
export type ChatRequest = { contentType: string; body: string };

/** Discord::ATTACHMENT_REGEX, applied to the embed's description. */
const DISCORD_ATTACHMENT = /: (.*?)\n - (.*)\n*/g;

/** The request(s) each service makes for one message (`notify`); Slack and Mattermost post once per channel. */
export function chatRequests(s: ChatSettings, message: ChatMessage, eventType: string): ChatRequest[] {
  const json = (body: unknown): ChatRequest => ({ contentType: "application/json", body: JSON.stringify(body) });
  const attachmentsList = Array.isArray(message.attachments) ? message.attachments : message.attachments ? [message.attachments] : [];
  switch (s.service) {
    case "slack":
    case "mattermost": {
      // Slack::Messenger: `payload=<json>` form-encoded (Gitlab::HTTP.post with a body hash), one per channel.
      const channels = String((s.properties[`${eventType}_channel`] as string) || (s.properties.channel as string) || "")
        .split(",")
        .map((c) => c.trim())
        .filter(Boolean);
      const username = s.properties.username as string | undefined;
      return (channels.length ? channels : [null]).map((channel) => ({
        contentType: "application/x-www-form-urlencoded",
        body: new URLSearchParams({
          payload: JSON.stringify({
            ...(channel ? { channel } : {}),
            ...(username ? { username } : {}),
            text: message.pretext,
            attachments: message.attachments,
            fallback: message.fallback,
          }),
        }).toString(),
      }));
    }
    case "discord": {
      const description = `${message.pretext}\n${attachmentsList.join("\n")}`.replace(DISCORD_ATTACHMENT, " $1 - $2\n");
      return [
        json({
          content: "",
          username: null,
          avatar_url: null,
          tts: false,
          embeds: [
            {
              title: null,
              description,
              url: null,
              timestamp: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
              color: 16543014, // #fc6d26
              footer: null,
              image: null,
              thumbnail: null,
              video: null,
              provider: null,
              author: { name: message.userName, url: null, icon_url: message.userAvatar },
              fields: [],
            },
          ],
        }),
      ];
    }
    case "microsoft_teams": {
      const sections: unknown[] = [
        { activityTitle: message.activity.title, activitySubtitle: message.activity.subtitle, activityText: message.activity.text, activityImage: message.activity.image },
      ];
      if (attachmentsList.length && message.attachments !== "") sections.push({ title: "Details", facts: [{ name: "Attachments", value: message.attachments }] });
      return [json({ sections, title: message.projectName, summary: message.summary ?? message.pretext })];
    }
    case "hangouts_chat": {
      // HangoutsChat#parse_simple_text_message: the header, then the first attachment's title and text.
      const first = attachmentsList[0] as Attachment | undefined;
      if (!first) return [json({ text: message.pretext })];
      const title = first.title === undefined ? undefined : first.title_link ? `<${first.title_link}|${first.title}>` : first.title;
      return [json({ text: [message.pretext, title, first.text].filter((x) => x !== undefined && x !== null).join("\n") })];
    }
  }
}
