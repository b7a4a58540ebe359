import { describe, expect, it } from 'vitest';

import { cellPlan, DEFAULT_SETTINGS, readSettings } from '../src/settings';

describe('readSettings', () => {
  it('takes the schema defaults for missing or wrong values', () => {
    expect(readSettings(null)).toEqual(DEFAULT_SETTINGS);
    expect(
      readSettings({
        cellPosition: 'top',
        runCells: 'no',
        inboxNotifications: 0
      })
    ).toEqual(DEFAULT_SETTINGS);
    expect(
      readSettings({
        cellPosition: 'end',
        runCells: false,
        inboxNotifications: false
      })
    ).toEqual({
      cellPosition: 'end',
      runCells: false,
      inboxNotifications: false
    });
  });

  it('matches the schema the Settings Editor shows', async () => {
    const { default: schema } = await import('../schema/sidebar.json');
    const defaults = Object.fromEntries(
      Object.entries(schema.properties).map(([key, p]) => [key, p.default])
    );
    expect(defaults).toEqual(DEFAULT_SETTINGS);
    const choices = schema.properties.cellPosition.oneOf.map(
      choice => choice.const
    );
    expect(choices).toEqual(['below', 'end']);
  });
});

describe('cellPlan', () => {
  const below = readSettings({});
  const end = readSettings({ cellPosition: 'end' });
  const insertOnly = readSettings({ runCells: false });

  it('puts the cell below the active one and runs it by default', () => {
    expect(cellPlan(below, 1, 5)).toEqual({ index: 2, run: true });
    expect(cellPlan(below, 4, 5)).toEqual({ index: 5, run: true });
  });

  it('puts the cell at the end of the notebook when asked, wherever the active cell is', () => {
    expect(cellPlan(end, 0, 5)).toEqual({ index: 5, run: true });
    expect(cellPlan(end, 4, 5)).toEqual({ index: 5, run: true });
  });

  it('only inserts when the run setting is off', () => {
    expect(cellPlan(insertOnly, 1, 5)).toEqual({ index: 2, run: false });
  });

  it('only inserts a cell that asks not to run (it needs a secret), whatever the setting', () => {
    expect(cellPlan(below, 1, 5, { run: false })).toEqual({
      index: 2,
      run: false
    });
    expect(cellPlan(insertOnly, 1, 5, { run: true })).toEqual({
      index: 2,
      run: false
    });
    expect(cellPlan(below, 1, 5, { run: true })).toEqual({
      index: 2,
      run: true
    });
  });

  it('goes at the end without an active cell, and first in an empty notebook', () => {
    expect(cellPlan(below, -1, 3)).toEqual({ index: 3, run: true });
    expect(cellPlan(below, 7, 3)).toEqual({ index: 3, run: true });
    expect(cellPlan(below, -1, 0)).toEqual({ index: 0, run: true });
  });
});
