import { describe, expect, it } from 'vitest';

import { IKeyLike, isTypingKey } from '../src/keys';

const key = (name: string, mods: Partial<IKeyLike> = {}): IKeyLike => ({
  key: name,
  ctrlKey: false,
  altKey: false,
  metaKey: false,
  shiftKey: false,
  ...mods
});

describe('isTypingKey', () => {
  it('keeps the keys a dropdown, button or checkbox uses', () => {
    for (const name of [
      'a',
      'b',
      'd',
      'x',
      'm',
      'z',
      '1',
      ' ',
      'ArrowDown',
      'ArrowUp',
      'Home',
      'End',
      'Enter'
    ]) {
      expect(isTypingKey(key(name)), name).toBe(true);
    }
    expect(isTypingKey(key('M', { shiftKey: true }))).toBe(true); // Shift+M merges cells in command mode
  });

  it('lets commands through: modifiers, Escape, Tab, Shift+Enter, function keys', () => {
    expect(isTypingKey(key('s', { ctrlKey: true }))).toBe(false);
    expect(isTypingKey(key('s', { metaKey: true }))).toBe(false);
    expect(isTypingKey(key('Enter', { altKey: true }))).toBe(false);
    expect(isTypingKey(key('Enter', { shiftKey: true }))).toBe(false);
    for (const name of ['Escape', 'Tab', 'F5', 'Shift', 'Control']) {
      expect(isTypingKey(key(name)), name).toBe(false);
    }
  });
});
