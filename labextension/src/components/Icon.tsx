/**
 * An item's or server's icon: an `<img>` (never inline SVG) of a source `iconView` allowed, drawn at
 * 20 px, or the note of an icon that was not loaded.
 */
import React from 'react';

import { IconView } from '../view';

/** The icon, or nothing when the server gave none. */
export function Icon(props: {
  icon: IconView | null | undefined;
}): JSX.Element | null {
  const { icon } = props;
  if (!icon) {
    return null;
  }
  if ('src' in icon) {
    return (
      <img
        className="mcpj-icon"
        src={icon.src}
        alt=""
        width={20}
        height={20}
        referrerPolicy="no-referrer"
        loading="lazy"
        draggable={false}
      />
    );
  }
  return (
    <span className="mcpj-icon-note" title={icon.note}>
      {icon.note}
    </span>
  );
}
