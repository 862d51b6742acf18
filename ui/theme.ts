/**
 * @module ui/theme
 * Light and dark themes: `system` follows the OS; the choice is kept in localStorage and set as
 * `data-theme` on <html> (ui/styles/theme.css defines both palettes).
 */

/** A theme choice. */
export type ThemeChoice = "system" | "light" | "dark";

const KEY = "flow:theme";

/**
 * The saved choice (default `system`).
 * @example
 * applyTheme(savedTheme());
 */
export function savedTheme(): ThemeChoice {
  try {
    const v = localStorage.getItem(KEY);
    return v === "light" || v === "dark" ? v : "system";
  } catch {
    return "system";
  }
}

/**
 * Applies and saves a choice.
 * @example
 * applyTheme("dark");
 */
export function applyTheme(choice: ThemeChoice): void {
  const dark = choice === "dark" || (choice === "system" && matchMedia("(prefers-color-scheme: dark)").matches);
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  try {
    localStorage.setItem(KEY, choice);
  } catch {
    // Not remembered when storage is unavailable.
  }
}
