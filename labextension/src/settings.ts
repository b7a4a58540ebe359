/**
 * The sidebar's settings (schema/sidebar.json, edited in Settings > Settings Editor > MCP) and what
 * they change when a sidebar action writes a cell (pure, unit-tested).
 */

/** Where a written cell goes: below the active cell, or at the end of the notebook. */
export type CellPosition = 'below' | 'end';

/** The settings of the `mcp-jupyter-labextension:sidebar` plugin. */
export interface ISidebarSettings {
  /** Where cells written by the sidebar (and its commands) go. */
  cellPosition: CellPosition;
  /** Whether a written cell is run at once (false: inserted only, run it yourself). */
  runCells: boolean;
  /** Whether each new consent request also shows a JupyterLab notification. */
  inboxNotifications: boolean;
}

/** The defaults, as in the schema: below the active cell, run, notify. */
export const DEFAULT_SETTINGS: Readonly<ISidebarSettings> = Object.freeze({
  cellPosition: 'below',
  runCells: true,
  inboxNotifications: true
});

/** Settings from the registry's composite value; a missing or wrong-typed key takes its default. */
export function readSettings(
  composite: Readonly<Record<string, unknown>> | null | undefined
): ISidebarSettings {
  const value = composite ?? {};
  return {
    cellPosition:
      value.cellPosition === 'end' ? 'end' : DEFAULT_SETTINGS.cellPosition,
    runCells:
      typeof value.runCells === 'boolean'
        ? value.runCells
        : DEFAULT_SETTINGS.runCells,
    inboxNotifications:
      typeof value.inboxNotifications === 'boolean'
        ? value.inboxNotifications
        : DEFAULT_SETTINGS.inboxNotifications
  };
}

/** What one written cell asks beyond the settings. */
export interface IWriteOptions {
  /** false: insert the cell without running it, whatever `runCells` says (it needs a value the
   * person gives when they run it, such as a secret typed into the password field). */
  run?: boolean;
}

/** Where a written cell goes and whether it runs. */
export interface ICellPlan {
  /** The new cell's index in the notebook. */
  index: number;
  /** Run it once written. */
  run: boolean;
}

/**
 * The plan for a cell written into a notebook of `cellCount` cells whose active cell is `activeIndex`
 * (-1 or out of range: none, so "below" means at the end). It runs when the settings say so and the
 * cell does not ask to be only inserted (`options.run === false`).
 */
export function cellPlan(
  settings: ISidebarSettings,
  activeIndex: number,
  cellCount: number,
  options: IWriteOptions = {}
): ICellPlan {
  const count = Math.max(0, cellCount);
  const hasActive = activeIndex >= 0 && activeIndex < count;
  const index =
    settings.cellPosition === 'end' || !hasActive ? count : activeIndex + 1;
  return { index, run: settings.runCells && options.run !== false };
}
