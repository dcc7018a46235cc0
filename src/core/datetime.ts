/**
 * RFC 3339 date-times: parsing typed `date_time` parameters and printing stored values.
 * Printing is UTC with milliseconds (`2026-04-12T13:20:00.000Z`), as the reference does.
 */
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/** The range JS Date can represent (±100,000,000 days around the epoch). */
export const MAX_DATE_MS = 8.64e15;

/** Epoch milliseconds, or null when `text` is not a valid RFC 3339 date-time. */
export function parseRfc3339(text: string): number | null {
  const m = RFC3339.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  if (month! < 1 || month! > 12 || hour! > 23 || minute! > 59 || second! > 60) return null;
  const daysInMonth = new Date(Date.UTC(year!, month!, 0)).getUTCDate();
  if (day! < 1 || day! > daysInMonth) return null;
  const fraction = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  let offsetMinutes = 0;
  if (m[9]) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  // A leap second (:60) is folded into the next second, as chrono does.
  const ms = Date.UTC(year!, month! - 1, day!, hour!, minute!, second!, fraction) - offsetMinutes * 60_000;
  return Number.isFinite(ms) ? ms : null;
}

export function formatRfc3339(ms: number): string | null {
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_DATE_MS) return null;
  return new Date(ms).toISOString();
}
