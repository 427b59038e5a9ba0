/**
 * GitLab's human durations (lib/gitlab/time_tracking_formatter.rb over its vendored ChronicDuration):
 * a working day is 8 hours, a week 5 days, a month 4 weeks (20 days), a year 365.25 calendar days.
 * A bare number is hours. Pure functions with the presenters, which answer `human_*` with them; the
 * time tracking routes parse with them (entities/time_tracking.ts re-exports both).
 */

const MINUTE = 60;
const HOUR = 3600;
const HOURS_PER_DAY = 8;
const DAYS_PER_MONTH = 20;
const FULL_WEEKS_PER_MONTH = 4;
const DAYS_PER_WEEK = DAYS_PER_MONTH / FULL_WEEKS_PER_MONTH;
const DAY = HOURS_PER_DAY * HOUR;
const MONTH = DAYS_PER_MONTH * DAY;
const SECONDS_PER_YEAR = 31_557_600;

/** Seconds per unit, as ChronicDuration#duration_units_seconds_multiplier with GitLab's day and month. */
const UNIT_SECONDS: Record<string, number> = {
  seconds: 1,
  minutes: MINUTE,
  hours: HOUR,
  days: DAY,
  weeks: DAYS_PER_WEEK * DAY,
  months: MONTH,
  years: SECONDS_PER_YEAR,
};

/** ChronicDuration#mappings: the words it understands, each mapped to its unit. */
const WORDS: Record<string, string> = {
  seconds: "seconds", second: "seconds", secs: "seconds", sec: "seconds", s: "seconds",
  minutes: "minutes", minute: "minutes", mins: "minutes", min: "minutes", m: "minutes",
  hours: "hours", hour: "hours", hrs: "hours", hr: "hours", h: "hours",
  days: "days", day: "days", dy: "days", d: "days",
  weeks: "weeks", week: "weeks", wks: "weeks", wk: "weeks", w: "weeks",
  months: "months", mo: "months", mos: "months", month: "months",
  years: "years", year: "years", yrs: "years", yr: "years", y: "years",
};

const NUMBER = /[0-9]*\.?[0-9]+/;
const NUMBERS = /[0-9]*\.?[0-9]+/g;
const CHRONO = /^[0-9]+:[0-9]+(:[0-9]+){0,4}(\.[0-9]*)?$/;
/** `3:41:59` reads right to left as seconds, minutes, hours, days, months, years (no weeks). */
const CHRONO_UNITS = ["seconds", "minutes", "hours", "days", "months", "years"];

/** ChronicDuration#filter_by_type: `1:30` → `1 hours 30 minutes`. */
function expandChrono(text: string): string {
  const compact = text.replace(/ /g, "");
  if (!CHRONO.test(compact)) return text;
  const parts = compact.split(":").reverse();
  return parts
    .map((value, i) => `${value} ${CHRONO_UNITS[i]}`)
    .reverse()
    .join(" ");
}

/** ChronicDuration#cleanup + #filter_through_white_list: numbers and known units, unknown words dropped. */
function words(text: string): string[] {
  const spaced = expandChrono(text.toLowerCase())
    .replace(NUMBERS, (n) => ` ${n} `)
    .replace(/ {2,}/g, " ")
    .trim();
  const kept: string[] = [];
  for (const word of spaced.split(/\s+/)) {
    if (word === "") continue;
    if (NUMBER.test(word)) {
      kept.push(word);
      continue;
    }
    const unit = WORDS[word.replace(/^,/, "").replace(/,$/, "")];
    if (unit) kept.push(unit);
  }
  // "hour 30 min" reads as "1 hour 30 min".
  if (kept.length > 0 && WORDS[kept[0]]) kept.unshift("1");
  return kept;
}

/** ChronicDuration#convert_to_number: a float when it has a fraction, else the integer part. */
function toNumber(word: string): number {
  const value = Number(word);
  return value % 1 > 0 ? value : Math.trunc(value);
}

/**
 * `Gitlab::TimeTrackingFormatter.parse`: seconds, or null when nothing in the text is a duration or it
 * sums to zero (GitLab 15.4 has no `keep_zero` here: "0" and "foo" are both invalid). A leading `-`
 * negates. A number without a unit is hours, and each number takes the unit that follows it.
 */
export function parseDuration(input: string): number | null {
  const negative = input.startsWith("-");
  const list = words(negative ? input.slice(1) : input);
  let total = 0;
  list.forEach((word, i) => {
    if (!NUMBER.test(word)) return;
    const unit = list[i + 1] ?? "hours";
    total += toNumber(word) * (UNIT_SECONDS[unit] ?? 0);
  });
  if (total === 0) return null;
  // The integer columns keep whole seconds (Rails casts 5400.5 to 5400).
  const seconds = Math.trunc(total);
  return negative && seconds !== 0 ? -seconds : seconds;
}

type Parts = { years: number; months: number; weeks: number; days: number; hours: number; minutes: number; seconds: number };

/** ChronicDuration#output's split of a positive number of seconds (`weeks: true`, not limited to hours). */
function split(total: number): Parts {
  const parts: Parts = { years: 0, months: 0, weeks: 0, days: 0, hours: 0, minutes: 0, seconds: total };
  if (total >= SECONDS_PER_YEAR && total % SECONDS_PER_YEAR < total % MONTH) {
    const inYear = total % SECONDS_PER_YEAR;
    parts.years = Math.floor(total / SECONDS_PER_YEAR);
    parts.months = Math.floor(inYear / MONTH);
    parts.days = Math.floor((inYear % MONTH) / DAY);
    parts.hours = Math.floor((inYear % MONTH % DAY) / HOUR);
    parts.minutes = Math.floor((inYear % MONTH % DAY % HOUR) / MINUTE);
    parts.seconds = inYear % MONTH % DAY % HOUR % MINUTE;
    return parts;
  }
  if (total < MINUTE) return parts;
  parts.minutes = Math.floor(total / MINUTE);
  parts.seconds = total % MINUTE;
  if (parts.minutes < 60) return parts;
  parts.hours = Math.floor(parts.minutes / 60);
  parts.minutes %= 60;
  if (parts.hours < HOURS_PER_DAY) return parts;
  parts.days = Math.floor(parts.hours / HOURS_PER_DAY);
  parts.hours %= HOURS_PER_DAY;
  if (parts.days < DAYS_PER_WEEK) return parts;
  parts.weeks = Math.floor(parts.days / DAYS_PER_WEEK);
  parts.days %= DAYS_PER_WEEK;
  if (parts.weeks < FULL_WEEKS_PER_MONTH) return parts;
  parts.months = Math.floor(parts.weeks / FULL_WEEKS_PER_MONTH);
  parts.weeks %= FULL_WEEKS_PER_MONTH;
  return parts;
}

const SHORT: [keyof Parts, string][] = [
  ["years", "y"],
  ["months", "mo"],
  ["weeks", "w"],
  ["days", "d"],
  ["hours", "h"],
  ["minutes", "m"],
  ["seconds", "s"],
];

/**
 * `Gitlab::TimeTrackingFormatter.output`: `"1mo 1w 1d 1h 1m 1s"` without zero units, `"-2h"` for a
 * negative value, null for 0.
 */
export function humanDuration(seconds: number | null | undefined): string | null {
  if (seconds === null || seconds === undefined) return null;
  const whole = Math.trunc(seconds);
  if (whole < 0) {
    const positive = humanDuration(-whole);
    return positive === null ? null : `-${positive}`;
  }
  const parts = split(whole);
  const text = SHORT.filter(([unit]) => parts[unit] !== 0)
    .map(([unit, suffix]) => `${parts[unit]}${suffix}`)
    .join(" ");
  return text === "" ? null : text;
}
