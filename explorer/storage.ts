/** What the page remembers in local storage: history, favourites, styles, settings. A missing or broken entry is its default. */

export function load<T>(key: string, fallback: T): T {
  try {
    const text = localStorage.getItem(`trellis.${key}`);
    return text === null ? fallback : (JSON.parse(text) as T);
  } catch {
    return fallback;
  }
}

export function save(key: string, value: unknown): void {
  try {
    localStorage.setItem(`trellis.${key}`, JSON.stringify(value));
  } catch {
    // Storage full or refused (private mode): the page works without remembering.
  }
}
