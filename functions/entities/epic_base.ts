// EpicBaseEntity (ee/app/serializers/epic_base_entity.rb, 15.4): the epic an issue belongs to, as the
// issue entity shows it (`epic`), with EntityDateHelper#remaining_days_in_words for its dates.

/** The issue's epic, when the caller may read it (the issue entity's `authorized_epic_for`). */
export type IssueEpic = {
  id: number;
  iid: number;
  title: string;
  groupId: number;
  groupFullPath: string;
  /** Epic#start_date / #end_date: the fixed date when fixed, else the inherited one (ISO dates). */
  startDate: string | null;
  endDate: string | null;
};

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** Days since 1970-01-01 of an ISO date (UTC). */
const dayNumber = (iso: string) => Math.round(Date.parse(`${iso.slice(0, 10)}T00:00:00Z`) / 86_400_000);

/** Date::DATE_FORMATS[:medium], GitLab's `"%b %-d, %Y"`. */
function mediumDate(iso: string): string {
  const [year, month, day] = iso.slice(0, 10).split("-").map(Number);
  return `${MONTHS[month - 1]} ${day}, ${year}`;
}

const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? "" : "s"}`;

/**
 * ActionView's `distance_of_time_in_words` between two dates a whole number of days apart (at least
 * one), as Rails words it in English: days, months, then years with its leap-day correction.
 */
function distanceInWords(fromIso: string, toIso: string): string {
  const [from, to] = fromIso <= toIso ? [fromIso, toIso] : [toIso, fromIso];
  const minutes = (dayNumber(to) - dayNumber(from)) * 1440;
  if (minutes < 2520) return "1 day";
  if (minutes < 43_200) return plural(Math.round(minutes / 1440), "day");
  if (minutes < 86_400) return `about ${plural(Math.round(minutes / 43_200), "month")}`;
  if (minutes < 525_600) return plural(Math.round(minutes / 43_200), "month");
  let fromYear = Number(from.slice(0, 4));
  if (Number(from.slice(5, 7)) >= 3) fromYear += 1;
  let toYear = Number(to.slice(0, 4));
  if (Number(to.slice(5, 7)) < 3) toYear -= 1;
  let leapYears = 0;
  for (let year = fromYear; year <= toYear; year++) if (isLeap(year)) leapYears++;
  const withOffset = minutes - leapYears * 1440;
  const remainder = withOffset % 525_600;
  const years = Math.floor(withOffset / 525_600);
  if (remainder < 131_400) return `about ${plural(years, "year")}`;
  if (remainder < 394_200) return `over ${plural(years, "year")}`;
  return `almost ${plural(years + 1, "year")}`;
}

/** EntityDateHelper#remaining_days_in_words(due_date, start_date) (15.4), today being `today` (UTC). */
export function remainingDaysInWords(dueDate: string | null, startDate: string | null, today: string): string | null {
  if (dueDate && dueDate < today) return "<strong>Past due</strong>";
  if (dueDate && dueDate === today) return "<strong>Today</strong>";
  if (startDate && startDate > today) return "<strong>Upcoming</strong>";
  if (dueDate) {
    const words = distanceInWords(dueDate, today)
      .replace(/\d+/g, (n) => `<strong>${n}</strong>`)
      .replaceAll("about ", "");
    return `${words} remaining`;
  }
  if (startDate && startDate < today) {
    const days = dayNumber(today) - dayNumber(startDate);
    return `<strong>${days}</strong> ${days === 1 ? "day" : "days"} elapsed`;
  }
  return null;
}

/** EpicBaseEntity: `url` is `group_epic_path` (a path, not a URL). */
export function epicBase(row: IssueEpic, today = new Date().toISOString().slice(0, 10)) {
  const timestamp = row.endDate || row.startDate ? remainingDaysInWords(row.endDate, row.startDate, today) : null;
  return {
    id: row.id,
    iid: row.iid,
    title: row.title,
    url: `/groups/${row.groupFullPath}/-/epics/${row.iid}`,
    group_id: row.groupId,
    ...(row.endDate ? { human_readable_end_date: mediumDate(row.endDate) } : {}),
    ...(row.endDate || row.startDate ? { human_readable_timestamp: timestamp } : {}),
  };
}
