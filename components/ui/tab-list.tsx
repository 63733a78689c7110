'use client';

import { type KeyboardEvent, useRef } from 'react';

/**
 * WAI-ARIA tabs: one tab stop, arrow keys move between tabs (automatic activation), each tab
 * controls the panel `${id}-panel`.
 */
export function TabList<Id extends string>({
  tabs,
  selected,
  onSelect,
  label,
}: {
  tabs: readonly { id: Id; label: string }[];
  selected: Id | null;
  onSelect: (id: Id) => void;
  label: string;
}) {
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const onKeyDown = (event: KeyboardEvent, index: number) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    let next = index + step;
    if (event.key === 'Home') next = 0;
    if (event.key === 'End') next = tabs.length - 1;
    if (next === index) return;
    event.preventDefault();
    const target = tabs[(next + tabs.length) % tabs.length];
    if (!target) return;
    onSelect(target.id);
    refs.current[(next + tabs.length) % tabs.length]?.focus();
  };
  const focusable = selected ?? tabs[0]?.id;
  return (
    <div role="tablist" aria-label={label} className="tabs">
      {tabs.map((tab, index) => (
        <button
          key={tab.id}
          ref={(element) => {
            refs.current[index] = element;
          }}
          type="button"
          role="tab"
          id={`tab-${tab.id}`}
          aria-selected={tab.id === selected}
          aria-controls={`tab-${tab.id}-panel`}
          tabIndex={tab.id === focusable ? 0 : -1}
          className="tab"
          onClick={() => onSelect(tab.id)}
          onKeyDown={(event) => onKeyDown(event, index)}
        >
          {tab.label}
        </button>
      ))}
    </div>
  );
}
