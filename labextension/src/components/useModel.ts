/**
 * How a React view observes the sidebar's model: it renders again after each change.
 */
import { useEffect, useState } from 'react';

import { SidebarModel } from '../model';

/** `model`, with the calling component rendered again whenever `model.changed` fires. */
export function useModel(model: SidebarModel): SidebarModel {
  const [, setVersion] = useState(0);
  useEffect(() => {
    const onChange = (): void => setVersion(version => version + 1);
    model.changed.connect(onChange);
    return () => void model.changed.disconnect(onChange);
  }, [model]);
  return model;
}
